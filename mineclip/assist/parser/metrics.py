"""How well parsed dictionaries match the expected ones: exact match of whole dictionaries, the
request's kind, the reference objects' spans, and accuracy per field (each leaf path of the
dictionary, e.g. `action.location.reference_object.has_name`)."""

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


def kind_of(d: dict) -> str:
    """The kind of request: the action type of a command (a loop's action), else the dialogue type."""
    if d.get("dialogue_type") != "HUMAN_GIVE_COMMAND":
        return d.get("dialogue_type", "NOOP")
    a = d["action"]
    return a["action"]["action_type"] if a["action_type"] == "LOOP" else a["action_type"]


def reference_spans(d) -> list:
    """The spans of every reference object of a dictionary (an action's, a location's, a question's, a
    recipe), sorted."""
    out = []
    if isinstance(d, dict):
        for k, v in d.items():
            if k in ("reference_object", "recipe") and isinstance(v, dict) and "has_name" in v:
                out.append(v["has_name"])
            out += reference_spans(v)
    return sorted(out)


def parse_metrics(expected: list[dict], predicted: list[dict]) -> dict:
    """{"n", "exact_match", "kind_accuracy", "reference_span", "reference_n", "fields": {path: accuracy},
    "field_counts": {path: n}} over pairs of dictionaries. A field counts for a pair when either
    dictionary has it, and is right when both hold the same value. `reference_span`: the share of pairs
    whose expected dictionary has a reference object (`reference_n` of them) where the parse has
    exactly the same reference-object spans."""
    if len(expected) != len(predicted):
        raise ValueError(f"expected as many predictions as examples, got {len(predicted)} and {len(expected)}")
    right: dict[str, int] = defaultdict(int)
    seen: dict[str, int] = defaultdict(int)
    exact = kinds = refs = ref_right = 0
    for e, p in zip(expected, predicted):
        exact += int(e == p)
        kinds += int(kind_of(e) == kind_of(p))
        if reference_spans(e):
            refs += 1
            ref_right += int(reference_spans(e) == reference_spans(p))
        le, lp = leaves(e), leaves(p)
        for path in set(le) | set(lp):
            seen[path] += 1
            right[path] += int(le.get(path) == lp.get(path))
    n = len(expected)
    fields = {k: right[k] / seen[k] for k in sorted(seen, key=lambda k: (-seen[k], k))}
    return {"n": n, "exact_match": exact / n if n else 0.0, "kind_accuracy": kinds / n if n else 0.0,
            "reference_span": ref_right / refs if refs else 0.0, "reference_n": refs, "fields": fields,
            "field_counts": dict(seen)}


def format_metrics(name: str, m: dict, top: int = 12) -> str:
    """A few lines: exact match and the most frequent fields' accuracy."""
    head = (f"{name}: exact match {m['exact_match']:.3f}, kind {m['kind_accuracy']:.3f}, reference span "
            f"{m['reference_span']:.3f} (of {m['reference_n']}) on {m['n']} commands")
    lines = [head]
    for path, acc in list(m["fields"].items())[:top]:
        lines.append(f"  {path:<48} {acc:.3f}  (n={m['field_counts'][path]})")
    return "\n".join(lines)
