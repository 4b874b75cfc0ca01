"""The Percipient: the learned model asked about one condition at a time, with an unsure band.

`perceive(frames, conditions)` scores each condition's text against its minimal-pair alternatives
(softmax over [text, *alternatives]) on the latest ego-view frames, or, for the conditions a
trained head knows (`mineclip.perception.head`: read-outs of the frozen frame encoder fitted on
labelled frames, as MP5's Percipient is trained), takes the head's P on the newest frame. It turns
the probability into a decision with the thresholds fitted on training worlds
(`mineclip.perception.calibrate`): `yes` at or above `hi`, `no` at or below `lo`, `unsure` in
between. A condition the thresholds do not
know (never calibrated, so never trained for), or one that a frame cannot show (events, the
inventory), is always `unsure`: the Percipient abstains instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from mineclip.sim.engine import FRAME_SIZE
from mineclip.sim.view import DEFAULT_VIEW

from .conditions import Condition, check_conditions, describe, minimal_pairs

DECISIONS = ("yes", "no", "unsure")
WHOLE = "whole"  # the thresholds' key of the whole-prompt (one-shot) question
FRAME_HW = (FRAME_SIZE[1], FRAME_SIZE[0])  # the simulator's frames, [160, 256]


@dataclass
class Answer:
    """The Percipient's answer about one condition."""

    condition: Condition | None  # None: the whole prompt at once
    prob: float
    decision: str  # yes, no, unsure
    why: str = ""  # for unsure: below hi and above lo, not calibrated, not visible in a frame

    def to_dict(self) -> dict:
        return {"condition": self.condition.key if self.condition else WHOLE, "prob": round(self.prob, 4),
                "decision": self.decision, **({"why": self.why} if self.why else {})}


def decide(prob: float, band: dict | None) -> tuple[str, str]:
    """(decision, why) from a probability and a key's fitted band {lo, hi} (null: that side never)."""
    if not band:
        return "unsure", "not calibrated (the model was not fitted for this condition)"
    if np.isnan(prob):
        return "unsure", "no probability"
    lo, hi = band.get("lo"), band.get("hi")
    if hi is not None and prob >= hi:
        return "yes", ""
    if lo is not None and prob <= lo:
        return "no", ""
    return "unsure", f"P {prob:.3f} in the unsure band ({lo}, {hi})"


def band_for(thresholds: dict, key: str, source: str) -> dict | None:
    """A key's fitted band, when it was fitted on P from `source` ("head" or "text"; bands of older
    files, without "by", were fitted on words): a band says nothing about P from the other source."""
    band = (thresholds.get("conditions") or {}).get(key)
    return band if band and band.get("by", "text") == source else None


def as_frames(frames) -> np.ndarray:
    """uint8 ego-view frames [T, 160, 256, 3] (one frame [160, 256, 3] is T = 1); else a ValueError."""
    x = np.asarray(frames)
    if x.ndim == 3:
        x = x[None]
    if x.dtype != np.uint8 or x.ndim != 4 or tuple(x.shape[1:]) != (*FRAME_HW, 3) or len(x) == 0:
        raise ValueError(f"expected uint8 frames [T, {FRAME_HW[0]}, {FRAME_HW[1]}, 3] from the simulator, "
                         f"got {x.dtype} {list(x.shape)}")
    return x


class Percipient:
    """A reward model (`mineclip.reward.RewardModel`) asked about conditions; `thresholds` as
    `calibrate.fit_thresholds` makes them (empty: every answer is unsure). With a `head`
    (`mineclip.perception.head`), the conditions it knows are answered by its read-outs of the
    newest frame instead of in words; each band says which of the two it was fitted on. The
    thresholds and the head are of one view (`mineclip.sim.view`: what the frames it is asked
    about show); a head and thresholds of different views are a ValueError."""

    def __init__(self, reward_model, thresholds: dict | None = None, head=None):
        self.rm = reward_model
        self.thresholds = thresholds or {}
        self.head = head
        calibrated = self.thresholds.get("view", DEFAULT_VIEW) if self.thresholds else None
        if head is not None and calibrated is not None and calibrated != head.view:
            raise ValueError(f"thresholds calibrated in the {calibrated} view with a head fitted in the "
                             f"{head.view} view: a Percipient reads frames of one view")

    @property
    def view(self) -> str | None:
        """The view its head and thresholds were fitted in (None: neither, nothing fitted yet)."""
        if self.head is not None:
            return self.head.view
        return self.thresholds.get("view", DEFAULT_VIEW) if self.thresholds else None

    def source(self, c: Condition | None) -> str:
        """Where a condition's P comes from: "head" (the trained read-out) or "text" (its words; also
        for None, a task's prompt)."""
        return "head" if self.head is not None and c is not None and self.head.knows(c) else "text"

    def band(self, c: Condition) -> dict | None:
        """The condition's fitted band, when it was fitted on P from the same source (`band_for`)."""
        return band_for(self.thresholds, c.key, self.source(c))

    @torch.inference_mode()
    def _window(self, frames) -> torch.Tensor:
        """The model's window [1, W, D] over the newest frames (the first repeated before the start)."""
        x = as_frames(frames)[-self.rm.span:]
        feats = self.rm.frame_features(x)
        return feats[self.rm.window_indices(len(x) - 1)[0].to(feats.device)][None]

    @torch.inference_mode()
    def probs(self, frames, texts: list[list[str]]) -> list[float]:
        """P of each list's first text among the list, on one window of the newest frames."""
        if not texts:
            return []
        video = self.rm.model.aggregate(self._window(frames))  # one window, scored against every text at once
        flat = [t for group in texts for t in group]
        logits = self.rm.model.score(video, self.rm.text_features(flat))[0]
        out, i = [], 0
        for group in texts:
            out.append(float(logits[i:i + len(group)].softmax(-1)[0]))
            i += len(group)
        return out

    @torch.inference_mode()
    def frame_probs(self, frames, texts: list[list[str]], features: torch.Tensor | None = None) -> np.ndarray:
        """P [N, groups] on each of N frames alone (the frame held for a whole window), in batches;
        `features`: the frames' embedding [N, D] when the caller has it already."""
        x = as_frames(frames)
        feats = self.rm.frame_features(x) if features is None else features  # [N, D]
        flat = [t for group in texts for t in group]
        text = self.rm.text_features(flat)
        out = np.zeros((len(x), len(texts)))
        for i in range(0, len(x), self.rm.batch_size):
            f = feats[i:i + self.rm.batch_size]
            video = self.rm.model.aggregate(f[:, None].expand(-1, self.rm.window, -1))
            logits = self.rm.model.score(video, text)
            j = 0
            for g, group in enumerate(texts):
                out[i:i + len(f), g] = logits[:, j:j + len(group)].softmax(-1)[:, 0].float().cpu().numpy()
                j += len(group)
        return out

    def condition_probs(self, frames, conditions: list[Condition]) -> np.ndarray:
        """P [N, C] of each condition on each of N frames alone: the head's where it knows the
        condition, else its text among its minimal pairs (the frame held for a whole window);
        NaN for a condition a frame cannot show."""
        x = as_frames(frames)
        out = np.full((len(x), len(conditions)), np.nan)
        by_head = [j for j, c in enumerate(conditions) if self.source(c) == "head"]
        feats = None  # the embedding, when the head's pass computed it (one encoder pass for both)
        if by_head:
            feats, out[:, by_head] = self.head.frame_probs(self.rm, x, [conditions[j] for j in by_head])
        by_text = [j for j, c in enumerate(conditions)
                   if j not in by_head and c.perceivable and c.alternative_texts()]
        if by_text:
            out[:, by_text] = self.frame_probs(x, [[conditions[j].text, *conditions[j].alternative_texts()]
                                                   for j in by_text], features=feats)
        return out

    def perceive(self, frames, conditions: list[Condition]) -> list[Answer]:
        """One answer per condition: P (the head's on the newest frame, or its text against its
        minimal pairs on the window of the newest frames), decided by its band."""
        check_conditions(conditions)
        by_head = [c for c in conditions if self.source(c) == "head"]
        asked = [c for c in conditions if c not in by_head and c.perceivable and c.alternative_texts()]
        probs = dict(zip(asked, self.probs(frames, [[c.text, *c.alternative_texts()] for c in asked])))
        if by_head:
            probs |= dict(zip(by_head, self.head.probs(self.rm, as_frames(frames)[-1:], by_head)[0]))
        answers = []
        for c in conditions:
            if c not in probs:
                answers.append(Answer(c, float("nan"), "unsure", "not visible in a frame"))
                continue
            answers.append(Answer(c, float(probs[c]), *decide(float(probs[c]), self.band(c))))
        return answers

    def perceive_whole(self, frames, conditions: list[Condition]) -> Answer:
        """One answer for all conditions at once: the composed description against its minimal pairs."""
        pairs = minimal_pairs(conditions)
        if not pairs:
            return Answer(None, float("nan"), "unsure", "no minimal pairs to score against")
        (prob,) = self.probs(frames, [[describe(conditions), *pairs]])
        return Answer(None, prob, *decide(prob, (self.thresholds.get(WHOLE) or None)))

