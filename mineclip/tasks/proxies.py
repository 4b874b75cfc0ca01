"""Computed proxies for MCU's three human-rated difficulty scores (a human rating replaces each one
where `mineclip.tasks.ratings` has it):

- intricacy = the precision the success condition demands (`precision`): every exact act it counts
  (an achievement, an item gained or held, an event) scores 1 per count; facing a thing 2; being
  within d tiles of it 1 + 1/d; a time of day, sleeping, a health floor or an item not held 1; a
  thing in view (or a share of the view) 0.5; survival 0.5; `all` adds, `any` takes its easiest
  branch. A task without a criterion (creative) is scored on its plan (`plan_precision`): a straight
  row, tunnel or bridge of n blocks scores the n acts plus 2 for the alignment.
- creativity = the size of the solution space, as the number of distinct successful end states
  (`end_state`: achievements and items gained, and the shape of the changed tiles up to translation,
  rotation and mirroring) expected among k successful demonstrations (`rarefied_richness`).
- novelty = how far the prompt lies from the training captions: 1 - the mean cosine similarity of
  its k nearest captions in the learned text space (`text_novelty`), or in TF-IDF space when no
  trained model is given (`lexical_novelty`).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

from mineclip.extras import require
from mineclip.sim.vocab import VITALS

CREATIVITY_K = 8
NOVELTY_K = 5


def precision(criterion: dict) -> float:
    """The precision a success criterion demands (see the module docstring)."""
    total = 0.0
    for key, arg in criterion.items():
        if key == "all":
            total += sum(precision(c) for c in arg)
        elif key == "any":
            total += min(precision(c) for c in arg)
        elif key in ("achieve", "gain", "have", "event"):
            total += float(sum(arg.values()))
        elif key == "facing":
            total += 2.0
        elif key == "near":
            total += sum(1.0 + 1.0 / max(int(d), 1) for d in arg.values())
        elif key in ("in_view", "view_fraction"):
            total += 0.5 * len(arg)
        elif key in ("time", "sleeping", "health", "without"):
            total += 1.0
        elif key == "survive":
            total += 0.5
        else:
            raise ValueError(f"no precision for success condition {key!r}")
    return total


def plan_precision(solution: list) -> float:
    """The precision of a scripted plan's steps (for tasks judged by an oracle or by people)."""
    total = 0.0
    for step in solution:
        name, arg = (step, None) if isinstance(step, str) else next(iter(step.items()))
        opts = {} if isinstance(step, str) else step
        n = int(opts.get("count", arg if isinstance(arg, int) else 1) or 1)
        if name == "goto":
            total += 1.0 + 1.0 / max(int(opts.get("within", 1)), 1)
        elif name in ("obtain", "fight", "drink"):
            total += n
        elif name in ("hit", "eat_plant", "place", "sleep", "sleep_until_awake"):
            total += 1.0
        elif name in ("place_row", "tunnel"):
            total += int(opts.get("count", 3) if name == "place_row" else arg) + 2.0
        elif name == "bridge":
            total += 2 * int(arg) + 2.0
        elif name == "survive":
            total += 0.5
    return total


def intricacy(task) -> float:
    """The intricacy proxy of a task: its criterion's precision, else its plan's."""
    return precision(task.success) if task.success else plan_precision(task.solution)


def _canonical_shape(cells: list[tuple[int, int, str]]) -> tuple:
    """Changed tiles (x, y, what) up to translation, rotation and mirroring."""
    if not cells:
        return ()
    best = None
    for sx in (1, -1):
        for sy in (1, -1):
            for swap in (False, True):
                pts = [((y if swap else x) * sx, (x if swap else y) * sy, w) for x, y, w in cells]
                mx, my = min(p[0] for p in pts), min(p[1] for p in pts)
                shape = tuple(sorted((x - mx, y - my, w) for x, y, w in pts))
                best = shape if best is None or shape < best else best
    return best


def end_state(context, world=None) -> tuple:
    """A world-independent signature of how an episode ended: achievements unlocked, non-vital items
    gained or lost, and the shape of what changed in the world (tiles, planted saplings)."""
    start, now = context.start, context.state
    ach = tuple(sorted((k, v - start.achievements.get(k, 0)) for k, v in now.achievements.items()
                       if v > start.achievements.get(k, 0)))
    inv = tuple(sorted((k, v - start.inventory.get(k, 0)) for k, v in now.inventory.items()
                       if k not in VITALS and v != start.inventory.get(k, 0)))
    names = {i: n for n, i in context.material_ids.items()}
    changed = np.argwhere(context.start_map != context.world_map)
    cells = [(int(x), int(y), f"{names.get(int(context.start_map[x, y]))}>{names.get(int(context.world_map[x, y]))}")
             for x, y in changed]
    if world is not None:
        plants = {tuple(int(v) for v in o.pos) for o in world.objects if type(o).__name__.lower() == "plant"}
        cells += [(x, y, "plant") for x, y in sorted(plants - set(context.start_plants))]
    return ach, inv, _canonical_shape(cells)


def rarefied_richness(signatures: list, k: int = CREATIVITY_K) -> float:
    """Expected number of distinct signatures among k drawn without replacement (Hurlbert's
    rarefaction), so that tasks with different numbers of successes compare; the observed number
    when there are at most k."""
    n = len(signatures)
    if n <= k:
        return float(len(set(signatures)))
    total = math.comb(n, k)
    return float(sum(1 - math.comb(n - c, k) / total for c in Counter(signatures).values()))


def text_novelty(prompt_features: np.ndarray, caption_features: np.ndarray, k: int = NOVELTY_K) -> np.ndarray:
    """1 - mean cosine similarity to the k nearest captions, per prompt ([P, D] against [C, D])."""
    p = np.asarray(prompt_features, dtype=np.float64)
    c = np.asarray(caption_features, dtype=np.float64)
    if p.ndim != 2 or c.ndim != 2 or p.shape[1] != c.shape[1] or not len(c):
        raise ValueError(f"expected features [P, D] and [C, D] with C > 0, got {p.shape} and {c.shape}")
    p = p / np.linalg.norm(p, axis=1, keepdims=True).clip(1e-12)
    c = c / np.linalg.norm(c, axis=1, keepdims=True).clip(1e-12)
    sims = p @ c.T
    k = min(k, sims.shape[1])
    top = -np.sort(-sims, axis=1)[:, :k]
    return 1.0 - top.mean(1)


def lexical_novelty(prompts: list[str], captions: list[str], k: int = NOVELTY_K) -> np.ndarray:
    """`text_novelty` in TF-IDF space (words and word pairs), for when no trained model is given."""
    require("sklearn", feature="lexical text novelty")
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, 2)).fit(list(captions) + list(prompts))
    return text_novelty(vec.transform(prompts).toarray(), vec.transform(captions).toarray(), k)


def model_novelty(prompts: list[str], captions: list[str], artifact: str | Path, k: int = NOVELTY_K,
                  batch: int = 256) -> np.ndarray:
    """`text_novelty` in a trained artifact's text space (its text tower's features)."""
    from mineclip.model.artifact import load_artifact

    return encoder_novelty(prompts, captions, load_artifact(artifact, device="cpu"), k, batch)


def encoder_novelty(prompts: list[str], captions: list[str], model, k: int = NOVELTY_K, batch: int = 256) -> np.ndarray:
    """`text_novelty` with the text features of a MineCLIP model (`model.encode_text`)."""
    import torch

    model = model.eval()
    with torch.inference_mode():
        feats = [model.encode_text(list(captions[i:i + batch])).float().numpy() for i in range(0, len(captions), batch)]
        prompt_feats = model.encode_text(list(prompts)).float().numpy()
    return text_novelty(prompt_feats, np.concatenate(feats), k)


def training_captions(shards: str | Path) -> list[str]:
    """The distinct captions of a folder of training shards (the .txt members of its tar files)."""
    import tarfile

    folder = Path(shards)
    tars = sorted(folder.glob("*.tar"))
    if not tars:
        raise FileNotFoundError(f"{folder}: no training shards (*.tar) to read captions from")
    seen: dict[str, None] = {}
    for path in tars:
        with tarfile.open(path) as tar:
            for member in tar:
                if member.name.endswith(".txt"):
                    seen.setdefault(tar.extractfile(member).read().decode("utf-8").strip(), None)
    return [c for c in seen if c]
