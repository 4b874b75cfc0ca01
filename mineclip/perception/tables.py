"""MP5's tables from `benchmark.run_benchmark` and `benchmark.run_judges`: Markdown for people
(reliability per condition type, success per level and perceiver, the judge by conditions) and one
JSON object for scripts. What `bench/perception.py` prints."""

from __future__ import annotations

from .benchmark import success_rows
from .context_report import judge_table


def _auc(row: dict) -> str:
    return "-" if row.get("auc") is None else f"{row['auc']:.2f}"


def benchmark_tables(result: dict) -> str:
    """Markdown of a `run_benchmark` result: reliability per condition type (P/R/F1 of yes answers,
    unsure share, AUC per model), then success per level per perceiver with MP5's two failure modes."""
    rel = result["reliability"]
    names = list(rel)
    keys = list(rel[names[0]])
    lines = [(f"Reliability per condition type (held-out worlds, {result['eval_frames']} frames; P/R/F1 of yes "
              "answers, unsure share)"), "",
             "| condition | positives | " + " | ".join(f"{n} P | {n} R | {n} F1 | {n} unsure | {n} AUC" for n in names)
             + " |", "|---|---|" + "---|---|---|---|---|" * len(names)]
    for k in keys:
        cells = " | ".join(f"{rel[n][k]['precision']:.2f} | {rel[n][k]['recall']:.2f} | {rel[n][k]['f1']:.2f} | "
                           f"{rel[n][k]['unsure']:.2f} | {_auc(rel[n][k])}" for n in names)
        lines.append(f"| {k} | {rel[names[0]][k]['positives']} | {cells} |")
    means = [f" | | {sum(rel[n][k]['f1'] for k in keys) / len(keys):.2f} | | " for n in names]
    lines.append("| mean F1 | |" + "|".join(means) + "|")
    lines += share_rows(result.get("by_share") or {})
    succ = result["success"]
    st = result["settings"]
    lines += ["", (f"Success per level ({st['episodes']} episodes per task on held-out worlds, "
                   f"{st.get('agent', 'patroller')}, {st.get('placement', 'scene')} placement; "
                   "success [Wilson 95%] (declared with a false condition / never declared though all held))"), "",
              *success_rows(succ), ""]
    lines.append(f"thresholds: {result['thresholds']}; wall time {result['seconds']['total']:.0f} s")
    return "\n".join(lines)


def share_rows(by_share: dict) -> list[str]:
    """Markdown of `benchmark.answers_by_share` per model (first person; none from above): yes / unsure /
    no in % of the frames that show the thing, by how much of the frame it fills."""
    lines: list[str] = []
    for name, keys in by_share.items():
        bins = sorted({tuple(b["share"]) for rows in keys.values() for b in rows})
        if not bins:
            continue
        lines += ["", (f"{name}: answers about a thing the frame shows, by how much of the frame it fills "
                       "(yes / unsure / no %, frames)"), "",
                  "| condition | " + " | ".join(_share_label(lo, hi) for lo, hi in bins) + " |",
                  "|---|" + "---|" * len(bins)]
        for key, rows in keys.items():
            cell = {tuple(b["share"]): f"{b['yes']:.0%} / {b['unsure']:.0%} / {b['no']:.0%} ({b['frames']})" for b in rows}
            lines.append(f"| {key} | " + " | ".join(cell.get(b, "-") for b in bins) + " |")
    return lines


def _share_label(lo: float, hi: float) -> str:
    return f"under {hi:.1%}" if lo == 0 else f"{lo:.1%} and more" if hi >= 1 else f"{lo:.1%}-{hi:.1%}"


def benchmark_summary(result: dict) -> dict:
    """A `run_benchmark` result for scripts: per-condition F1 per model, per-level success per
    perceiver, the failure modes, and what was measured on what."""
    return {"reliability_f1": {m: {k: round(v["f1"], 4) for k, v in r.items()} for m, r in result["reliability"].items()},
            "reliability": result["reliability"], "by_share": result.get("by_share") or {},
            "success": {p: {lv: round(v["success"], 4) for lv, v in levels.items()} for p, levels in result["success"].items()},
            "intervals": {p: {lv: [round(x, 4) for x in v["interval"]] for lv, v in levels.items()}
                          for p, levels in result["success"].items()},
            "failure_modes": {p: {lv: {"false_done": v["false_done"], "missed": v["missed"], "episodes": v["episodes"],
                                       "tasks": v["tasks"]} for lv, v in levels.items()}
                              for p, levels in result["success"].items()},
            "tasks": result["tasks"], "settings": result["settings"], "thresholds": result["thresholds"],
            "frames": {"fit": result["fit_frames"], "eval": result["eval_frames"]}, "seconds": result["seconds"]}


def tables_markdown(benchmark: dict | None, judges: dict | None) -> str:
    """The tables of whichever of the two was measured (None: not measured)."""
    return "\n\n".join(([benchmark_tables(benchmark)] if benchmark else []) + ([judge_table(judges)] if judges else []))


def tables_json(benchmark: dict | None, judges: dict | None, mode: str) -> dict:
    """One object: `benchmark_summary` (when measured) and, when judged, both judges' F1 per set and
    kind with the reward formula (`mode`) whose mean step reward they scored."""
    out = benchmark_summary(benchmark) if benchmark else {"seconds": {}}
    if judges:
        out["judges"] = {name: {k: e[k] for k in ("by_kind", "abstain", "tasks", "labels")}
                         for name, e in judges["sets"].items()}
        out["seconds"]["judges"] = judges["seconds"]
        out["mode"] = mode
    return out
