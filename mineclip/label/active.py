"""Active labelling: score every trajectory of the set with an exported artifact (the judge's score:
mean step reward), find each task's threshold (the artifact's calibrated one, else the paper's
K-means threshold over the task's scores) and show first the trajectories nearest it, where a
person's label tells the most about the judge.

The distance to the threshold is divided by the distance between the task's two K-means
centroids, so that tasks with different score ranges interleave fairly. Scores are cached beside
the labels file (`OUT.scores.json`), keyed by the artifact, reward mode, negatives and video.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from mineclip.data.video import DecodeLimits
from mineclip.evaluate.thresholds import Calibration, classify, kmeans_2
from mineclip.model.artifact import Artifact

from .items import LabelSet

SCORE_RULE = "mean"
# what judging one trajectory may decode: the default caps (frames, pixels, bytes at the model's input
# size, to which frames are scaled as they come) and ten minutes
JUDGE_LIMITS = DecodeLimits(timeout=600.0)


@dataclass
class JudgeView:
    """The judge's view of a set: score, margin and verdict per item id, threshold per task."""

    artifact: str
    scores: dict[str, float]
    margins: dict[str, float]
    preds: dict[str, int]
    thresholds: dict[str, dict]  # task -> {"threshold", "spread", "source"}
    failed: dict[str, str] = field(default_factory=dict)  # item id -> why it could not be scored

    def order(self, ids: Sequence[str]) -> list[str]:
        """The ids nearest the threshold first (unscored ones last, in set order)."""
        return [ids[i] for i in active_order([self.margins.get(i) for i in ids])]


def random_order(ids: Sequence[str]) -> list[str]:
    """The ids shuffled by a hash of each (the same order in every session): for an unbiased sample."""
    return sorted(ids, key=lambda i: hashlib.sha256(i.encode("utf-8")).hexdigest())


def active_order(margins: Sequence[float | None]) -> list[int]:
    """Indices by increasing margin (ties and unscored items (None, last) in their given order)."""
    return sorted(range(len(margins)), key=lambda i: (margins[i] is None, margins[i] or 0.0, i))


def task_thresholds(tasks: Sequence[str], scores: Sequence[float], calibrated: dict | None = None
                    ) -> dict[str, dict]:
    """task -> threshold (calibrated for the score rule where known, else K-means), centroid spread,
    source; `calibrated`: task -> {rule: threshold} (`Calibration.thresholds_for`)."""
    by_task: dict[str, list[float]] = {}
    for t, s in zip(tasks, scores):
        by_task.setdefault(t, []).append(float(s))
    out = {}
    for task, s in by_task.items():
        lo, hi = kmeans_2(s)
        known = ((calibrated or {}).get(task) or {}).get(SCORE_RULE)
        threshold, source = (float(known), "calibrated") if known is not None else ((lo + hi) / 2, "kmeans")
        out[task] = {"threshold": threshold, "spread": (hi - lo) if hi > lo else 1.0, "source": source}
    return out


def margins(tasks: Sequence[str], scores: Sequence[float], calibrated: dict | None = None
            ) -> tuple[list[float], list[int], dict[str, dict]]:
    """Per item: |score - threshold| / spread and the judge's verdict; and the thresholds per task."""
    th = task_thresholds(tasks, scores, calibrated)
    m = [abs(s - th[t]["threshold"]) / th[t]["spread"] for t, s in zip(tasks, scores)]
    preds = [int(classify([s], th[t]["threshold"])[0]) for t, s in zip(tasks, scores)]
    return m, preds, th


def _fingerprint(artifact: Path, mode: str, negatives: str) -> str:
    h = hashlib.sha256()
    for name in ("config.json", "model.safetensors"):
        p = artifact / name
        st = p.stat() if p.exists() else None
        h.update(f"{name}:{st.st_size if st else -1}:{st.st_mtime_ns if st else -1};".encode())
    h.update((artifact / "config.json").read_bytes() if (artifact / "config.json").exists() else b"")
    h.update(f"{artifact.resolve()}|{mode}|{negatives}".encode())
    return h.hexdigest()


def model_input(rm):
    """The resize the reward model does to its input (`to_frames_tensor`), as a transform that
    `load_media` applies to each chunk as it is decoded: the judge then never holds a video at full size."""
    from mineclip.data.video import resize_frames

    size = tuple(rm.resolution)

    def transform(frames):
        return frames if tuple(frames.shape[1:3]) == size else resize_frames(frames, size, aspect=rm.resize)

    return transform


def score_set(label_set: LabelSet, artifact: str | Path, negatives: str = "suite", mode: str = "direct",
              cache: Path | None = None, progress: bool = True) -> tuple[dict[str, float], dict[str, str]]:
    """The judge's score (mean step reward) of every item: ({id: score}, {id: error})."""
    from tqdm import tqdm

    from mineclip.evaluate.run import negatives_of
    from mineclip.evaluate.scoring import Scorer
    from mineclip.tasks.judging import SUITE
    from mineclip.evaluate.trajectories import Trajectory, load_media
    from mineclip.reward import RewardModel

    artifact = Path(artifact)
    key = _fingerprint(artifact, mode, negatives)
    cached = {}
    if cache is not None and cache.is_file():
        try:
            data = json.loads(cache.read_text())
            if data.get("key") == key:
                cached = {k: v for k, v in data.get("scores", {}).items() if isinstance(v, list) and len(v) == 2}
        except (ValueError, OSError):
            cached = {}
    scores, failed = {}, {}
    todo = []
    for it in label_set.items:
        hit = cached.get(it.id)
        if hit and hit[0] == it.media:
            scores[it.id] = float(hit[1])
        else:
            todo.append(it)
    if todo:
        rm = RewardModel.load(artifact)
        negatives_for, _, _ = negatives_of(negatives, list(dict.fromkeys(it.prompt for it in label_set.items)), SUITE)
        scorer = Scorer({"judge": rm}, negatives_for, mode=mode)

        for it in tqdm(todo, desc="scoring the set with the judge", disable=not progress, unit="traj"):
            try:
                frames = load_media(label_set.root / it.media, JUDGE_LIMITS, model_input(rm))
            except Exception as e:  # unreadable video: listed, shown with its error, ordered last
                failed[it.id] = str(e)
                continue
            traj = Trajectory(it.line, it.id, it.task, it.prompt, None, label_set.root / it.media)
            scores[it.id] = float(scorer.score(traj, frames)["judge"].scores[SCORE_RULE])
    if cache is not None and todo:
        media = {it.id: it.media for it in label_set.items}
        tmp = cache.with_name(cache.name + ".tmp")
        tmp.write_text(json.dumps({"key": key, "scores": {k: [media[k], v] for k, v in scores.items()}}))
        os.replace(tmp, cache)
    return scores, failed


def judge_view(label_set: LabelSet, artifact: str | Path, negatives: str | None = None, mode: str | None = None,
               cache: Path | None = None, progress: bool = True) -> JudgeView:
    """Score the set and place every item relative to its task's threshold; `negatives` and `mode`
    default to the artifact's judge settings (as `mineclip eval`'s). Calibrated thresholds fitted
    under other settings are refused (`thresholds.CalibrationMismatch`)."""
    art = Artifact(artifact)
    js = art.judge_settings().override(negatives=negatives, mode=mode)
    calibration = Calibration.from_dict(art.judge().get("calibration"))
    calibrated = calibration.thresholds_for(mode=js.mode, window=art.window, frame_stride=art.frame_stride,
                                            negatives=js.negatives) if calibration else None
    scores, failed = score_set(label_set, artifact, js.negatives, js.mode, cache, progress)
    ids = [it.id for it in label_set.items if it.id in scores]
    tasks = [it.task for it in label_set.items if it.id in scores]
    m, preds, th = margins(tasks, [scores[i] for i in ids], calibrated) if ids else ([], [], {})
    return JudgeView(str(Path(artifact).resolve()), scores, dict(zip(ids, m)), dict(zip(ids, preds)), th, failed)
