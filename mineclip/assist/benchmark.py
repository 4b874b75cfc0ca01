"""What `bench/assist.py` measures, as library functions: the parser on the crowd's test split and the
hand-written set beside the figures of the parser before the crowd data, commands carried out in
fresh worlds by the simulator's ground truth, and the learned judge's scores against that ground
truth beside always answering the commoner label (the bar for calling its decisions verdicts).
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import replace
from importlib import resources

# the goals of issue 61 (crowd test split) and of the hand-written set
PARSER_GOALS = {"crowd_test": {"kind_accuracy": 0.85, "reference_span": 0.75},
                "handwritten_test": {"exact_match": 0.80}}
PARSER_SETS = ("crowd_test", "handwritten_test", "crowd_validation", "handwritten_dev")
FIGURES = ("kind_accuracy", "exact_match", "reference_span")


def evaluation_sets(names: tuple[str, ...] = PARSER_SETS) -> dict[str, list[dict]]:
    """The parser's evaluation sets by name: crowd_{test,validation}, handwritten_{test,dev}."""
    from .crowd import load_crowd
    from .handwritten import load_handwritten

    out = {}
    for name in names:
        source, split = name.split("_", 1)
        out[name] = load_crowd(split) if source == "crowd" else load_handwritten(split)
    return out


def measure_parser(parser, sets: dict[str, list[dict]] | None = None) -> dict[str, dict]:
    """Kind accuracy, exact match, reference span and per-field accuracy of a parser on each set."""
    from .parser.train import evaluate_parser

    return {name: evaluate_parser(parser, pairs) for name, pairs in (sets or evaluation_sets()).items()}


def load_baseline() -> dict:
    """The figures of the packaged parser before the crowd data (`parser/baseline.json`)."""
    return json.loads(resources.files("mineclip.assist.parser").joinpath("baseline.json").read_text())


def annotator_agreement(pairs: list[dict]) -> dict:
    """How often two crowd annotations of the same words agree (the commands written, and so annotated,
    more than once): kind, whole dictionary, reference spans; the ceiling a parser is measured under."""
    from .parser.metrics import kind_of, reference_spans

    groups: dict[str, list[dict]] = {}
    for p in pairs:
        groups.setdefault(" ".join(p["words"]), []).append(p["action_dict"])
    multi = [g for g in groups.values() if len(g) > 1]
    with_refs = [g for g in multi if reference_spans(g[0])]
    same = lambda g, f: len({repr(f(d)) for d in g}) == 1
    return {"groups": len(multi), "kind": sum(same(g, kind_of) for g in multi) / max(1, len(multi)),
            "exact": sum(same(g, lambda d: d) for g in multi) / max(1, len(multi)),
            "reference_span": sum(same(g, reference_spans) for g in with_refs) / max(1, len(with_refs)),
            "reference_groups": len(with_refs)}


def goals_met(measured: dict[str, dict]) -> dict[str, bool]:
    """{"set: figure >= goal": met} for the goals whose set was measured."""
    return {f"{name}: {fig} >= {goal}": measured[name][fig] >= goal
            for name, goals in PARSER_GOALS.items() if name in measured for fig, goal in goals.items()}


def parser_table(measured: dict[str, dict], before: dict | None = None) -> list[str]:
    """Lines of a table: each set's figures now, beside the parser before the crowd data."""
    before = (before or load_baseline())["sets"]
    lines = [f"{'set':<18} {'n':>5}  " + "  ".join(f"{f:<28}" for f in FIGURES),
             f"{'':<18} {'':>5}  " + "  ".join(f"{'before -> now':<28}" for _ in FIGURES)]
    for name, m in measured.items():
        cells = []
        for fig in FIGURES:
            old = before.get(name, {}).get(fig)
            goal = PARSER_GOALS.get(name, {}).get(fig)
            cell = (f"{old:.3f}" if old is not None else "  -  ") + f" -> {m[fig]:.3f}"
            cells.append(cell + (f" (goal {goal})" if goal else ""))
        lines.append(f"{name:<18} {m['n']:>5}  " + "  ".join(f"{c:<28}" for c in cells))
    return lines


# -- commands in fresh worlds ---------------------------------------------------------------------------
def _answer(session, out: dict) -> dict:
    """Answer the session's clarifying questions as the benchmark does ('yes' to explore, else either one)."""
    for _ in range(2):
        if not out.get("clarification"):
            break
        out = session.send("yes" if "explore" in out["clarification"] else "either one")
    return out


def _choose(c):
    label = next(iter(c.options))
    return replace(c.intent, **{c.slot: replace(getattr(c.intent, c.slot), pos=c.options[label])})


def run_commands(pairs: list[dict], seeds: list[int], judge, max_steps: int, progress: bool = True) -> list[dict]:
    """Send each command to a fresh world (`seeds` cycled); what happened, by ground truth, and the
    frames' features for the judge."""
    from tqdm import tqdm

    from .intent import Clarify, Intent, interpret
    from .outcome import ground_truth
    from .session import AssistSession

    rows = []
    for i, p in enumerate(tqdm(pairs, desc="commands", disable=not progress)):
        seed = seeds[i % len(seeds)]
        s = AssistSession(seed, judge, max_steps=max_steps)
        expected = interpret(p["action_dict"], p["words"], s.ex)
        if isinstance(expected, Clarify):  # answered as the benchmark answers the session's questions
            expected = expected.intent if not expected.options else _choose(expected)
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


# -- the judge against the ground truth --------------------------------------------------------------------
def judge_pairs(rows: list[dict], judge, swaps: int = 2, seed: int = 0) -> list[dict]:
    """(score, ground truth) for each executed command's frames with its own text and `swaps` others."""
    from mineclip.evaluate.judge import trajectory_score

    from .judge import intent_atoms, negatives_for_command
    from .outcome import ground_truth

    done = [r for r in rows if "_feats" in r and r["_expected"] is not None]
    rng = random.Random(seed)
    out = []
    for r in done:
        others = rng.sample([o for o in done if o["text"] != r["text"]], k=min(swaps, len(done) - 1))
        for o, own in [(r, True)] + [(o, False) for o in others]:
            intent = o["_expected"]
            label = ground_truth(intent, *r["_snaps"])[0]
            fn = judge.rm.reward_fn(o["text"], negatives_for_command(o["text"], intent_atoms(intent)), mode=judge.mode)
            rewards = fn.trajectory_from_features(r["_feats"]).step_rewards
            out.append({"frames_of": r["id"], "frames": len(r["_feats"]), "text": o["text"], "own": own,
                        "score": float(rewards.mean()),
                        "topk": trajectory_score(rewards, "topk", judge.rm.window), "label": int(label)})
    return out


def judge_agreement(pairs: list[dict], threshold: float) -> dict:
    """The judge's scores against the ground truth: ranking AUC, agreement of `score > threshold`, and
    what always answering the commoner label would agree (on every pair, and on each command's own text)."""
    from mineclip.evaluate.judge import binary_metrics, classify, roc_auc

    scores = [p["score"] for p in pairs]
    labels = [p["label"] for p in pairs]
    m = binary_metrics(labels, classify(scores, threshold))
    own = [p for p in pairs if p["own"]]
    own_labels = [p["label"] for p in own]
    own_m = binary_metrics(own_labels, classify([p["score"] for p in own], threshold))
    return {"threshold": threshold, "agreement": m["accuracy"], "f1": m["f1"], "auc": roc_auc(scores, labels),
            "n": len(pairs), "positives": sum(labels), "own_agreement": own_m["accuracy"], "own_n": len(own),
            "majority_agreement": max(sum(labels), len(labels) - sum(labels)) / max(1, len(labels)),
            "own_majority_agreement": max(sum(own_labels), len(own_labels) - sum(own_labels)) / max(1, len(own))}


# -- calibrating the judge's threshold into the artifact --------------------------------------------------
def calibrate_command_judge(judge, worlds: int = 8, max_steps: int = 600, progress: bool = True
                            ) -> tuple[float, dict]:
    """The F1-best threshold of the judge's score for free-form commands, fitted on the hand-written dev
    commands carried out in `worlds` 'play' worlds that the test commands do not use (offset 100),
    and what it was fitted on."""
    from mineclip.evaluate.thresholds import calibrate_threshold
    from mineclip.tasks.world_seeds import world_seeds

    from .handwritten import load_handwritten

    dev = [p for p in load_handwritten("dev") if p["action_dict"]["dialogue_type"] == "HUMAN_GIVE_COMMAND"]
    rows = run_commands(dev, world_seeds("play", worlds, offset=100), judge, max_steps, progress)
    pairs = judge_pairs(rows, judge, seed=1)
    if not pairs:
        raise ValueError("no dev command was carried out: nothing to calibrate the judge on")
    threshold = calibrate_threshold([p["score"] for p in pairs], [p["label"] for p in pairs])
    return threshold, {"pairs": len(pairs), "worlds": worlds, "mode": judge.mode, "source": "hand-written dev commands"}


def calibrate_into_artifact(artifact, worlds: int = 8, max_steps: int = 600, progress: bool = True
                            ) -> tuple[float, dict]:
    """Calibrate the judge of `artifact` (`calibrate_command_judge`) and save the threshold with it
    (judge.json, section `commands`; `mineclip assist calibrate`)."""
    from .judge import CommandJudge, save_calibration

    threshold, info = calibrate_command_judge(CommandJudge.load(artifact), worlds, max_steps, progress)
    save_calibration(artifact, threshold, info)
    return threshold, info
