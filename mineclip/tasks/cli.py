"""`mineclip tasks list|show|difficulty|import-minedojo`: the task catalogue."""

from __future__ import annotations

import argparse
import json
import sys


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


def _cmd_difficulty(a) -> int:
    from mineclip.play.demos import recompute  # measured on scripted play

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
    p = argparse.ArgumentParser(prog="mineclip tasks", description="The crafter task suite: list, show, difficulty scores, MineDojo import.")
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

    s = sub.add_parser("difficulty", help="recompute the cached MCU difficulty scores")
    s.add_argument("--episodes", type=int, default=4)
    s.set_defaults(fn=_cmd_difficulty)

    s = sub.add_parser("import-minedojo", help="MineDojo description YAMLs -> a suite file")
    s.add_argument("path", help="minedojo/tasks/description_files (or one of its YAML files)")
    s.add_argument("--out", default="data/minedojo_tasks.yaml")
    s.set_defaults(fn=_cmd_import)
    return p


def main(argv: list[str] | None = None) -> int:
    from mineclip.cli import run_subcommand

    return run_subcommand(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
