"""The assistant, measured: the parser's exact match, command success by the simulator's ground
truth, the learned judge's agreement with it, and the cost per command.

    python bench/assist.py [--model runs/default/artifact] [--worlds 8] [--calibrate]
                           [--write-threshold] [--out runs/assist]

1. Parser: exact match of whole dictionaries and per-field accuracy on the hand-written test set
   (never trained on; goal >= 0.80), its dev split, and held-out generated commands.
2. Commands: every hand-written test command that is a command is sent to a fresh world (the
   'play' worlds, cycled; empty inventory); clarifying questions are answered ("yes" / the first
   option). Executable = what it means (its expected dictionary) can be done in that world.
   Success by ground truth, end to end (the expected dictionary's intent, checked on the world
   before and after) and as parsed (the parsed dictionary's intent). Goal: >= 0.80 end to end.
3. Judge: the verdict on each executed command's frames with its own text as the prompt, and on
   another command's frames (swapped texts: negatives), against the ground truth of what the text
   means on those frames. The threshold is calibrated (--calibrate) on the hand-written dev
   commands in other worlds (F1-best threshold, `mineclip.evaluate.judge.calibrate_threshold`);
   the paper's K-means rule over the test scores is reported beside.
4. Cost per command: wall time (parse, run, judge) and world steps.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np


def parser_metrics() -> dict:
    from mineclip.assist.generate import generate_pairs
    from mineclip.assist.handwritten import load_handwritten
    from mineclip.assist.parser.infer import load_parser, read_parser_info
    from mineclip.assist.parser.train import evaluate_parser, held_out_generated

    parser = load_parser()
    s = read_parser_info()["settings"]
    seen = {p["text"].lower().rstrip(".!?") for p in generate_pairs(s["examples"], seed=s["seed"], oov=s["oov"])}
    generated = held_out_generated(2000, s["seed"], s["oov"], seen)
    test = load_handwritten("test")
    t = time.perf_counter()
    for p in test:
        parser.parse(p["text"])
    parse_ms = (time.perf_counter() - t) * 1000 / len(test)
    return {"handwritten_test": evaluate_parser(parser, test), "handwritten_dev": evaluate_parser(parser, load_handwritten("dev")),
            "generated": evaluate_parser(parser, generated), "parse_ms": parse_ms}


def _answer(session, out: dict) -> dict:
    for _ in range(2):
        if not out.get("clarification"):
            break
        out = session.send("yes" if "explore" in out["clarification"] else "either one")
    return out


def run_commands(pairs: list[dict], seeds: list[int], judge, max_steps: int) -> list[dict]:
    """Send each command to a fresh world; what happened, by ground truth, and the frames' features."""
    from tqdm import tqdm

    from mineclip.assist.intent import Clarify, Intent, interpret
    from mineclip.assist.outcome import ground_truth
    from mineclip.assist.session import AssistSession

    rows = []
    for i, p in enumerate(tqdm(pairs, desc="commands")):
        seed = seeds[i % len(seeds)]
        s = AssistSession(seed, judge, max_steps=max_steps)
        expected = interpret(p["action_dict"], p["words"], s.ex)
        if isinstance(expected, Clarify):  # answered as the bench answers the session's questions
            expected = (expected.intent if not expected.options else
                        _choose(expected))
        t = time.perf_counter()
        out = _answer(s, s.send(p["text"]))
        wall = (time.perf_counter() - t) * 1000
        cmd = s.done[-1] if s.done else None
        row = {"id": p["id"], "text": p["text"], "world_seed": seed, "executable": isinstance(expected, Intent),
               "parsed_ok": out["action_dict"] == p["action_dict"], "ran": cmd is not None,
               "success_parsed": bool(cmd and cmd.result["success"]), "steps": out["steps"], "wall_ms": wall,
               "parse_ms": out["cost"]["parse_ms"], "judge_ms": out["cost"].get("judge_ms", 0.0),
               "reply": out["reply"]}
        row["success"] = bool(cmd and isinstance(expected, Intent) and ground_truth(expected, cmd.before, cmd.after)[0])
        if cmd is not None and cmd.after.frame > cmd.before.frame and judge is not None:
            frames = s.ex.frames_between(cmd.before.frame, cmd.after.frame)
            row["_feats"] = judge.rm.frame_features(frames)
            row["_snaps"] = (cmd.before, cmd.after)
            row["_expected"] = expected if isinstance(expected, Intent) else None
            row["judge"] = cmd.result["judge"]
        rows.append(row)
        s.close()
    return rows


def _choose(c):
    from dataclasses import replace

    label = next(iter(c.options))
    return replace(c.intent, **{c.slot: replace(getattr(c.intent, c.slot), pos=c.options[label])})


def judge_pairs(rows: list[dict], judge, swaps: int = 2, seed: int = 0) -> list[dict]:
    """(score, ground truth) for each executed command's frames with its own text and `swaps` others."""
    from mineclip.assist.judge import intent_atoms, negatives_for_command
    from mineclip.assist.outcome import ground_truth
    from mineclip.evaluate.judge import trajectory_score

    done = [r for r in rows if "_feats" in r and r["_expected"] is not None]
    rng = random.Random(seed)
    out = []
    for r in done:
        others = rng.sample([o for o in done if o["text"] != r["text"]], k=min(swaps, len(done) - 1))
        for o, own in [(r, True)] + [(o, False) for o in others]:
            intent = o["_expected"]
            label = ground_truth(intent, *r["_snaps"])[0]
            fn = judge.rm.reward_fn(o["text"], negatives_for_command(o["text"], intent_atoms(intent)), mode="direct")
            rewards = fn.trajectory_from_features(r["_feats"]).step_rewards
            out.append({"frames_of": r["id"], "frames": len(r["_feats"]), "text": o["text"], "own": own,
                        "score": float(rewards.mean()),
                        "topk": trajectory_score(rewards, "topk", judge.rm.window), "label": int(label)})
    return out


def agreement(pairs: list[dict], threshold: float) -> dict:
    from mineclip.evaluate.judge import binary_metrics, classify, roc_auc

    scores = [p["score"] for p in pairs]
    labels = [p["label"] for p in pairs]
    m = binary_metrics(labels, classify(scores, threshold))
    own = [p for p in pairs if p["own"]]
    own_m = binary_metrics([p["label"] for p in own], classify([p["score"] for p in own], threshold))
    own_labels = [p["label"] for p in own]
    return {"threshold": threshold, "agreement": m["accuracy"], "f1": m["f1"], "auc": roc_auc(scores, labels),
            "n": len(pairs), "positives": sum(labels), "own_agreement": own_m["accuracy"], "own_n": len(own),
            # what always answering the commoner label would agree (the bar a verdict has to clear)
            "majority_agreement": max(sum(labels), len(labels) - sum(labels)) / max(1, len(labels)),
            "own_majority_agreement": max(sum(own_labels), len(own_labels) - sum(own_labels)) / max(1, len(own))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="runs/default/artifact",
                    help="exported artifact for the judge ('' or a missing folder: no judge, said so)")
    ap.add_argument("--worlds", type=int, default=8, help="'play' worlds the test commands cycle through")
    ap.add_argument("--calibrate", action="store_true", help="calibrate the judge's threshold on the dev commands")
    ap.add_argument("--write-threshold", action="store_true", help="save the calibrated threshold with the artifact (judge.json, section commands)")
    ap.add_argument("--max-steps", type=int, default=600)
    ap.add_argument("--out", default="runs/assist")
    a = ap.parse_args()

    import torch

    from mineclip.assist.handwritten import load_handwritten
    from mineclip.assist.judge import CommandJudge, save_calibration
    from mineclip.evaluate.judge import calibrate_threshold, kmeans_threshold
    from mineclip.tasks.world_seeds import world_seeds

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    pm = parser_metrics()
    print(f"parser exact match: hand-written test {pm['handwritten_test']['exact_match']:.3f} "
          f"(n={pm['handwritten_test']['n']}), dev {pm['handwritten_dev']['exact_match']:.3f} "
          f"(n={pm['handwritten_dev']['n']}), generated {pm['generated']['exact_match']:.3f} "
          f"(n={pm['generated']['n']}); {pm['parse_ms']:.1f} ms per message")
    judge = None
    if a.model and Path(a.model, "config.json").is_file():
        judge = CommandJudge.load(a.model)
    else:
        print(f"no artifact at {a.model!r}: the judge is not measured (pass --model ARTIFACT)")
    commands = [p for p in load_handwritten("test") if p["action_dict"]["dialogue_type"] == "HUMAN_GIVE_COMMAND"]
    rows = run_commands(commands, world_seeds("play", a.worlds), judge, a.max_steps)
    execu = [r for r in rows if r["executable"]]
    ran = [r for r in rows if r["ran"]]
    result = {"parser": {k: (v if k == "parse_ms" else {"exact_match": v["exact_match"], "n": v["n"],
                                                           "fields": v["fields"]}) for k, v in pm.items()},
              "commands": {"n": len(rows), "executable": len(execu),
                           "success_end_to_end": float(np.mean([r["success"] for r in execu])) if execu else None,
                           "success_when_parsed_right": float(np.mean([r["success"] for r in execu if r["parsed_ok"]]))
                           if any(r["parsed_ok"] for r in execu) else None,
                           "success_as_parsed": float(np.mean([r["success_parsed"] for r in ran])) if ran else None,
                           "ran": len(ran)},
              "cost": {"wall_ms_mean": float(np.mean([r["wall_ms"] for r in ran])),
                       "wall_ms_median": float(np.median([r["wall_ms"] for r in ran])),
                       "steps_mean": float(np.mean([r["steps"] for r in ran])),
                       "judge_ms_mean": float(np.mean([r["judge_ms"] for r in ran])),
                       "parse_ms": pm["parse_ms"]}}
    c = result["commands"]
    print(f"commands: {c['n']} hand-written commands, {c['executable']} executable in their world; success by "
          f"ground truth {c['success_end_to_end']:.3f} end to end ({c['success_when_parsed_right']:.3f} of those "
          f"parsed right); {c['ran']} carried out, {c['success_as_parsed']:.3f} of them did what the parse said")
    print(f"cost per command: {result['cost']['wall_ms_mean']:.0f} ms mean ({result['cost']['wall_ms_median']:.0f} "
          f"median), {result['cost']['steps_mean']:.0f} world steps, judge {result['cost']['judge_ms_mean']:.0f} ms")
    if judge is not None:
        pairs = judge_pairs(rows, judge)
        threshold, source = judge.threshold, judge.rule
        if a.calibrate:
            dev = [p for p in load_handwritten("dev") if p["action_dict"]["dialogue_type"] == "HUMAN_GIVE_COMMAND"]
            cal_rows = run_commands(dev, world_seeds("play", a.worlds, offset=100), judge, a.max_steps)
            cal = judge_pairs(cal_rows, judge, seed=1)
            threshold = calibrate_threshold([p["score"] for p in cal], [p["label"] for p in cal])
            source = f"calibrated on {len(cal)} dev pairs"
            if a.write_threshold:
                save_calibration(a.model, threshold,
                                 {"pairs": len(cal), "source": "bench/assist.py --calibrate (hand-written dev commands)"})
        from mineclip.evaluate.judge import roc_auc

        result["judge"] = {"rule": source, **agreement(pairs, threshold),
                           "kmeans": agreement(pairs, kmeans_threshold([p["score"] for p in pairs])),
                           "topk_auc": roc_auc([p["topk"] for p in pairs], [p["label"] for p in pairs])}
        w = judge.rm.window
        for name, part in (("short", [p for p in pairs if p["frames"] < w]), ("long", [p for p in pairs
                                                                                   if p["frames"] >= w])):
            result["judge"][f"{name}_episodes"] = {"frames": f"< {w}" if name == "short" else f">= {w}",
                                                   **agreement(part, threshold)} if part else None
        result["judge"]["pairs"] = pairs
        j = result["judge"]
        print(f"judge ({source}, threshold {threshold:.3g}): agreement with ground truth {j['agreement']:.3f} on "
              f"{j['n']} (frames, text) pairs ({j['positives']} true; always the commoner label: "
              f"{j['majority_agreement']:.3f}), {j['own_agreement']:.3f} on the {j['own_n']} executed commands with "
              f"their own text (commoner label: {j['own_majority_agreement']:.3f}); AUC {j['auc']:.3f}; K-means "
              f"rule: agreement {j['kmeans']['agreement']:.3f}; AUC of the best-window score (top-{w}) "
              f"{j['topk_auc']:.3f}")
        for name in ("short", "long"):
            part = j[f"{name}_episodes"]
            if part:
                print(f"  {name} episodes ({part['frames']} frames): AUC {part['auc']:.3f}, agreement "
                      f"{part['agreement']:.3f} on {part['n']} pairs ({part['positives']} true)")
    result["seconds"] = time.perf_counter() - t0
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for r in rows:
        for k in [k for k in r if k.startswith("_")]:
            r.pop(k)
    (out / "bench.json").write_text(json.dumps({**result, "rows": rows}, indent=1, default=str))
    print(f"wrote {out / 'bench.json'} in {result['seconds']:.0f} s")


if __name__ == "__main__":
    main()
