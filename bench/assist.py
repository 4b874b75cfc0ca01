"""The assistant, measured: the parser (kind, exact match, reference span) on the crowd's test split and
the hand-written set beside the parser before the crowd data, command success by the simulator's
ground truth, the learned judge's scores against it, and the cost per command.

    python bench/assist.py [--parser-only] [--model runs/default/artifact] [--worlds 8] [--calibrate]
                           [--write-threshold] [--out runs/assist]

1. Parser: kind accuracy, exact match of whole dictionaries and reference-object span match on the
   crowd's test split (goals 0.85 and 0.75) and the hand-written test set (goal: exact >= 0.80), with
   the validation and dev splits, held-out generated commands, and today's figures of the parser before
   the crowd data (`mineclip/assist/parser/baseline.json`) beside them.
2. Commands: every hand-written test command that is a command is sent to a fresh world (the
   'play' worlds, cycled; empty inventory); clarifying questions are answered ("yes" / the first
   option). Executable = what it means (its expected dictionary) can be done in that world.
   Success by ground truth, end to end (the expected dictionary's intent, checked on the world
   before and after) and as parsed (the parsed dictionary's intent). Goal: >= 0.80 end to end.
3. Judge: each executed command's frames scored with its own text as the prompt and with two other
   commands' texts, against the ground truth of what the text means on those frames: ranking AUC,
   and the agreement of score > threshold beside always answering the commoner label. It is a
   verdict only if it beats that label (`mineclip.assist.judge.earns_verdict`); otherwise a score.
   The threshold is calibrated (--calibrate) on the hand-written dev commands in other worlds.
4. Cost per command: wall time (parse, run, judge) and world steps.

The logic is `mineclip.assist.benchmark`'s; this script measures and prints.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date
from pathlib import Path

import numpy as np


def parser_section() -> dict:
    from mineclip.assist.benchmark import (
        annotator_agreement,
        goals_met,
        load_baseline,
        measure_parser,
        parser_table,
    )
    from mineclip.assist.crowd import load_crowd
    from mineclip.assist.generate import generate_pairs
    from mineclip.assist.handwritten import load_handwritten
    from mineclip.assist.parser.infer import load_parser, read_parser_info
    from mineclip.assist.parser.train import evaluate_parser, held_out_generated

    parser = load_parser()
    measured = measure_parser(parser)
    s = read_parser_info()["settings"]
    seen = {p["text"].lower().rstrip(".!?") for k in range(s.get("members", 1))  # every member's training pairs
            for p in generate_pairs(s["examples"], seed=s["seed"] + k, oov=s["oov"])}
    measured["generated"] = evaluate_parser(parser, held_out_generated(2000, s["seed"], s["oov"], seen))
    test = load_handwritten("test")
    t = time.perf_counter()
    for p in test:
        parser.parse(p["text"])
    parse_ms = (time.perf_counter() - t) * 1000 / len(test)
    before = load_baseline()
    print(f"parser, {date.today()} (before: the packaged parser of {before['measured']}, generated pairs only):")
    print("\n".join(parser_table(measured, before)))
    agree = annotator_agreement(load_crowd(None))
    print(f"two crowd annotations of the same words agree (the {agree['groups']} commands written more than once): "
          f"kind {agree['kind']:.3f}, exact {agree['exact']:.3f}, reference span {agree['reference_span']:.3f} "
          f"(of {agree['reference_groups']})")
    goals = goals_met(measured)
    print("goals: " + "; ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in goals.items())
          + f"; {parse_ms:.1f} ms per message")
    keep = ("n", "exact_match", "kind_accuracy", "reference_span", "reference_n", "fields")
    return {"sets": {k: {f: v[f] for f in keep} for k, v in measured.items()}, "before": before["sets"],
            "goals": goals, "annotator_agreement": agree, "parse_ms": parse_ms}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parser-only", action="store_true", help="measure the parser only (no worlds, no judge)")
    ap.add_argument("--model", default="runs/default/artifact",
                    help="exported artifact for the judge ('' or a missing folder: no judge, said so)")
    ap.add_argument("--worlds", type=int, default=8, help="'play' worlds the test commands cycle through")
    ap.add_argument("--calibrate", action="store_true", help="calibrate the judge's threshold on the dev commands")
    ap.add_argument("--write-threshold", action="store_true", help="save the calibrated threshold with the artifact (judge.json, section commands)")
    ap.add_argument("--max-steps", type=int, default=600)
    ap.add_argument("--out", default="runs/assist")
    a = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    result: dict = {"date": str(date.today()), "parser": parser_section()}
    rows: list[dict] = []
    if not a.parser_only:
        result.update(command_sections(a, rows))
    result["seconds"] = time.perf_counter() - t0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for r in rows:
        for k in [k for k in r if k.startswith("_")]:
            r.pop(k)
    (out / "bench.json").write_text(json.dumps({**result, "rows": rows}, indent=1, default=str))
    print(f"wrote {out / 'bench.json'} in {result['seconds']:.0f} s")


def command_sections(a: argparse.Namespace, rows: list[dict]) -> dict:
    from mineclip.assist.benchmark import calibrate_command_judge, judge_agreement, judge_pairs, run_commands
    from mineclip.assist.handwritten import load_handwritten
    from mineclip.assist.judge import CommandJudge, earns_verdict, save_calibration
    from mineclip.evaluate.judge import kmeans_threshold, roc_auc
    from mineclip.tasks.world_seeds import world_seeds

    judge = None
    if a.model and Path(a.model, "config.json").is_file():
        judge = CommandJudge.load(a.model)
    else:
        print(f"no artifact at {a.model!r}: the judge is not measured (pass --model ARTIFACT)")
    commands = [p for p in load_handwritten("test") if p["action_dict"]["dialogue_type"] == "HUMAN_GIVE_COMMAND"]
    rows += run_commands(commands, world_seeds("play", a.worlds), judge, a.max_steps)
    execu = [r for r in rows if r["executable"]]
    ran = [r for r in rows if r["ran"]]
    result = {"commands": {"n": len(rows), "executable": len(execu),
                           "success_end_to_end": float(np.mean([r["success"] for r in execu])) if execu else None,
                           "success_when_parsed_right": float(np.mean([r["success"] for r in execu if r["parsed_ok"]]))
                           if any(r["parsed_ok"] for r in execu) else None,
                           "success_as_parsed": float(np.mean([r["success_parsed"] for r in ran])) if ran else None,
                           "ran": len(ran)},
              "cost": {"wall_ms_mean": float(np.mean([r["wall_ms"] for r in ran])),
                       "wall_ms_median": float(np.median([r["wall_ms"] for r in ran])),
                       "steps_mean": float(np.mean([r["steps"] for r in ran])),
                       "judge_ms_mean": float(np.mean([r["judge_ms"] for r in ran]))}}
    c = result["commands"]
    print(f"commands: {c['n']} hand-written commands, {c['executable']} executable in their world; success by "
          f"ground truth {c['success_end_to_end']:.3f} end to end ({c['success_when_parsed_right']:.3f} of those "
          f"parsed right); {c['ran']} carried out, {c['success_as_parsed']:.3f} of them did what the parse said")
    print(f"cost per command: {result['cost']['wall_ms_mean']:.0f} ms mean ({result['cost']['wall_ms_median']:.0f} "
          f"median), {result['cost']['steps_mean']:.0f} world steps, judge {result['cost']['judge_ms_mean']:.0f} ms")
    if judge is None:
        return result
    pairs = judge_pairs(rows, judge)
    threshold, source = judge.threshold, judge.rule
    if a.calibrate:
        threshold, info = calibrate_command_judge(judge, a.worlds, a.max_steps)
        source = f"calibrated on {info['pairs']} dev pairs"
        if a.write_threshold:
            save_calibration(a.model, threshold, info)
    j = {"rule": source, **judge_agreement(pairs, threshold),
         "kmeans": judge_agreement(pairs, kmeans_threshold([p["score"] for p in pairs])),
         "topk_auc": roc_auc([p["topk"] for p in pairs], [p["label"] for p in pairs])}
    j["verdict"] = earns_verdict(j["agreement"], j["majority_agreement"])
    w = judge.rm.window
    for name, part in (("short", [p for p in pairs if p["frames"] < w]), ("long", [p for p in pairs
                                                                               if p["frames"] >= w])):
        j[f"{name}_episodes"] = {"frames": f"< {w}" if name == "short" else f">= {w}",
                                 **judge_agreement(part, threshold)} if part else None
    j["pairs"] = pairs
    result["judge"] = j
    print(f"judge ({source}, threshold {threshold:.3g}) on {j['n']} held-out (frames, text) pairs ({j['positives']} "
          f"true): AUC {j['auc']:.3f}; score > threshold agrees with ground truth {j['agreement']:.3f}, always the "
          f"commoner label {j['majority_agreement']:.3f} -> "
          f"{'a verdict' if j['verdict'] else 'a score beside the ground truth, not a verdict'}; "
          f"{j['own_agreement']:.3f} on the {j['own_n']} executed commands with their own text (commoner label: "
          f"{j['own_majority_agreement']:.3f}); K-means rule: agreement {j['kmeans']['agreement']:.3f}; AUC of the "
          f"best-window score (top-{w}) {j['topk_auc']:.3f}")
    for name in ("short", "long"):
        part = j[f"{name}_episodes"]
        if part:
            print(f"  {name} episodes ({part['frames']} frames): AUC {part['auc']:.3f}, agreement "
                  f"{part['agreement']:.3f} on {part['n']} pairs ({part['positives']} true)")
    return result


if __name__ == "__main__":
    main()
