"""`mineclip tasks list|show|record|evalset|clips|difficulty|import-minedojo`."""

from __future__ import annotations

import argparse
import json
import sys


def _task_ids(spec: str | None, category: str | None = None) -> list[str]:
    from .registry import get_task, list_tasks

    if spec and spec != "all":
        ids = [t.strip() for t in spec.split(",") if t.strip()]
        for t in ids:
            get_task(t)
        return ids
    return [t.id for t in list_tasks(category=category)]


def _cmd_list(a) -> int:
    from .difficulty import load_scores
    from .registry import list_tasks

    scores = load_scores()
    tasks = list_tasks(category=a.category, kind=a.kind, tag=a.tag, simulator=None if a.all else "crafter")
    rows = []
    for t in tasks:
        s = scores.get(t.id, {})
        overall = s.get("overall")
        if a.min_difficulty is not None and (overall is None or overall < a.min_difficulty):
            continue
        if a.max_difficulty is not None and (overall is None or overall > a.max_difficulty):
            continue
        rows.append((t, s))
    if a.json:
        print(json.dumps([{"id": t.id, "prompt": t.prompt, "category": t.category, "kind": t.kind,
                           "tags": t.tags, "difficulty": s} for t, s in rows], indent=1))
        return 0
    fmt = "{:<30} {:<9} {:<12} {:>5} {:>6} {:>5} {:>5}  {}"
    print(fmt.format("id", "category", "kind", "time", "effort", "plan", "all", "prompt"))
    for t, s in rows:
        f = lambda k: f"{s[k]:.1f}" if k in s else "-"  # noqa: E731
        print(fmt.format(t.id, t.category, t.kind, f("time"), f("effort"), f("planning"), f("overall"), t.prompt))
    print(f"{len(rows)} tasks" + ("" if scores else " (no difficulty cache: run `mineclip tasks difficulty`)"))
    return 0


def _cmd_show(a) -> int:
    import yaml

    from .difficulty import load_scores
    from .registry import get_task

    t = get_task(a.task_id)
    d = t.to_dict()
    d["labeller"] = t.labeller
    if t.id in load_scores():
        d["difficulty"] = load_scores()[t.id]
    print(yaml.safe_dump(d, sort_keys=False, width=100))
    return 0


def _cmd_record(a) -> int:
    from .record import make_jobs, read_jsonl, record

    jobs = make_jobs(_task_ids(a.tasks, a.category), a.agents.split(","), a.episodes, split=a.split,
                     noise=a.noise, seed_offset=a.seed_offset, worlds=a.worlds)
    path = record(jobs, a.out, workers=a.workers)
    recs = read_jsonl(path)[-len(jobs):]
    ok = sum(r["label"] for r in recs)
    print(f"wrote {len(recs)} trajectories ({ok} successes) to {path}")
    return 0


def _cmd_evalset(a) -> int:
    from .record import evalset

    path, counts = evalset(_task_ids(a.tasks, a.category), a.per_label, a.out, workers=a.workers,
                           max_attempts=a.max_attempts, **({} if a.tail is None else {"tail": a.tail}))
    short = {t: c for t, c in counts.items() if min(c) < a.per_label}
    print(f"wrote {sum(sum(c) for c in counts.values())} labelled trajectories for {len(counts)} tasks to {path}")
    for t, (s, f) in sorted(short.items()):
        print(f"  {t}: only {s} successes / {f} failures", file=sys.stderr)
    return 0


def _task_weight(text: str) -> tuple[str, float]:
    name, _, value = text.partition("=")
    try:
        return name.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected TASK_OR_KIND=WEIGHT, e.g. creative=2, got {text!r}") from None


def _cmd_clips(a) -> int:
    from .clips import make_clips

    out = make_clips(a.out, num_clips=a.num_clips, workers=a.workers, clip_len=a.clip_len, stride=a.stride,
                     episode_len=a.episode_len, misalign=a.misalign, filler=a.filler,
                     task_ids=_task_ids(a.tasks, a.category) if (a.tasks or a.category) else None,
                     seed=a.seed, encoding=a.encoding, idle_keep=a.idle_keep, worlds=a.worlds,
                     task_weights=dict(a.task_weight) or None)
    print(f"wrote {out['clips']} clips to {out['out_dir']}")
    return 0 if out["clips"] else 1


def _cmd_difficulty(a) -> int:
    from .difficulty import recompute

    scores = recompute(episodes=a.episodes)
    print(f"difficulty scores for {len(scores)} tasks cached")
    return 0


def _cmd_import(a) -> int:
    from .minedojo import import_minedojo, write_suite

    tasks = import_minedojo(a.path)
    out = write_suite(tasks, a.out)
    kinds = {k: sum(t.kind == k for t in tasks.values()) for k in ("programmatic", "creative")}
    print(f"imported {len(tasks)} MineDojo tasks ({kinds['programmatic']} programmatic, {kinds['creative']} creative) "
          f"to {out}; add it to $MINECLIP_TASKS_PATH to register them")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mineclip tasks", description="The crafter task suite.")
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("list", help="table of tasks with category and difficulty")
    s.add_argument("--category")
    s.add_argument("--kind", choices=["programmatic", "creative"])
    s.add_argument("--tag")
    s.add_argument("--min-difficulty", type=float)
    s.add_argument("--max-difficulty", type=float)
    s.add_argument("--all", action="store_true", help="include imported (non-crafter) tasks")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=_cmd_list)

    s = sub.add_parser("show", help="one task's full specification")
    s.add_argument("task_id")
    s.set_defaults(fn=_cmd_show)

    def common(s, out_default):
        s.add_argument("--tasks", help="comma-separated ids or 'all' (default: all)")
        s.add_argument("--category")
        s.add_argument("--out", default=out_default)
        s.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")

    s = sub.add_parser("record", help="run agents and write trajectories (mp4 + JSON lines)")
    common(s, "data/trajectories")
    s.add_argument("--agents", default="scripted", help="comma-separated: scripted,noisy,near_miss,wrong_target,random")
    s.add_argument("--episodes", type=int, default=4, help="per task and agent")
    s.add_argument("--split", default="train", choices=["train", "eval"])
    s.add_argument("--noise", type=float, default=0.3, help="noise of the 'noisy' agent")
    s.add_argument("--worlds", type=int, default=16)
    s.add_argument("--seed-offset", type=int, default=0)
    s.set_defaults(fn=_cmd_record)

    s = sub.add_parser("evalset", help="N successes + N failures per task on held-out worlds")
    common(s, "data/evalset")
    s.add_argument("--per-label", type=int, default=20)
    s.add_argument("--max-attempts", type=int, default=None)
    s.add_argument("--tail", type=int, default=None,
                   help="steps recorded after success: at least the judge's reward window (default 16, the "
                        "paper's; 8 is enough for the tiny model)")
    s.set_defaults(fn=_cmd_evalset)

    s = sub.add_parser("clips", help="narrated (16-frame clip, text) training shards")
    common(s, "data/crafter_clips")
    s.add_argument("--num-clips", type=int, default=8000)
    s.add_argument("--clip-len", type=int, default=16)
    s.add_argument("--stride", type=int, default=4)
    s.add_argument("--episode-len", type=int, default=48)
    s.add_argument("--misalign", type=float, default=0.2, help="chance a caption describes a neighbouring window")
    s.add_argument("--filler", type=float, default=0.3, help="amount of filler words and chatter")
    s.add_argument("--idle-keep", type=float, default=0.25,
                   help="chance of keeping a window in which nothing happens (0..1)")
    s.add_argument("--worlds", type=int, default=64, help="number of distinct training worlds")
    s.add_argument("--task-weight", action="append", default=[], type=_task_weight, metavar="TASK_OR_KIND=W",
                   help="play a task (or every task of a kind) W times as often, e.g. creative=2 (repeatable)")
    s.add_argument("--encoding", default="mp4", choices=["mp4", "raw"])
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(fn=_cmd_clips)

    s = sub.add_parser("difficulty", help="recompute the cached MCU difficulty scores")
    s.add_argument("--episodes", type=int, default=4)
    s.set_defaults(fn=_cmd_difficulty)

    s = sub.add_parser("import-minedojo", help="MineDojo description YAMLs -> a suite file")
    s.add_argument("path", help="minedojo/tasks/description_files (or one of its YAML files)")
    s.add_argument("--out", default="data/minedojo_tasks.yaml")
    s.set_defaults(fn=_cmd_import)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except (KeyError, ValueError, FileNotFoundError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
