"""`mineclip tasks list|show|difficulty|generate|space|benchmark|plan-text|import-minedojo`: the task catalogue."""

from __future__ import annotations

import argparse
import json
import sys

from mineclip.cli import count

SHORT = {"time": "time", "effort": "effort", "planning": "plan", "intricacy": "intric", "creativity": "creat",
         "novelty": "novel", "overall": "all"}


def _row(t, s: dict, band: str = "") -> str:
    f = lambda k: f"{s[k]:.1f}" + ("h" if s.get("source", {}).get(k) == "human" else "") if k in s else "-"  # noqa: E731
    cells = "".join(f"{f(k):>7}" for k in SHORT)
    return f"{t.id:<44} {t.category:<9}{cells}  {band:<7} {t.prompt}"


def _header() -> str:
    return f"{'id':<44} {'category':<9}" + "".join(f"{v:>7}" for v in SHORT.values()) + f"  {'band':<7} prompt"


def _cmd_list(a) -> int:
    from .difficulty import bands, load_scores
    from .registry import list_tasks

    scores = load_scores()
    tasks = list_tasks(category=a.category, kind=a.kind, tag=a.tag, simulator=None if a.all else "crafter",
                       catalogue=a.catalogue)
    rows = []
    for t in tasks:
        s = scores.get(t.id, {})
        overall = s.get("overall")
        if a.min_difficulty is not None and (overall is None or overall < a.min_difficulty):
            continue
        if a.max_difficulty is not None and (overall is None or overall > a.max_difficulty):
            continue
        rows.append((t, s))
    band = bands(scores=scores)
    if a.json:
        print(json.dumps([{"id": t.id, "prompt": t.prompt, "category": t.category, "kind": t.kind,
                           "catalogue": t.catalogue, "tags": t.tags, "difficulty": s} for t, s in rows], indent=1))
        return 0
    print(_header())
    for t, s in rows:
        print(_row(t, s, band.get(t.id, "")))
    print(f"{len(rows)} tasks" + ("" if scores else " (no difficulty cache: run `mineclip tasks difficulty --recompute`)"))
    return 0


def _cmd_show(a) -> int:
    import yaml

    from .difficulty import load_scores
    from .pretasks import planning_graph
    from .registry import get_task
    from .space import skill_of

    t = get_task(a.task_id)
    d = t.to_dict()
    d["labeller"] = t.labeller
    d["mcu_skill"] = skill_of(t)
    d["planning_graph"] = planning_graph(t).to_dict()
    if t.id in load_scores():
        d["difficulty"] = load_scores()[t.id]
    print(yaml.safe_dump(d, sort_keys=False, width=100))
    return 0


def _cmd_difficulty(a) -> int:
    from .difficulty import SCORES, bands, load_scores
    from .registry import get_task, list_tasks

    if a.recompute:
        from pathlib import Path

        from mineclip.play.demos import recompute  # measured on demonstrations

        model = a.model if a.model and Path(a.model).is_dir() else None
        if a.model and model is None and a.model != DEFAULT_MODEL:
            raise FileNotFoundError(f"{a.model}: no trained artifact there")
        ids = [t.strip() for t in a.tasks.split(",")] if a.tasks else None
        recompute(a.captions, model, task_ids=ids, episodes=a.episodes, workers=a.workers, ratings=a.ratings)
    scores = load_scores()
    ids = [t.id for t in list_tasks(catalogue=a.catalogue) if t.id in scores]
    if not ids:
        raise FileNotFoundError("no difficulty scores cached; run `mineclip tasks difficulty --recompute`")
    if a.json:
        print(json.dumps({t: scores[t] for t in ids}, indent=1, sort_keys=True))
        return 0
    band = bands(scores=scores)
    print(_header())
    for t in ids:
        print(_row(get_task(t), scores[t], band[t]))
    notes = {t: scores[t]["raw"]["notes"] for t in ids if scores[t]["raw"].get("notes")}
    human = sum(any(v == "human" for v in scores[t]["source"].values()) for t in ids)
    print(f"{len(ids)} tasks, six calibrated scores each ([0, 5] by the quintiles of the atom tasks and their naive "
          f"versions); {human} with human ratings (h)")
    for name in SCORES:
        vals = [scores[t][name] for t in ids]
        print(f"  {name:<10} {len(set(vals)):>4} distinct values, mean {sum(vals) / len(vals):.2f}")
    for t, n in notes.items():
        for k, why in n.items():
            print(f"  note {t} {k}: {why}")
    return 0


def _cmd_generate(a) -> int:
    from mineclip.play.demos import validate

    from .generator import build_catalogue

    s = build_catalogue(lambda ids: validate(ids, worlds=a.worlds, workers=a.workers), min_success=a.min_success)
    print(f"{s['kept']} generated tasks kept of {s['validated']} validated ({s['pass_rate']:.1%}); "
          f"{len(s['refused'])} compositions refused; per family: "
          + ", ".join(f"{f} {v['kept']}/{v['candidates']}" for f, v in s["per_family"].items()))
    print("recompute the difficulty scores next: `mineclip tasks difficulty --recompute`")
    return 0


def _cmd_space(a) -> int:
    from .benchmarks import build_benchmarks

    s = build_benchmarks(a.out, seed=a.seed)
    print(f"task space of {s['tasks']} tasks -> {s['png']}; control benchmark {s['control']} tasks, "
          f"planning benchmark {s['planning']} tasks (suite/benchmarks.json)")
    return 0


def _cmd_benchmark(a) -> int:
    from .benchmarks import load_benchmark
    from .registry import get_task

    b = load_benchmark(a.name)
    if a.record:
        from mineclip.play.record import make_jobs, record
        from mineclip.sim.view import DEFAULT_VIEW

        jobs = make_jobs(b["tasks"], a.agents.split(","), a.episodes, view=a.view or DEFAULT_VIEW)
        path = record(jobs, a.record, workers=a.workers)
        print(f"recorded {a.name} benchmark ({len(b['tasks'])} tasks) -> {path}")
        return 0
    if a.json:
        print(json.dumps(b, indent=1))
        return 0
    groups = b.get("by_group") or {"tasks": b["tasks"]}
    for g, ids in groups.items():
        for t in ids:
            extra = f"  planning {b['planning'][t]}" if "planning" in b else ""
            print(f"{g:<13} {t:<44} {get_task(t).prompt}{extra}")
    print(f"{len(b['tasks'])} tasks: {b['rule']}")
    return 0


def _cmd_plan_text(a) -> int:
    from .textplan import baselines

    res = baselines(episodes=a.episodes, seed=a.seed)
    if a.json:
        print(json.dumps(res, indent=1))
        return 0
    goals = list(next(iter(res.values())))
    print(f"{'goal':<22}" + "".join(f"{p + ' success':>18}{'steps':>8}" for p in res))
    for g in goals:
        print(f"{g:<22}" + "".join(f"{res[p][g]['success']:>18.2f}{res[p][g]['steps'] or float('nan'):>8.1f}"
                                   for p in res))
    print(f"{'mean':<22}" + "".join(f"{sum(r['success'] for r in res[p].values()) / len(goals):>18.2f}{'':>8}"
                                    for p in res))
    return 0


def _cmd_import(a) -> int:
    from .minedojo import import_minedojo, write_suite

    tasks = import_minedojo(a.path)
    out = write_suite(tasks, a.out)
    kinds = {k: sum(t.kind == k for t in tasks.values()) for k in ("programmatic", "creative")}
    print(f"imported {len(tasks)} MineDojo tasks ({kinds['programmatic']} programmatic, {kinds['creative']} creative) "
          f"to {out}; add it to $MINECLIP_TASKS_PATH to register them")
    return 0


DEFAULT_MODEL = "runs/default/artifact"
DEFAULT_CAPTIONS = "runs/default/shards/train"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mineclip tasks", description="The crafter task catalogue: list, show, MCU "
                                "difficulty scores, the generated catalogue, the task space and its benchmarks, "
                                "text-only planning, MineDojo import.")
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("list", help="table of tasks with category and difficulty")
    s.add_argument("--category", help="only this category (harvest, combat, techtree, survival, creative)")
    s.add_argument("--kind", choices=["programmatic", "creative"], help="only programmatic or creative tasks")
    s.add_argument("--tag", help="only tasks with this tag (table1, mcu-molecule, naive, generated, ...)")
    s.add_argument("--catalogue", default="suite", choices=["suite", "generated", "context", "process", "all"],
                   help="the hand-written suite (default), the generated catalogue, MP5's context levels, its process levels, or all")
    s.add_argument("--min-difficulty", type=float, help="only tasks whose overall difficulty is at least this")
    s.add_argument("--max-difficulty", type=float, help="only tasks whose overall difficulty is at most this")
    s.add_argument("--all", action="store_true", help="include imported (non-crafter) tasks")
    s.add_argument("--json", action="store_true", help="a JSON list instead of the table")
    s.set_defaults(fn=_cmd_list)

    s = sub.add_parser("show", help="one task's full specification")
    s.add_argument("task_id", help="the task's id")
    s.set_defaults(fn=_cmd_show)

    s = sub.add_parser("difficulty", help="the six MCU difficulty scores of every task (--recompute: measure them)")
    s.add_argument("--json", action="store_true", help="one object keyed by task id")
    s.add_argument("--catalogue", default="all", choices=["suite", "generated", "all"],
                   help="which tasks to print (default: both catalogues)")
    s.add_argument("--recompute", action="store_true", help="play the demonstrations and recalibrate the cache")
    s.add_argument("--tasks", help="comma-separated task ids to re-measure (default: every task)")
    s.add_argument("--episodes", type=int, default=4, help="demonstration worlds per demonstrator")
    s.add_argument("--workers", type=count, default=1, help="processes playing the demonstrations")
    s.add_argument("--ratings", default=None, metavar="FILE",
                   help="people's ratings (what `mineclip label` writes, e.g. OUT.ratings.jsonl) that replace the "
                        "intricacy, creativity and novelty proxies of the tasks they rate, with --recompute")
    s.add_argument("--captions", default=DEFAULT_CAPTIONS, help="training shards whose captions novelty is measured from")
    s.add_argument("--model", default=DEFAULT_MODEL, help="trained artifact for the text space (else TF-IDF)")
    s.set_defaults(fn=_cmd_difficulty)

    s = sub.add_parser("generate", help="generate, validate and write the generated catalogue")
    s.add_argument("--worlds", type=int, default=3, help="validation worlds per task")
    s.add_argument("--min-success", type=float, default=2 / 3,
                   help="share of the validation worlds the scripted agent must solve (default 2/3)")
    s.add_argument("--workers", type=count, default=1, help="processes playing the validation episodes")
    s.set_defaults(fn=_cmd_generate)

    s = sub.add_parser("space", help="the task-space map (PNG) and the control and planning benchmarks")
    s.add_argument("--out", default="docs/img/task_space.png", help="the map's PNG")
    s.add_argument("--seed", type=int, default=0, help="t-SNE's random state")
    s.set_defaults(fn=_cmd_space)

    s = sub.add_parser("benchmark", help="list (or record play on) a benchmark: control or planning")
    s.add_argument("name", choices=["control", "planning"], help="the benchmark")
    s.add_argument("--json", action="store_true", help="the drawn benchmark as JSON")
    s.add_argument("--record", metavar="OUT", help="record trajectories of the benchmark's tasks into OUT")
    s.add_argument("--agents", default="scripted", help="comma-separated agents to record (with --record)")
    s.add_argument("--episodes", type=int, default=4, help="episodes per task and agent (with --record)")
    s.add_argument("--workers", type=count, default=1, help="recording processes (with --record)")
    s.add_argument("--view", default=None,
                   help="what the recorded videos show and the agents' controls, a view of mineclip.sim.view (with "
                        "--record; default: the top view)")
    s.set_defaults(fn=_cmd_benchmark)

    s = sub.add_parser("plan-text", help="success rates of the scripted and random planners in the text env")
    s.add_argument("--episodes", type=int, default=50, help="random-planner episodes per goal")
    s.add_argument("--seed", type=int, default=0, help="the random planner's first seed")
    s.add_argument("--json", action="store_true", help="the success rates as JSON")
    s.set_defaults(fn=_cmd_plan_text)

    s = sub.add_parser("import-minedojo", help="MineDojo description YAMLs -> a suite file")
    s.add_argument("path", help="minedojo/tasks/description_files (or one of its YAML files)")
    s.add_argument("--out", default="data/minedojo_tasks.yaml", help="the suite file to write")
    s.set_defaults(fn=_cmd_import)
    return p


def main(argv: list[str] | None = None) -> int:
    from mineclip.cli import run_subcommand

    return run_subcommand(build_parser(), argv)


if __name__ == "__main__":
    sys.exit(main())
