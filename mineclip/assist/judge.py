"""The learned judge of a command: the MineCLIP reward of the recorded frames with the command's
own words as the prompt (the paper's rule: score = mean step reward of `direct` mode), against the
suite's prompts and the narrator's scene captions (`mineclip.tasks.negatives`, policy `scene`)
minus the prompts of suite tasks that ask for the same thing (which would compete with a correct
command).

It reports a **score** beside the ground truth, not a verdict: on held-out commands, score >
threshold agreed with the ground truth less often than always answering the commoner label
(`HELD_OUT`; `earns_verdict` is the bar, which `bench/assist.py` checks again on each run). The
threshold it is read against is calibrated per model by `mineclip assist calibrate` (stored with the artifact, in judge.json's `commands` section beside `mineclip
eval --calibrate`'s per-task thresholds) or given; without either it is 0 ("above chance": the
command's probability rose above 1/N in some window).

The same model ranks descriptions of the current view for "what do you see" (`describe_view`).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .intent import FIGHTS, Intent

COMMANDS = "commands"  # judge.json section of the commands' threshold
# the held-out measurement that decided the judge reports a score, not a verdict (docs/assist.md):
# 396 (frames, text) pairs of the hand-written test commands, artifact of 2026-11-25, its dev-calibrated threshold
HELD_OUT = {"measured": "2026-11-25", "pairs": 396, "auc": 0.642, "agreement": 0.556, "majority_agreement": 0.591}


def earns_verdict(agreement: float, majority_agreement: float) -> bool:
    """Whether score > threshold may be called a verdict: only when, on held-out commands, it agrees with
    the ground truth more often than always answering the commoner label does."""
    return agreement > majority_agreement


@dataclass
class CommandScore:
    """The judge's score of one command's frames, with the threshold it would be read against."""

    score: float
    threshold: float
    rule: str
    prompt: str
    negatives: int
    frames: int

    def to_dict(self) -> dict:
        return asdict(self)


def intent_atoms(intent: Intent) -> set[str]:
    """The suite's atoms a command asks for (to keep tasks that ask the same out of the negatives)."""
    a, t = intent.action, intent.thing
    atoms: set[str] = set()
    if a == "MOVE" and intent.target is not None and intent.target.kind:
        atoms.add(f"find_{intent.target.kind}")
    elif a in ("COLLECT", "DESTROY") and t:
        atoms.add(f"collect_{t}")
    elif a == "BUILD" and t:
        atoms |= {"place_stone", "find_water"} if intent.shape == "BRIDGE" else {f"place_{t}"}
    elif a == "DIG":
        atoms.add("collect_stone")
    elif a == "FILL":
        atoms.add("place_stone")
    elif a == "CRAFT" and t:
        atoms.add(f"make_{t}")
    elif a == "FIGHT" and t:
        atoms |= {FIGHTS[t], f"hit_{t}"}
    elif a == "EAT":
        atoms.add("eat_plant" if t == "plant" else "eat_cow")
    elif a == "DRINK":
        atoms.add("collect_drink")
    elif a == "SLEEP":
        atoms |= {"sleep", "wake_up"}
    return atoms


@lru_cache(maxsize=1)
def _task_roots() -> dict[str, set[str]]:
    from mineclip.tasks.pretasks import task_graph
    from mineclip.tasks.registry import list_tasks

    return {t.prompt: set(task_graph(t).roots) for t in list_tasks()}


def negatives_for_command(prompt: str, atoms: set[str]) -> list[str]:
    """The scene negatives of a prompt without the suite prompts that ask for one of `atoms`."""
    from mineclip.tasks.negatives import negatives_for

    same = {p for p, roots in _task_roots().items() if roots & atoms}
    return [n for n in negatives_for(prompt, "scene") if n not in same]


def calibrated_threshold(artifact_dir: str | os.PathLike | None, mode: str = "direct") -> float | None:
    """The threshold `mineclip assist calibrate` saved with an artifact, or None; one calibrated
    under another reward formula than `mode` is refused (ValueError naming both)."""
    from mineclip.model.artifact import read_judge

    if artifact_dir is None:  # a judge built from a reward model in memory: nothing saved with it
        return None
    entry = read_judge(artifact_dir).get(COMMANDS)
    if not entry:
        return None
    if entry.get("mode", "direct") != mode:
        raise ValueError(f"{artifact_dir}: the judge's threshold for commands was calibrated with the "
                         f"{entry.get('mode', 'direct')!r} reward, not {mode!r}: calibrate again (mineclip assist "
                         "calibrate) or give --judge-threshold")
    return float(entry["threshold"])


def save_calibration(artifact_dir: str | os.PathLike, threshold: float, info: dict) -> Path:
    """Save the commands' calibrated threshold with the artifact (judge.json, section `commands`),
    keeping what else the file holds (the per-task thresholds of `mineclip eval --calibrate`)."""
    from mineclip.model.artifact import CONFIG, Artifact

    if not (Path(artifact_dir) / CONFIG).is_file():
        raise ValueError(f"{artifact_dir} is not an exported artifact directory: a calibrated threshold is saved "
                         "with the artifact it belongs to")
    return Artifact(artifact_dir).write_judge_section(COMMANDS, {"threshold": float(threshold), **info})


class CommandJudge:
    """Scores recorded frames against a command with a MineCLIP reward model."""

    def __init__(self, reward_model, threshold: float | None = None, source: str = "given",
                 artifact_dir: str | os.PathLike | None = None, mode: str | None = None):
        from mineclip.model.artifact import Artifact, JudgeSettings

        self.rm = reward_model
        # the reward formula: the artifact's judge settings, as `mineclip eval`'s and the labelling app's
        settings = Artifact(artifact_dir).judge_settings() if artifact_dir is not None else JudgeSettings()
        self.mode = settings.override(mode=mode).mode
        if threshold is None:  # the one saved with the artifact, if any
            threshold, source = calibrated_threshold(artifact_dir, self.mode), "calibrated"
        if threshold is None:
            threshold, source = 0.0, "above chance (uncalibrated)"
        self.threshold, self.rule = float(threshold), source

    @classmethod
    def load(cls, artifact_dir: str | os.PathLike, threshold: float | None = None) -> CommandJudge:
        """A judge from an exported artifact (`mineclip export`)."""
        from mineclip.reward import RewardModel

        return cls(RewardModel.load(artifact_dir), threshold, "given" if threshold is not None else "", artifact_dir)

    def score(self, prompt: str, frames: np.ndarray, atoms: set[str]) -> tuple[float, int]:
        """(mean step reward of the frames for the prompt, number of negatives)."""
        negatives = negatives_for_command(prompt, atoms)
        fn = self.rm.reward_fn(prompt, negatives, mode=self.mode)
        return float(fn.trajectory(frames).step_rewards.mean()), len(negatives)

    def score_command(self, prompt: str, frames: np.ndarray, atoms: set[str]) -> CommandScore:
        """The score of a command's frames (at least two: the first is the command's start)."""
        score, n = self.score(prompt, frames, atoms)
        return CommandScore(score, self.threshold, self.rule, prompt, n, len(frames))

    def describe_view(self, frames: np.ndarray, k: int = 3) -> list[tuple[str, float]]:
        """The `k` scene captions the model finds most like the latest window of frames, with probabilities."""
        import torch

        from mineclip.tasks.scenes import IDLE, VIEW, VIEW_NEAR

        captions = list(dict.fromkeys(IDLE + [c for cs in {**VIEW, **VIEW_NEAR}.values() for c in cs]))
        window = frames[self.rm.window_indices(len(frames) - 1)[0].numpy()]  # the latest window, as the reward sees it
        with torch.inference_mode():
            feats = self.rm.frame_features(window)[None]
            probs = self.rm.window_logits(feats, self.rm.text_features(captions)).softmax(-1)[0]
        top = probs.argsort(descending=True)[:k]
        return [(captions[int(i)], float(probs[i])) for i in top]
