"""Thresholds of the Percipient, fitted on ego-view frames labelled by the simulator's ground truth.

Frames come from the context tasks played on training worlds (`seeds.world_seeds("perception")`)
at every time of day, by the scripted agent with random turns; each frame is labelled for every
probe condition (`probes`) by `Condition.seen` on the state it shows. Per condition key the band
is: `hi` the lowest P whose `yes` answers reach the target precision, `lo` the highest P whose `no`
answers do; P in between is unsure. A key without enough frames of both labels gets no band (its
answers stay unsure). Each band records whether it was fitted on the head's P or the words'
(`by`), and is used only for P from the same source. The thresholds are written beside the
artifact as `perception.json`, with the view their frames were drawn in (`view`,
`mineclip.sim.view`): in first person the labels are what the first-person frame shows
(`WorldState.view` is the renderer's `in_view`; the head's patch labels its semantic map), and a
calibration of one view is refused in the other (`load_thresholds`).

`fit_percipient` fits a head and its bands together. Bands fitted on the frames a head was fitted
on trust it as much as it fits them: fine for the logistic read-out of each patch, not for the
first-person network over neighbourhoods, which fits its own frames more closely than it reads new
ones (its yes answers were 0.48-0.84 precise on held-out frames against the 0.9 fitted). Its bands
are fitted on out-of-fold answers instead: two heads, each fitted on one half of the frames (in
the order they were collected, world after world), answer the other half. The same answers fit the
head's count read-outs (`head.fit_counts`), and the counts' bands are out-of-fold as well: the
answers they are fitted on for one half come from a count read-out fitted on the other half's.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from mineclip.model.artifact import PERCEPTION, Artifact
from mineclip.sim.state import WorldState
from mineclip.sim.view import DEFAULT_VIEW, check_view

from .conditions import Condition, conditions_of, describe, minimal_pairs
from .percipient import WHOLE, Percipient

FILE_NAME = PERCEPTION  # beside the artifact: `mineclip.model.artifact.Artifact` writes it
TARGET = 0.9  # precision of yes and of no answers on the training frames
MIN_FRAMES = 8  # of each label, per key, to fit a band
TIMES = ("day", "noon", "dusk", "night", "dawn")
NARRATED_FROM = {"stone": 3, "tree": 3, "sand": 3, "water": 3}  # tiles in view before the narrator names them


def context_tasks() -> list:
    """MP5's context tasks of every catalogue (the suite's six and the `context` levels)."""
    from mineclip.tasks.registry import list_tasks

    return list_tasks(tag="mp5-context", catalogue="all")


def probes() -> list[Condition]:
    """One plain condition per key the context tasks ask about, seen as the narrator of the training
    clips would name it: stone, trees, sand and water from 3 tiles in view, anything else from one."""
    keys: dict[str, Condition] = {}
    for task in context_tasks():
        for c in conditions_of(task):
            if not c.perceivable or c.key in keys:
                continue
            if c.aspect in ("time", "brightness"):
                checks = ((c.aspect, c.subject),)
            else:
                checks = (("in_view", NARRATED_FROM.get(c.subject, 1)),)
            keys[c.key] = Condition(c.aspect, c.subject, checks)
    return list(keys.values())


@dataclass
class LabelledFrame:
    frame: np.ndarray  # uint8 [160, 256, 3]
    state: WorldState
    task: str  # the context task whose world it was
    view: str = DEFAULT_VIEW  # the view the frame was drawn in (mineclip.sim.view)
    semantic: np.ndarray | None = None  # first person: the renderer's semantic map of the frame, uint8 [160, 256]


def collect_frames(purpose: str, worlds: int, per_episode: int = 8, steps: int = 24, seed: int = 0,
                   view: str = DEFAULT_VIEW) -> list[LabelledFrame]:
    """Frames of the context tasks on `worlds` worlds of a purpose, one task per world in turn, at a
    random time of day: on even worlds the task's scene is placed and its plan walked with random
    turns, on odd ones the world is left as generated and explored (so that every condition is seen
    absent as well as present); every few steps one frame. Drawn in `view`, played with its controls;
    in first person each frame keeps the renderer's semantic map (the head's patch labels)."""
    check_view(view)
    from mineclip.play.agents import ScriptedAgent
    from mineclip.tasks.env import CrafterTaskEnv
    from mineclip.tasks.world_seeds import world_seeds

    rng = random.Random(seed)
    tasks = context_tasks()
    out: list[LabelledFrame] = []
    every = max(1, steps // per_episode)
    for i, world in enumerate(world_seeds(purpose, worlds)):
        task = tasks[(i // 2) % len(tasks)]
        scene = i % 2 == 0
        env = CrafterTaskEnv(task, declare_done=False, terminate_on_success=False, view=view)
        init = {"time": rng.choice(TIMES)} | ({} if scene else {"place": []})
        frame, _ = env.reset(seed=world, options={"init": init})
        agent = ScriptedAgent(task.solution if scene else [{"explore": steps}], noise=0.3, seed=world)
        agent.reset(env)
        for t in range(steps):
            if t % every == every - 1:
                semantic = None if env.first_person is None else env.first_person.semantic.copy()
                out.append(LabelledFrame(frame, env.state, task.id, view, semantic))
            frame, _, terminated, truncated, _ = env.step(agent.act(env))
            if terminated or truncated:
                break
    return out


def fit_band(probs, labels, target: float = TARGET, min_frames: int = MIN_FRAMES) -> dict | None:
    """{lo, hi, n, positives} from labelled probabilities, or None without enough of both labels."""
    p, y = np.asarray(probs, dtype=np.float64), np.asarray(labels).astype(bool)
    if y.sum() < min_frames or (~y).sum() < min_frames:
        return None
    cands = np.unique(p)
    hi = next((float(t) for t in cands if (m := p >= t).sum() >= 3 and y[m].mean() >= target), float("inf"))
    lo = next((float(t) for t in cands[::-1] if (m := p <= t).sum() >= 3 and (~y[m]).mean() >= target), float("-inf"))
    if hi <= lo:  # the bands cross: split at the middle, no unsure band left
        hi = lo = (hi + lo) / 2
        lo = np.nextafter(lo, -np.inf)
    # JSON has no infinity: a side that never reaches the target is null (never answered)
    return {"lo": float(lo) if np.isfinite(lo) else None, "hi": float(hi) if np.isfinite(hi) else None,
            "n": len(p), "positives": int(y.sum())}


def frame_probs(percipient: Percipient, frames: list[LabelledFrame], conds: list[Condition]) -> np.ndarray:
    """P [frames, conditions] of each probe condition on each single frame (the Percipient's own:
    its head's where it has one that knows the condition, else the words')."""
    return percipient.condition_probs(np.stack([f.frame for f in frames]), conds)


def whole_probs(percipient: Percipient, frames: list[LabelledFrame]) -> tuple[np.ndarray, np.ndarray]:
    """P of each frame's task description among its minimal pairs, and whether all its conditions held."""
    from mineclip.tasks.registry import get_task

    probs, labels = np.zeros(len(frames)), np.zeros(len(frames), bool)
    for task in dict.fromkeys(f.task for f in frames):
        conds = [c for c in conditions_of(get_task(task)) if c.perceivable]
        idx = [i for i, f in enumerate(frames) if f.task == task]
        group = [describe(conds), *minimal_pairs(conds)]
        probs[idx] = percipient.frame_probs(np.stack([frames[i].frame for i in idx]), [group])[:, 0]
        labels[idx] = [all(c.seen(frames[i].state) for c in conds) for i in idx]
    return probs, labels


def fit_thresholds(percipient: Percipient, frames: list[LabelledFrame], target: float = TARGET,
                   probs: np.ndarray | None = None) -> dict:
    """Bands for every probe key and for the whole prompt, fitted on labelled frames (of one view,
    which the thresholds record: `view`); `probs`: the probe conditions' P on the frames when not the
    Percipient's own (`frame_probs`), e.g. out-of-fold (`fit_percipient`)."""
    from .head import frames_view

    view = frames_view(frames)
    if percipient.head is not None and percipient.head.view != view:
        raise ValueError(f"the Percipient's head was fitted in the {percipient.head.view} view, the frames are "
                         f"of the {view} view")
    conds = probes()
    probs = frame_probs(percipient, frames, conds) if probs is None else probs
    bands = {}
    for j, c in enumerate(conds):
        band = fit_band(probs[:, j], [c.seen(f.state) for f in frames], target)
        if band is not None:
            bands[c.key] = band | {"by": percipient.source(c)}
    wp, wl = whole_probs(percipient, frames)
    return {"target_precision": target, "frames": len(frames), "view": view, "conditions": bands,
            WHOLE: fit_band(wp, wl, target)}


def fit_percipient(rm, frames: list[LabelledFrame], head: bool = True) -> Percipient:
    """A Percipient fitted on labelled frames of training worlds: its head (with `head`, for a model
    whose patches are the simulator's tiles, `head.supports`) and its bands (see the module: a
    neighbourhood network's bands and count read-outs on out-of-fold answers; a condition that a
    half's head cannot read, too few of its kind in that half, keeps the whole head's own P)."""
    from .head import fit_counts, fit_head, frame_tokens, supports

    percipient = Percipient(rm, {}, fit_head(rm, frames) if head and supports(rm) else None)
    probs = None
    if percipient.head is not None and percipient.head.reader == "neighbourhood":
        conds, half, full = probes(), len(frames) // 2, percipient.head
        parts = ((slice(0, half), slice(half, None)), (slice(half, None), slice(0, half)))
        folds = [fit_head(rm, frames[other], reader="neighbourhood") for _, other in parts]
        # the count read-outs, on the folds' answers for the frames they were not fitted on
        counted = [c for c in conds if c.need > 1 and full.knows(c) and all(f.knows(c) for f in folds)]
        tiles = [fold.tile_probs(frame_tokens(rm, np.stack([f.frame for f in frames[part]]))).double()
                 for fold, (part, _) in zip(folds, parts)]
        keys = {f"{c.subject}:{c.need}": c for c in counted}
        oof = {k: torch.cat([t[..., fold.kinds.index(c.subject)] for t, fold in zip(tiles, folds)])
               for k, c in keys.items()}
        labels = {k: np.array([f.state.count(c.subject) >= c.need for f in frames]) for k, c in keys.items()}
        full.counts, full.count_w, full.count_b = fit_counts(oof, labels, full.view)
        full.fitted["counts"] = list(full.counts)
        probs = frame_probs(percipient, frames, conds)
        for fold, (part, other) in zip(folds, parts):
            # the bands' answers for these frames: a count read-out fitted on the other half's
            # answers only, so that the counts' bands are out-of-fold too
            own = fit_counts({k: v[other] for k, v in oof.items()}, {k: v[other] for k, v in labels.items()},
                             full.view)
            fold.counts, fold.count_w, fold.count_b = _with_fallback(own, (full.counts, full.count_w, full.count_b))
            known = [j for j, c in enumerate(conds) if full.knows(c) and fold.knows(c)]
            probs[part, known] = frame_probs(Percipient(rm, {}, fold), frames[part], [conds[j] for j in known])
    percipient.thresholds = fit_thresholds(percipient, frames, probs=probs)
    return percipient


def _with_fallback(own: tuple, full: tuple) -> tuple[list[str], torch.Tensor, torch.Tensor]:
    """Count read-outs (keys, weights, biases) with the keys of `full` in its order: `own`'s row where
    it has the key (a half too few frames of a label to fit one does not), else `full`'s."""
    keys, w, b = full
    rows = {k: i for i, k in enumerate(own[0])}
    pick = [(own[1][rows[k]], own[2][rows[k]]) if k in rows else (w[i], b[i]) for i, k in enumerate(keys)]
    if not pick:
        return list(keys), w, b
    return list(keys), torch.stack([p[0] for p in pick]), torch.stack([p[1] for p in pick])


def save_thresholds(artifact_dir: str | os.PathLike, thresholds: dict) -> Path:
    """Write the thresholds beside an artifact (`perception.json`)."""
    return Artifact(artifact_dir).write_json(FILE_NAME, thresholds)


def thresholds_view(thresholds: dict) -> str:
    """The view thresholds were calibrated in (files from before the view existed: the top view's)."""
    return thresholds.get("view", DEFAULT_VIEW)


def load_thresholds(artifact_dir: str | os.PathLike, view: str | None = DEFAULT_VIEW) -> dict:
    """The thresholds saved beside an artifact, or {} (every answer unsure) when there are none. A
    calibration of another view than `view` (None: any) is a ValueError: a band fitted on frames
    from above says nothing about first-person frames, nor the other way round."""
    thresholds = Artifact(artifact_dir).read_json(FILE_NAME)
    if view is not None and thresholds and thresholds_view(thresholds) != check_view(view):
        raise ValueError(f"{Artifact(artifact_dir).file(FILE_NAME)} was calibrated in the "
                         f"{thresholds_view(thresholds)} view, not the {view} view; calibrate it again in the "
                         f"{view} view (the pipeline's perception stage with --view {view})")
    return thresholds


def saved_percipient(artifact: str, view: str, head: bool = True) -> Percipient:
    """The artifact's Percipient as fitted and saved in `view`: its thresholds and, with `head` (and a
    model whose patches are the simulator's tiles, `head.supports`), its head."""
    from mineclip.reward import RewardModel

    from .head import load_head, supports

    rm = RewardModel.load(artifact)
    return Percipient(rm, load_thresholds(artifact, view), load_head(artifact, rm, view) if head and supports(rm) else None)
