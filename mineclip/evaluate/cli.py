"""`mineclip eval` / `python eval.py`: F1 of the success judge on labelled trajectories, per task and model."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter
from pathlib import Path

import torch

from mineclip.allocator import keep_freed_memory
from mineclip.reward import MODES, RewardModel

from .judge import DEFAULT_TOPK
from .report import mean_f1, write_report
from .scoring import Scorer, judge_tasks, score_all
from .trajectories import read_labels

log = logging.getLogger(__name__)
UNTRAINED = "untrained"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mineclip eval",
        description="Judge labelled trajectories with an exported model (score = mean step reward, K-means "
                    "threshold per task, as in the MineDojo paper, plus robust alternatives) and write "
                    "report.md, metrics.json and plots.")
    p.add_argument("--model", required=True, help="artifact directory (from `mineclip export`)")
    p.add_argument("--labels", required=True, help="labelled trajectories, JSON lines (task suite format)")
    p.add_argument("--out", required=True, help="output folder for report.md, metrics.json, *.png")
    p.add_argument("--baseline", action="append", default=[], help="another artifact to compare (repeatable)")
    p.add_argument("--no-untrained", action="store_true",
                   help="skip the untrained baseline (same architecture, random weights, seed --seed)")
    p.add_argument("--mode", choices=MODES, default="direct", help="reward formula the scores average")
    p.add_argument("--topk", type=int, default=DEFAULT_TOPK, help="windows averaged by the top-k score rule")
    p.add_argument("--negatives", default="suite",
                   help="negative prompts: 'suite' (the task suite's other prompts, as in the paper), 'scene' "
                        "(those plus the suite narrator's event-free captions, e.g. 'a cow nearby': what "
                        "`mineclip pipeline` judges with) or a file with one prompt per line")
    p.add_argument("--calibrate", action="store_true",
                   help="fit per-task thresholds on these labels and save them with the model (judge.json)")
    p.add_argument("--shards", default=None, help="held-out shards for retrieval (brace pattern or folder)")
    p.add_argument("--retrieval-max", type=int, default=1000, help="clips used for retrieval at most")
    p.add_argument("--device", default="cpu")
    p.add_argument("--seed", type=int, default=0, help="seed of the untrained baseline's weights")
    p.add_argument("--strict", action="store_true", help="exit non-zero when any line was skipped")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def _model_name(path: str, taken: set) -> str:
    name = Path(path).resolve().name or str(path)
    base, i = name, 2
    while name in taken:
        name, i = f"{base}-{i}", i + 1
    taken.add(name)
    return name


def _negatives(args, labels_prompts: list[str]) -> tuple[callable, str, list[str]]:
    if args.negatives not in ("suite", "scene"):
        path = Path(args.negatives)
        if not path.is_file():
            raise SystemExit(f"mineclip eval: --negatives is neither 'suite', 'scene' nor a file: {args.negatives}")
        pool = [l.strip() for l in path.read_text().splitlines() if l.strip()]
        source = f"negatives from {args.negatives} ({len(pool)} prompts)"
    else:
        try:
            from mineclip.tasks.registry import all_prompts, scene_prompts

            pool = list(dict.fromkeys(all_prompts()))
            source = f"negatives: the task suite's other prompts ({len(pool)} prompts)"
            if args.negatives == "scene":
                scene = scene_prompts()
                pool += scene
                source += f" and the narrator's {len(scene)} event-free captions (--negatives scene)"
        except Exception as e:
            if args.negatives == "scene":
                raise SystemExit(f"mineclip eval: --negatives scene needs the task suite ({e})") from e
            pool = list(dict.fromkeys(labels_prompts))
            source = f"negatives: the other prompts of the labels file ({len(pool)}; task suite unavailable: {e})"
    notes = []
    if len(set(pool) | set(labels_prompts)) < 2:
        raise SystemExit("mineclip eval: need at least two distinct prompts to score against (pass --negatives)")

    def negatives_for(prompt: str) -> list[str]:
        neg = [p for p in pool if p != prompt]
        return neg or [p for p in labels_prompts if p != prompt]

    return negatives_for, source, notes


def retrieval_eval(models: dict[str, RewardModel], shards: str, limit: int, progress: bool) -> dict:
    """R@1/5/10 and median rank both ways on held-out shards (same-caption clips count as matches)."""
    from tqdm import tqdm

    from mineclip.data.pipeline import ClipDataset

    from .retrieval import retrieval_metrics

    first = next(iter(models.values()))
    ds = ClipDataset(shards, batch_size=32, num_frames=first.window, resolution=first.resolution, mode="exact",
                     train=False, shuffle_buffer=0)
    ds.decode.aspect = first.resize  # resize as the reward does
    embs = {name: ([], []) for name in models}
    texts: list[str] = []
    skipped: Counter = Counter()
    with torch.inference_mode(), tqdm(total=limit, desc="retrieval", disable=not progress, unit="clip") as bar:
        for batch in ds:
            video, tokens = batch["video"], batch["tokens"]
            skipped.update(batch.get("skipped") or {})
            if len(texts) + len(video) > limit:
                k = limit - len(texts)
                video, tokens, batch["text"] = video[:k], tokens[:k], batch["text"][:k]
            for name, rm in models.items():
                v, t = rm.model.embed_pair(rm.model.encode_video(video.to(rm.device)),
                                           rm.model.encode_text(tokens.to(rm.device)))
                embs[name][0].append(v.cpu())
                embs[name][1].append(t.cpu())
            texts += batch["text"]
            bar.update(len(video))
            if len(texts) >= limit:
                break
    skipped.update(ds.counter.delta())
    if not texts:
        msg = f"no readable {first.window}-frame clips in the shards (skipped: {dict(skipped) or 'none'})"
        return {name: {"error": msg} for name in models}
    ids = {t: i for i, t in enumerate(dict.fromkeys(texts))}
    groups = torch.tensor([ids[t] for t in texts])
    out = {}
    for name, (v, t) in embs.items():
        out[name] = {**retrieval_metrics(torch.cat(v), torch.cat(t), groups=groups), "n": len(texts),
                     "distinct_captions": len(ids),
                     "skipped": dict(skipped)}
    return out


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    keep_freed_memory()
    t0 = time.time()
    out = Path(args.out)
    progress = not args.quiet

    labels_path = Path(args.labels)
    if not labels_path.is_file():
        print(f"mineclip eval: labels file not found: {labels_path}", file=sys.stderr)
        return 1
    trajectories, problems, lines = read_labels(labels_path)

    from mineclip.export.artifact import ArtifactError, read_judge

    taken: set = set()
    models: dict[str, RewardModel] = {}
    try:
        main_name = _model_name(args.model, taken)
        models[main_name] = RewardModel.load(args.model, device=args.device)
        if not args.no_untrained:
            main = models[main_name]
            torch.manual_seed(args.seed)
            from mineclip.model import MineCLIP, ModelConfig

            untrained = MineCLIP(ModelConfig.from_dict(main.model.config.to_dict())).eval()
            models[f"{UNTRAINED} ({main.model.config.temporal.pooling})"] = RewardModel(
                untrained, window=main.window, frame_stride=main.frame_stride, resize=main.resize, device=args.device)
        for b in args.baseline:
            models[_model_name(b, taken)] = RewardModel.load(b, device=args.device)
    except (ArtifactError, FileNotFoundError, OSError) as e:
        print(f"mineclip eval: {e}", file=sys.stderr)
        return 1

    prompts = list(dict.fromkeys(t.prompt for t in trajectories))
    negatives_for, negatives_source, notes = _negatives(args, prompts)
    scorer = Scorer(models, negatives_for, mode=args.mode, topk=args.topk)
    scores, more_problems = score_all(scorer, trajectories, progress)
    problems = sorted(problems + more_problems, key=lambda p: p.line)
    for p in problems:
        print(f"skipped {p}", file=sys.stderr)

    calibrated = read_judge(args.model)
    judged = {}
    for name, items in scores.items():
        judged[name] = judge_tasks(items, calibrated if name == main_name else None)
    if args.calibrate and judged.get(main_name):
        from mineclip.export.artifact import write_judge

        cal = {"labels": str(labels_path.resolve()), "mode": args.mode, "topk": args.topk,
               "window": models[main_name].window, "frame_stride": models[main_name].frame_stride,
               "tasks": {task: {rule: e["rules"][rule]["fit_threshold"] for rule in e["rules"]}
                         | {"n": e["n"], "prompt": e["prompt"]} for task, e in judged[main_name].items()}}
        write_judge(args.model, cal)
        notes.append(f"calibrated thresholds for {len(cal['tasks'])} task(s) saved to {Path(args.model) / 'judge.json'}"
                     " (fitted on these labels: judge other labels with them)")

    retrieval = None
    if args.shards:
        try:
            retrieval = retrieval_eval(models, args.shards, args.retrieval_max, progress)
        except Exception as e:  # retrieval is optional: report, do not lose the judge results
            retrieval = {name: {"error": str(e)} for name in models}
            notes.append(f"retrieval failed: {e}")

    judged_ids = {ts.traj.line for items in scores.values() for ts in items}
    by_kind = Counter(p.kind for p in problems)
    counts = {"lines": lines, "judged": len(judged_ids), "skipped": len(problems), "by_kind": dict(by_kind)}
    main_rm = models[main_name]
    settings = {"model": str(Path(args.model).resolve()), "labels": str(labels_path.resolve()), "mode": args.mode,
                "window": main_rm.window, "frame_stride": main_rm.frame_stride, "first_steps": "repeat", "topk": args.topk,
                "negatives": args.negatives, "negatives_source": negatives_source, "models": list(models),
                "score": "mean of step rewards (frames 1..T-1)", "threshold": "mean of 2 K-means centroids per task"}
    if calibrated and not args.calibrate:
        notes.append(f"calibrated thresholds read from {Path(args.model) / 'judge.json'} (fitted on {calibrated.get('labels')})")
    write_report(out, main_model=main_name, models=judged, scores=scores, problems=problems, counts=counts,
                 settings=settings, retrieval=retrieval, notes=notes)

    print(f"judged {counts['judged']} of {lines} trajectories ({counts['skipped']} skipped"
          + (f": {', '.join(f'{k} {v}' for k, v in by_kind.items())}" if by_kind else "") + f") in {time.time() - t0:.1f}s")
    for name, tasks in judged.items():
        f = mean_f1(tasks)
        print(f"  {name}: mean F1 {'-' if f is None else f'{100 * f:.1f}'} over {len(tasks)} task(s)")
    print(f"report: {out / 'report.md'}")
    if counts["judged"] == 0:
        print("mineclip eval: no trajectory could be judged", file=sys.stderr)
        return 1
    return 1 if (args.strict and problems) else 0


if __name__ == "__main__":
    sys.exit(main())
