"""Two benchmarks drawn from the task space, as MCU draws SkillForge and HorizonForge:

- control: short-horizon skills, representative atoms per MCU skill (5 combat, 5 crafting,
  5 building, 10 exploitation, 5 mining, 5 navigation) plus 8 molecules, each group drawn as
  dissimilar tasks (farthest points in the six-score space) among its short-horizon tasks (calibrated
  time <= 3) that the scripted agent solves;
- planning: every naive-initialisation "make X" task (crafting from an empty inventory, MCU's
  HorizonForge), ordered by planning complexity.

`build_benchmarks` draws both, writes `suite/benchmarks.json` and the task-space map (PNG).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from .difficulty import load_scores
from .registry import get_task, list_tasks
from .space import embed_2d, plot_space, representative, skill_of, vectors

CONTROL = {"combat": 5, "crafting": 5, "building": 5, "exploitation": 10, "mining": 5, "navigation": 5}
CONTROL_MOLECULES = 8
SHORT_HORIZON = 3.0  # calibrated time consumption, at most
MIN_SOLVED = 0.5  # the scripted agent's success on the demonstration worlds, at least
NAMES = ("control", "planning")
FILE = "benchmarks.json"
DEFAULT_PNG = Path("docs/img/task_space.png")


def _solvable(scores: dict, t: str) -> bool:
    return scores[t]["raw"].get("scripted_success", 0) >= MIN_SOLVED


def draw_control(scores: dict[str, dict]) -> dict:
    """The control benchmark: representative short-horizon atoms per skill, and molecules."""
    tasks = {t.id: t for t in list_tasks(catalogue="all") if t.id in scores}
    short = [t for t in sorted(tasks) if scores[t]["time"] <= SHORT_HORIZON and _solvable(scores, t)]
    atoms = [t for t in short if "mcu-molecule" not in tasks[t].tags]
    out: dict[str, list[str]] = {}
    for skill, k in CONTROL.items():
        group = [t for t in atoms if skill_of(tasks[t]) == skill]
        if group:
            ids, x = vectors(scores, group)
            out[skill] = representative(ids, x, k)
        else:
            out[skill] = []
    molecules = [t for t in short if "mcu-molecule" in tasks[t].tags and "naive" not in tasks[t].tags]
    ids, x = vectors(scores, molecules) if molecules else ([], None)
    out["molecules"] = representative(ids, x, CONTROL_MOLECULES) if molecules else []
    return {"by_group": out, "tasks": [t for g in out.values() for t in g],
            "rule": f"per MCU skill (and molecules) the farthest points in the six-score space among tasks with "
                    f"calibrated time <= {SHORT_HORIZON} that the scripted agent solves on >= {MIN_SOLVED:.0%} of "
                    f"the demonstration worlds; wanted {dict(CONTROL, molecules=CONTROL_MOLECULES)}"}


def draw_planning(scores: dict[str, dict]) -> dict:
    """The planning benchmark: every naive-initialisation "make X" task, by planning complexity."""
    tasks = [t for t in list_tasks(catalogue="all", tag="naive") if t.id in scores and skill_of(t) == "crafting"]
    ordered = sorted(tasks, key=lambda t: (scores[t.id]["raw"]["planning"], t.id))
    return {"tasks": [t.id for t in ordered],
            "planning": {t.id: scores[t.id]["raw"]["planning"] for t in ordered},
            "scripted_success": {t.id: scores[t.id]["raw"].get("scripted_success") for t in ordered},
            "rule": "every naive-initialisation task whose goal is crafting (make X, place a table or furnace)"}


def benchmarks_path() -> Path:
    """Where the drawn benchmarks are kept (`suite/benchmarks.json`)."""
    return Path(str(resources.files("mineclip.tasks").joinpath("suite", FILE)))


def build_benchmarks(png: str | Path = DEFAULT_PNG, path: Path | None = None, seed: int = 0) -> dict:
    """Draw both benchmarks from the scored task space, write them and the task-space PNG."""
    scores = load_scores()
    ids, x = vectors(scores)
    benches = {"control": draw_control(scores), "planning": draw_planning(scores)}
    coords = embed_2d(x, seed)
    tasks = [get_task(t) for t in ids]
    plot_space(ids, coords, {"category": [t.category for t in tasks], "MCU skill": [skill_of(t) for t in tasks]},
               png, marked={n: set(b["tasks"]) for n, b in benches.items()})
    path = path or benchmarks_path()
    path.write_text(json.dumps(benches, indent=1) + "\n")
    return {"tasks": len(ids), "png": str(png), **{n: len(b["tasks"]) for n, b in benches.items()}}


def load_benchmark(name: str) -> dict:
    """A drawn benchmark by name (control or planning)."""
    if name not in NAMES:
        raise ValueError(f"unknown benchmark {name!r}; expected one of {NAMES}")
    path = benchmarks_path()
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no benchmarks drawn yet; run `mineclip tasks space`")
    return json.loads(path.read_text())[name]
