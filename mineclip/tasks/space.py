"""MCU's task space: every scored task as a vector of its six calibrated difficulty scores, a 2-D
map of them (t-SNE, coloured by category and by MCU skill), and representative selection (dissimilar
tasks within a cluster: farthest-point sampling from the cluster's medoid).

The MCU skill of a task (combat, crafting, building, exploitation, mining, navigation: SkillForge's
categories) comes from the atoms it asks for (`skill_of`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mineclip.extras import pyplot, require

from .difficulty import SCORES, load_scores
from .pretasks import task_graph

SKILLS = ("combat", "crafting", "building", "mining", "exploitation", "navigation")  # precedence order


def atom_skill(atom: str) -> str:
    """The MCU skill an atom exercises."""
    kind, _, what = atom.partition("_")
    if atom in ("eat_cow", "defeat_zombie", "defeat_skeleton") or kind == "hit":
        return "combat"
    if kind == "make" or atom in ("place_table", "place_furnace"):
        return "crafting"
    if kind == "place":
        return "building"
    if kind == "collect" and what != "drink":
        return "mining"
    if kind == "find":
        return "navigation"
    return "exploitation"


def _atoms(graph, node: str) -> list[str]:
    """A root's atoms, looking through the composed any(...) / all(...) nodes."""
    if node.startswith(("any(", "all(")):
        return [a for c in graph.pre(node) for a in _atoms(graph, c)]
    return [node]


def skill_of(task) -> str:
    """A task's MCU skill: the first of `SKILLS` among the skills of the atoms it asks for."""
    g = task_graph(task)
    found = {atom_skill(a) for r in g.roots for a in _atoms(g, r)}
    return next((s for s in SKILLS if s in found), "exploitation")


def vectors(scores: dict[str, dict] | None = None, task_ids: list[str] | None = None) -> tuple[list[str], np.ndarray]:
    """(task ids, [N, 6] calibrated scores in `SCORES` order) of the scored tasks."""
    scores = load_scores() if scores is None else scores
    ids = [t for t in (task_ids or sorted(scores)) if t in scores and all(k in scores[t] for k in SCORES)]
    if not ids:
        raise ValueError("no task has all six difficulty scores; run `mineclip tasks difficulty --recompute`")
    return ids, np.array([[scores[t][k] for k in SCORES] for t in ids], dtype=float)


def embed_2d(x: np.ndarray, seed: int = 0) -> np.ndarray:
    """A 2-D t-SNE map of the vectors (perplexity 30, or less for few tasks)."""
    require("sklearn", feature="the task map")
    from sklearn.manifold import TSNE

    if len(x) < 3:
        raise ValueError(f"a map needs at least 3 tasks, got {len(x)}")
    perplexity = float(min(30, (len(x) - 1) / 3))
    return TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(x)


def farthest_points(x: np.ndarray, k: int) -> list[int]:
    """k mutually dissimilar rows: the medoid, then each time the row farthest from those chosen."""
    if k <= 0 or len(x) == 0:
        return []
    d = np.linalg.norm(x[:, None] - x[None], axis=-1)
    chosen = [int(d.sum(1).argmin())]
    while len(chosen) < min(k, len(x)):
        gap = d[:, chosen].min(1)
        gap[chosen] = -1
        chosen.append(int(gap.argmax()))
    return chosen


def representative(ids: list[str], x: np.ndarray, k: int) -> list[str]:
    """k representative tasks of a group: the farthest-point picks in its 6-D space."""
    return [ids[i] for i in farthest_points(x, k)]


def plot_space(ids: list[str], coords: np.ndarray, groups: dict[str, list[str]], path: str | Path,
               marked: dict[str, set] | None = None, title: str = "") -> Path:
    """Scatter the 2-D map once per grouping (e.g. category, MCU skill) into one PNG; tasks in
    `marked` sets (benchmarks) drawn with their own edge marker."""
    plt = pyplot("the task map")

    fig, axes = plt.subplots(1, len(groups), figsize=(7.5 * len(groups), 6.5), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, (name, labels) in zip(axes[0], groups.items()):
        for i, lab in enumerate(sorted(set(labels))):
            m = np.array([l == lab for l in labels])
            ax.scatter(coords[m, 0], coords[m, 1], s=22, color=cmap(i % 10), label=f"{lab} ({m.sum()})", alpha=0.8)
        for j, (bench, members) in enumerate((marked or {}).items()):
            m = np.array([t in members for t in ids])
            ax.scatter(coords[m, 0], coords[m, 1], s=90, facecolors="none", edgecolors="k",
                       marker="os"[j % 2], linewidths=1.0, label=f"{bench} benchmark ({m.sum()})")
        ax.set_title(f"coloured by {name}")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(title or f"MCU task space: {len(ids)} tasks, t-SNE of the six calibrated difficulty scores")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
