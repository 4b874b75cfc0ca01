"""How well parsed dictionaries match the expected ones: exact match of whole dictionaries and
accuracy per field (each leaf path of the dictionary, e.g. `action.location.reference_object.has_name`)."""

from __future__ import annotations

from collections import defaultdict


def leaves(d, prefix: str = "") -> dict[str, object]:
    """Leaf paths of a dictionary -> values (spans and enums are leaves)."""
    out: dict[str, object] = {}
    if isinstance(d, dict):
        for k, v in d.items():
            out.update(leaves(v, f"{prefix}.{k}" if prefix else k))
    else:
        out[prefix] = d
    return out


def parse_metrics(expected: list[dict], predicted: list[dict]) -> dict:
    """{"n", "exact_match", "fields": {path: accuracy}, "field_counts": {path: n}} over pairs of
    dictionaries; a field counts for a pair when either dictionary has it, and is right when both
    hold the same value."""
    if len(expected) != len(predicted):
        raise ValueError(f"expected as many predictions as examples, got {len(predicted)} and {len(expected)}")
    right: dict[str, int] = defaultdict(int)
    seen: dict[str, int] = defaultdict(int)
    exact = 0
    for e, p in zip(expected, predicted):
        exact += int(e == p)
        le, lp = leaves(e), leaves(p)
        for path in set(le) | set(lp):
            seen[path] += 1
            right[path] += int(le.get(path) == lp.get(path))
    n = len(expected)
    fields = {k: right[k] / seen[k] for k in sorted(seen, key=lambda k: (-seen[k], k))}
    return {"n": n, "exact_match": exact / n if n else 0.0, "fields": fields, "field_counts": dict(seen)}


def format_metrics(name: str, m: dict, top: int = 12) -> str:
    """A few lines: exact match and the most frequent fields' accuracy."""
    lines = [f"{name}: exact match {m['exact_match']:.3f} on {m['n']} commands"]
    for path, acc in list(m["fields"].items())[:top]:
        lines.append(f"  {path:<48} {acc:.3f}  (n={m['field_counts'][path]})")
    return "\n".join(lines)
