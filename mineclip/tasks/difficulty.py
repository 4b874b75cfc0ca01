"""MCU difficulty scores: time consumption, operational effort, planning complexity, calibrated to
[0, 5] by quintiles over the suite. Computed scores are cached in `suite/difficulty.json`
(measured on scripted demonstrations by `mineclip.play.demos.recompute`).

- time consumption: mean frames the scripted agent needs on successful episodes
- operational effort: mean permutation entropy of its action sequences (order 3, / ln 3!)
- planning complexity: edges + vertices of the task's dependency graph, built from crafter's
  own recipe data (crafter/data.yaml: make, place, collect), not expanding what the initial
  inventory already holds
- intricacy, creativity, novelty: optional human ratings (TaskSpec.human), passed through
"""

from __future__ import annotations

import json
import math
from collections import Counter
from importlib import resources
from pathlib import Path

import numpy as np
from crafter import constants

CACHE_NAME = "difficulty.json"
SCORES = ("time", "effort", "planning")
HUMAN = ("intricacy", "creativity", "novelty")
GOAL_ALIASES = {  # achievement-like goals -> a node of the recipe graph
    "drink": "water", "sleep": "energy", "wake_up": "energy", "eat_plant": "plant",
    "place_plant": "sapling", "place_stone": "stone",
}
CREATURE_REQUIRES = {"zombie": [], "skeleton": [], "cow": []}


def permutation_entropy(sequence, order: int = 3, normalize: bool = True) -> float:
    """Permutation entropy of a sequence (ordinal patterns of `order` consecutive values, ties by
    position), divided by ln(order!) when normalised. 0 for sequences shorter than `order`."""
    x = np.asarray(sequence, dtype=float)
    if len(x) < order:
        return 0.0
    patterns = Counter(tuple(np.argsort(x[i:i + order], kind="stable")) for i in range(len(x) - order + 1))
    n = sum(patterns.values())
    h = -sum(c / n * math.log(c / n) for c in patterns.values())
    return h / math.log(math.factorial(order)) if normalize else h


def dependency_graph(goals: list[str], inventory: dict[str, int] | None = None) -> tuple[set, set]:
    """Vertices and edges (requirement -> product) of what it takes to reach `goals` from
    crafter's recipes; items already in `inventory` are leaves (not expanded)."""
    inventory = inventory or {}
    vertices: set[str] = set()
    edges: set[tuple[str, str]] = set()
    sources = {next(iter(v["receive"])): k for k, v in constants.collect.items()}

    def requires(node: str) -> list[str]:
        if node in constants.make:
            r = constants.make[node]
            return list(r["uses"]) + list(r.get("nearby", []))
        if node in constants.place and node not in sources:
            return list(constants.place[node]["uses"]) + list(constants.place[node].get("nearby", []))
        if node in sources:
            material = sources[node]
            return [material] + list(constants.collect[material]["require"])
        return []

    def visit(node: str) -> None:
        if node in vertices:
            return
        vertices.add(node)
        if inventory.get(node, 0) > 0:
            return
        for req in requires(node):
            edges.add((req, node))
            visit(req)

    for g in goals:
        visit(GOAL_ALIASES.get(g, g))
    return vertices, edges


def planning_complexity(goals: list[str], inventory: dict[str, int] | None = None) -> int:
    """E + V of the dependency graph."""
    v, e = dependency_graph(goals, inventory)
    return len(v) + len(e)


def calibrate(values: dict[str, float]) -> dict[str, float]:
    """Map raw scores to [0, 5] piecewise-linearly between their quintiles (0, 20, ..., 100th pct)."""
    keys = list(values)
    raw = np.array([values[k] for k in keys], dtype=float)
    if len(raw) == 0:
        return {}
    knots = np.percentile(raw, [0, 20, 40, 60, 80, 100])
    if knots[-1] == knots[0]:
        return {k: 0.0 for k in keys}
    # strictly increasing knots for np.interp; equal knots collapse to the lower level
    levels = np.arange(6, dtype=float)
    keep = np.concatenate([[True], np.diff(knots) > 0])
    scaled = np.interp(raw, knots[keep], levels[keep])
    return {k: round(float(v), 3) for k, v in zip(keys, scaled)}


def scores_from_raw(raw: dict[str, dict], human: dict[str, dict] | None = None) -> dict[str, dict]:
    """Calibrated [0, 5] scores next to the raw ones, for every task."""
    out = {t: {"raw": dict(r)} for t, r in raw.items()}
    for name in SCORES:
        cal = calibrate({t: r[name] for t, r in raw.items()})
        for t, v in cal.items():
            out[t][name] = v
    for t, h in (human or {}).items():
        if t in out:
            for name in HUMAN:
                if name in h:
                    out[t][name] = h[name]
    for t in out:
        out[t]["overall"] = round(float(np.mean([out[t][s] for s in SCORES])), 3)
    return out


def cache_path() -> Path:
    return Path(str(resources.files("mineclip.tasks").joinpath("suite", CACHE_NAME)))


def load_scores() -> dict[str, dict]:
    """Cached scores (empty if never computed)."""
    p = cache_path()
    return json.loads(p.read_text()) if p.is_file() else {}
