"""`mineclip play record|evalset|clips`: scripted play on the task suite and the data made from it."""

from __future__ import annotations

import argparse
import sys

from mineclip.cli import count
from mineclip.model.config import CLIP_FRAMES
from mineclip.sim.view import DEFAULT_VIEW, VIEWS
from mineclip.tasks.scenes import IN_VIEW
from mineclip.tasks.world_seeds import PURPOSES


def record_jobs(a: argparse.Namespace) -> list[dict]:
    """The episodes `mineclip play record` plays for its arguments."""
    from mineclip.tasks.registry import select_tasks

    from .record import make_jobs

    return make_jobs(select_tasks(a.tasks, a.category), a.agents.split(","), a.episodes, purpose=a.worlds_from,
                     noise=a.noise, seed_offset=a.seed_offset, worlds=a.worlds, view=a.view)


def evalset_settings(a: argparse.Namespace):
    """What `mineclip play evalset` records for its arguments."""
    from mineclip.tasks.registry import select_tasks

    from .evalset import EvalsetSettings

    return EvalsetSettings(select_tasks(a.tasks, a.category), a.per_label, a.worlds, a.max_attempts, a.tail,
                           view=a.view)


def clip_settings(a: argparse.Namespace):
    """What `mineclip play clips` makes for its arguments."""
    from mineclip.tasks.registry import select_tasks

    from .clips import ClipSettings

    return ClipSettings(
        num_clips=a.num_clips, clip_len=a.clip_len, stride=a.stride, episode_len=a.episode_len, misalign=a.misalign,
        filler=a.filler, idle_keep=a.idle_keep, scenery=a.scenery, in_view=a.in_view, worlds=a.worlds, purpose=a.worlds_from, seed=a.seed,
        encoding=a.encoding, task_weights=dict(a.task_weight) or None, view=a.view,
        tasks=select_tasks(a.tasks, a.category) if (a.tasks or a.category) else None)


def _cmd_record(a) -> int:
    from .record import read_jsonl, record

    jobs = record_jobs(a)
    path = record(jobs, a.out, workers=a.workers)
    recs = read_jsonl(path)[-len(jobs):]
    ok = sum(r["label"] for r in recs)
    print(f"wrote {len(recs)} trajectories ({ok} successes) to {path}")
    return 0


def _cmd_evalset(a) -> int:
    from .evalset import record_evalset

    result = record_evalset(a.out, evalset_settings(a), workers=a.workers)
    counts = result.counts
    print(f"wrote {sum(sum(c) for c in counts.values())} labelled trajectories for {len(counts)} tasks "
          f"to {result.labels}")
    for t, (s, f) in sorted(counts.items()):
        if min(s, f) < a.per_label:
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

    result = make_clips(a.out, clip_settings(a), workers=a.workers)
    print(f"wrote {result.clips} clips in {result.shards} shards to {result.out_dir} ({result.seconds:.0f}s)")
    return 0 if result.clips else 1


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mineclip play", description=__doc__.split(": ", 1)[1])
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(s, out_default: str, worlds: int, purpose: str | None):
        s.add_argument("--tasks", help="comma-separated task ids or 'all' (default: all)")
        s.add_argument("--category", help="only the tasks of this category")
        s.add_argument("--out", default=out_default, help=f"output folder (default: {out_default})")
        s.add_argument("--workers", type=count, default=None, help="processes (default: all cores)")
        s.add_argument("--worlds", type=int, default=worlds, help=f"distinct worlds played (default: {worlds})")
        s.add_argument("--view", default=DEFAULT_VIEW, choices=VIEWS,
                       help=f"what the videos show and the agents' controls: from above or the player's eyes "
                            f"(mineclip.sim.view; default: {DEFAULT_VIEW})")
        if purpose:
            s.add_argument("--worlds-from", default=purpose, choices=PURPOSES,
                           help=f"the world seed range played on (mineclip.tasks.world_seeds; default: {purpose})")

    s = sub.add_parser("record", help="run agents and write trajectories (mp4 + JSON lines)")
    common(s, "data/trajectories", CLIP_FRAMES, "play")
    s.add_argument("--agents", default="scripted", help="comma-separated: scripted,noisy,near_miss,wrong_target,random")
    s.add_argument("--episodes", type=int, default=4, help="per task and agent")
    s.add_argument("--noise", type=float, default=0.3, help="noise of the 'noisy' agent")
    s.add_argument("--seed-offset", type=int, default=0, help="first world, counted into the range")
    s.set_defaults(fn=_cmd_record)

    s = sub.add_parser("evalset", help="N successes + N failures per task on held-out worlds")
    common(s, "data/evalset", 20, None)
    s.add_argument("--per-label", type=int, default=20, help="successes and failures per task")
    s.add_argument("--max-attempts", type=int, default=None, help="episodes per task at most")
    s.add_argument("--tail", type=int, default=CLIP_FRAMES,
                   help="steps recorded after success: at least the judge's reward window (default 16, the "
                        "paper's; 8 is enough for the tiny model)")
    s.set_defaults(fn=_cmd_evalset)

    s = sub.add_parser("clips", help="narrated (16-frame clip, text) training shards")
    common(s, "data/crafter_clips", 64, "clips")
    s.add_argument("--num-clips", type=int, default=8000, help="clips to write")
    s.add_argument("--clip-len", type=int, default=CLIP_FRAMES, help="frames per clip")
    s.add_argument("--stride", type=int, default=4, help="steps between window starts")
    s.add_argument("--episode-len", type=int, default=48, help="steps per episode")
    s.add_argument("--misalign", type=float, default=0.2, help="chance a caption describes a neighbouring window")
    s.add_argument("--filler", type=float, default=0.3, help="amount of filler words and chatter")
    s.add_argument("--idle-keep", type=float, default=0.25,
                   help="chance of keeping a window in which nothing happens (0..1)")
    s.add_argument("--scenery", type=float, default=0.0,
                   help="chance a kept window in which nothing happens is captioned by its whole scene "
                        "(every creature and terrain in view and the time of day; 0..1)")
    s.add_argument("--in-view", default="any", choices=list(IN_VIEW),
                   help="how captions name things in view: at any distance alike (any, the default), by their "
                        "distance ('a cow far off', 'right next to a cow') with ores and plants (ranged), or "
                        "only within two tiles (near)")
    s.add_argument("--task-weight", action="append", default=[], type=_task_weight, metavar="TASK_OR_KIND=W",
                   help="play a task (or every task of a kind) W times as often, e.g. creative=2 (repeatable)")
    s.add_argument("--encoding", default="mp4", choices=["mp4", "raw"], help="clip encoding in the shards")
    s.add_argument("--seed", type=int, default=0, help="seed of the episode plan")
    s.set_defaults(fn=_cmd_clips)
    return p


def main(argv: list[str] | None = None) -> int:
    from mineclip.cli import run_subcommand

    return run_subcommand(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
