"""A reward by conditions: each condition's text scored against its own negatives, the per-condition
probabilities combined by a soft AND.

For conditions i = 1..C with probabilities P_i (softmax of condition i's text among itself and
its N_i - 1 negatives, on the same window), the combined probability is

    geomean   P = (P_1 * ... * P_C) ** (1 / C)                         (the default)
    softmin   P = -tau * log(mean_i exp(-P_i / tau))                    (tau = 0.05)

Both are 1 only when every P_i is 1 and fall with the weakest condition: one condition at 0 pulls
the geometric mean to 0, and the soft minimum sits between the minimum and the mean, near the
minimum for small tau. The reward formulas apply to P as to a single prompt's, with the chance level
of the combination in place of 1/N: direct `max(P - soft_and(1/N_i), 0)`, direct-naive `P`, delta
`P_t - P_{t-1}`, progress direct's gain over the episode's best. Like `RewardFunction`, it takes the
texts and negatives it is given (for the task suite: `mineclip.perception.condition_judge.task_reward`),
and streams through the same cached window (`stream(num_envs)`: one frame encoding per env step,
per-condition P in `StepRewards.logits`).

With the Percipient's trained head (`mineclip.perception.head`; a condition given as `(text,
negatives, condition)` that the head knows), that condition's P_i is the head's P on the window's
newest frame (`near` read from where the tiles are), with chance level 0 in the combination's:
a calibrated read-out of whether the condition holds, with no competing texts to share P with.
`encode` then gives, per frame, the embedding followed by the head's P of those conditions, from
one pass of the frame encoder, and that is what a stream caches. This is the judge by conditions'
score (`mineclip.perception.condition_judge`), step by step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from .reward import MODES, TrajectoryRewards, WindowedReward, progress_reward, reward_from_probs

COMBINE = ("geomean", "softmin")
TAU = 0.05


def soft_and(probs, how: str = "geomean", tau: float = TAU):
    """Combine per-condition probabilities [..., C] into one [...] (see the module docstring)."""
    p = torch.as_tensor(np.asarray(probs, dtype=np.float64) if not isinstance(probs, torch.Tensor) else probs)
    if p.shape[-1] == 0:
        raise ValueError("expected at least one condition to combine, got none")
    if how == "geomean":
        return p.clamp(min=1e-12).log().mean(-1).exp()
    if how == "softmin":
        return -tau * ((-p / tau).exp().mean(-1)).log()
    raise ValueError(f"soft AND must be one of {COMBINE}, got {how!r}")


class FactoredRewardFunction(WindowedReward):
    """The reward of several conditions, each `(text, negatives)` or `(text, negatives, condition)`,
    combined by a soft AND; with a `head`, the conditions it knows take its P (module docstring).
    `head` is duck-typed: anything with `knows(condition)` and `frame_probs(rm, frames, conditions,
    near)`, such as `mineclip.perception.head.PerceptionHead`; nothing from perception is imported."""

    first_steps = "repeat"  # windows before the span is full repeat the first frame, as RewardFunction's default

    def __init__(self, reward_model, conditions: Sequence[tuple], mode: str = "direct", combine: str = "geomean",
                 head=None):
        if mode not in MODES:
            raise ValueError(f"reward mode must be one of {MODES}, got {mode!r}")
        if combine not in COMBINE:
            raise ValueError(f"soft AND must be one of {COMBINE}, got {combine!r}")
        if not conditions:
            raise ValueError("expected at least one (text, negatives) condition, got none")
        self.groups, self.by_head, self.sources, chances = [], [], [], []
        for item in conditions:
            text, negatives, condition = (*item, None)[:3]
            if head is not None and condition is not None and head.knows(condition):
                self.by_head.append(condition)
                self.sources.append("head")
                chances.append(0.0)
                continue
            negs = [n for n in dict.fromkeys(negatives) if n != text]
            if not negs:
                raise ValueError(f"condition {text!r}: expected at least one negative; P would always be 1")
            self.groups.append([text, *negs])
            self.sources.append("text")
            chances.append(1.0 / len(self.groups[-1]))
        self.rm, self.mode, self.combine, self.head = reward_model, mode, combine, head
        self.texts = [item[0] for item in conditions]
        self.text_features = reward_model.text_features([t for g in self.groups for t in g]) if self.groups else None
        self.chance = float(soft_and(torch.tensor(chances), combine))
        # columns of the conditions each source answers, in condition order
        self._text_cols = [j for j, src in enumerate(self.sources) if src == "text"]
        self._head_cols = [j for j, src in enumerate(self.sources) if src == "head"]

    @property
    def feature_dim(self) -> int:
        """Width of what `encode` gives per frame: the embedding, then one P per head condition."""
        return self.rm.model.config.embed_dim + len(self.by_head)

    @property
    def num_prompts(self) -> int:
        """Texts scored per window (every text condition's text and negatives)."""
        return sum(len(g) for g in self.groups)

    def describe(self) -> dict:
        """Settings worth logging next to the rewards."""
        return {"conditions": self.texts, "by": self.sources, "mode": self.mode, "combine": self.combine,
                "chance_prob": self.chance, "window": self.window, "frame_stride": self.frame_stride,
                "precision": self.rm.precision}

    def encode(self, frames) -> torch.Tensor:
        """Per-frame features [N, feature_dim] of uint8 frames (one pass of the frame encoder)."""
        if not self.by_head:
            return self.rm.frame_features(frames)
        feats, probs = self.head.frame_probs(self.rm, frames, self.by_head, near=True)
        return torch.cat([feats, torch.as_tensor(probs, dtype=feats.dtype).to(feats.device)], -1)

    @torch.inference_mode()
    def condition_probs(self, windows: torch.Tensor) -> torch.Tensor:
        """P of each condition [B, C] for windows of per-frame features [B, W, feature_dim] (`encode`)."""
        d = self.rm.model.config.embed_dim
        out = torch.empty(len(windows), len(self.sources), dtype=torch.float32, device=windows.device)
        if self._text_cols:
            logits = self.rm.window_logits(windows[..., :d], self.text_features)
            i = 0
            for j, g in zip(self._text_cols, self.groups):
                out[:, j] = logits[:, i:i + len(g)].softmax(-1)[:, 0]
                i += len(g)
        if self._head_cols:
            out[:, self._head_cols] = windows[:, -1, d:].float()  # the head's P of the newest frame
        return out

    def score_windows(self, windows: torch.Tensor, lengths: torch.Tensor | None = None):
        """Per-condition P [B, C] and their soft AND [B] for windows of frame features [B, W, D]."""
        per = self.condition_probs(windows)
        return per, soft_and(per, self.combine)

    def rewards(self, probs, prev_probs=None):
        """Rewards from the combined P (one step with `prev_probs`, or along a sequence)."""
        if self.mode == "direct":
            return (probs - self.chance).clamp(min=0.0)
        if self.mode == "progress":
            return progress_reward(probs, self.chance, prev_probs)
        return reward_from_probs(probs, 2, self.mode, prev_probs=prev_probs)

    @torch.inference_mode()
    def trajectory(self, frames) -> TrajectoryRewards:
        """Rewards of a stored trajectory (frame 0 = reset): `prob` the combined P, `logits` the per-condition P."""
        return self.trajectory_from_features(self.encode(frames))

    @torch.inference_mode()
    def trajectory_from_features(self, feats: torch.Tensor) -> TrajectoryRewards:
        """Rewards from per-frame features [T, feature_dim] (`encode`)."""
        t = len(feats)
        windows = feats[self.rm.window_indices(torch.arange(t)).to(feats.device)]  # as RewardFunction
        per = torch.cat([self.condition_probs(windows[i:i + self.rm.batch_size])
                         for i in range(0, t, max(1, self.rm.batch_size))])
        prob = soft_and(per, self.combine)
        reward = self.rewards(prob)
        return TrajectoryRewards(reward.float().cpu().numpy(), prob.float().cpu().numpy(), per.float().cpu().numpy())
