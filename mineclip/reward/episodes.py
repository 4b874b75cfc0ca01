"""The reward of N environments' episodes, written once: the core every wrapper hands its work to.

`RewardTracker` encodes each step's frames (`StepEncoder`: one forward for the N newest frames and
the first frames of the episodes that restart in that step), keeps every env's window (a
`RewardStream`), counts the episodes (returns, lengths, the running scale of the learned reward),
restarts envs as their vector API autoresets them, combines the learned reward with the env's, and
builds the info payload. The wrappers are shells, as stable-baselines3's `VecFrameStack` is over
`StackedObservations`: they get frames out of observations (`mineclip.reward.frames`), hand them
to the tracker and put its payload where their API wants it: `MineCLIPReward` and
`MineCLIPRewardVec` (gymnasium, `mineclip.reward.wrappers`), `MineCLIPVecEnvReward`
(stable-baselines3, `mineclip.reward.sb3`) and `FrameFeatures` (the policy's input, which reads the
same features: `mineclip.rl.features`).

Autoreset, how an env's next episode starts (`AUTORESETS`):
    "none"       the caller restarts ended envs with `reset(frames, ids)` (a single gymnasium env,
                 gymnasium's DISABLED mode)
    "same-step"  the step that ends an episode returns the next one's first frame, and the ended
                 episode's last frame beside it (stable-baselines3's `terminal_observation`,
                 gymnasium's SAME_STEP `final_obs`): the last frame is scored, the first starts the
                 env's next window
    "next-step"  the step after an episode ended only restarts the env: its frame is the next
                 episode's first and its learned reward 0 (gymnasium's NEXT_STEP, its default)

Info schema (one for every shell):
    info["mineclip"]          {"reward": learned reward, "prob": P of the prompt,
                               "logits": [K] (prompt first, then the negatives), "env_reward": the env's own}
    info["mineclip_episode"]  at an episode's last step: {"return": sum of learned rewards,
                               "length": steps, "scale": running {"steps", "mean", "std", "min", "max"}
                               over all steps so far, "num_prompts": K}
A single env's info holds these dicts (`TrackedStep.payload(0)`); stable-baselines3's infos hold one
per env (`payload(i)`); a gymnasium vector env's info holds them with arrays over envs as values (its
convention), beside boolean masks `_mineclip` and `_mineclip_episode` that say which envs hold an
entry (`vector_payload()`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from .reward import RewardModel, WindowedReward

log = logging.getLogger(__name__)

COMBINES = ("add", "replace")
AUTORESETS = ("none", "same-step", "next-step")


class RunningStats:
    """Mean, std, min and max of the learned reward over every step seen (to log its scale); the
    moments are gymnasium's `RunningMeanStd` (the one stable-baselines3 and NormalizeReward use)."""

    def __init__(self):
        from gymnasium.wrappers.utils import RunningMeanStd

        self.moments = RunningMeanStd(shape=())
        self.n, self.min, self.max = 0, math.inf, -math.inf

    def update(self, values) -> None:
        x = np.atleast_1d(np.asarray(values, dtype=np.float64))
        if x.size:
            self.moments.update(x)
            self.n += int(x.size)
            self.min, self.max = min(self.min, float(x.min())), max(self.max, float(x.max()))

    def summary(self) -> dict:
        if not self.n:
            return {"steps": 0, "mean": 0.0, "std": 0.0, "min": 0.0, "max": 0.0}
        return {"steps": self.n, "mean": float(self.moments.mean), "std": float(np.sqrt(self.moments.var)),
                "min": self.min, "max": self.max}


# --------------------------------------------------------------------------- encoding a step's frames
@dataclass
class EncodedStep:
    """The features of one vector step: each env's own frame of the step (an ended episode's last
    frame), and the first frames of the episodes that start with this step. A reset's are those of
    its first frames only (`features` is `start_features`)."""

    features: torch.Tensor  # [N, F]
    started: np.ndarray  # env ids whose next episode starts with this step
    start_features: torch.Tensor  # [len(started), F]


class StepEncoder:
    """Each step's frames of N envs encoded in one forward, by `encode` (a reward function's, or the
    frame encoder's), with the autoreset convention of their vector API (module docstring)."""

    def __init__(self, encode: Callable[[np.ndarray], torch.Tensor], num_envs: int, autoreset: str = "none"):
        if autoreset not in AUTORESETS:
            raise ValueError(f"autoreset must be one of {AUTORESETS}, got {autoreset!r}")
        self._encode, self.num_envs, self.autoreset = encode, num_envs, autoreset
        self.pending = np.zeros(num_envs, dtype=bool)  # "next-step": envs whose episode ended at the last step
        self.frames_encoded = 0

    def encode(self, frames) -> torch.Tensor:
        """Features [n, F] of uint8 frames [n, H, W, 3] / [n, 3, H, W] (one forward)."""
        feats = self._encode(frames)
        self.frames_encoded += len(frames)
        return feats

    def reset(self, frames, ids: np.ndarray) -> EncodedStep:
        """Encode the first frames [len(ids), ...] of envs `ids`, whose episodes start."""
        if len(frames) != len(ids):
            raise ValueError(f"expected frames for {len(ids)} env(s), got {len(frames)}")
        self.pending[ids] = False
        feats = self.encode(frames)
        return EncodedStep(feats, ids, feats)

    def step(self, frames, done, final_frames=None) -> EncodedStep:
        """Encode a step's frames [N, ...] (those of the observations it returned); `final_frames`
        [n_done, ...]: with autoreset "same-step", the last frames of the episodes that ended, in env order."""
        frames, done = np.asarray(frames), np.asarray(done, dtype=bool)
        if len(frames) != self.num_envs:
            raise ValueError(f"expected frames for {self.num_envs} env(s), got {len(frames)}")
        if self.autoreset == "same-step" and done.any():
            started = np.flatnonzero(done)
            final = [] if final_frames is None else final_frames
            if len(final) != len(started):
                raise ValueError(f"autoreset 'same-step': expected the last frames of the {len(started)} ended "
                                 f"episode(s), got {len(final)}")
            own = frames.copy()
            own[started] = np.asarray(final)
            feats = self.encode(np.concatenate([own, frames[started]]))  # one forward for both
            return EncodedStep(feats[: self.num_envs], started, feats[self.num_envs:])
        feats = self.encode(frames)
        started = np.flatnonzero(self.pending) if self.autoreset == "next-step" else np.empty(0, dtype=np.int64)
        if self.autoreset == "next-step":
            self.pending = done.copy()
        return EncodedStep(feats, started, feats[torch.as_tensor(started)])


# --------------------------------------------------------------------------- the tracker
@dataclass
class TrackedStep:
    """One step (or the start) of envs: the reward to return, the learned reward and its parts, the
    features the frames were encoded to, and the episodes that ended; arrays are over all N envs
    (0 for envs the step does not concern: `mask`)."""

    reward: np.ndarray  # [N] float64, env reward combined with the learned one
    learned: np.ndarray  # [N] float64 (0 for envs this step only restarted)
    prob: np.ndarray  # [N]
    logits: np.ndarray  # [N, K]
    env_reward: np.ndarray  # [N] float64
    mask: np.ndarray  # [N] bool: the envs this step concerns (all, or those a reset started)
    encoded: EncodedStep  # the features of the frames (what FrameFeatures gives the policy)
    episodes: dict[int, dict] = field(default_factory=dict)  # env -> its ended episode's summary

    def info(self, i: int) -> dict:
        """The `mineclip` payload of env i."""
        return {"reward": float(self.learned[i]), "prob": float(self.prob[i]), "logits": self.logits[i],
                "env_reward": float(self.env_reward[i])}

    def payload(self, i: int) -> dict:
        """What env i's info gets: "mineclip", and "mineclip_episode" when its episode ended here."""
        out = {"mineclip": self.info(i)}
        if i in self.episodes:
            out["mineclip_episode"] = self.episodes[i]
        return out

    def vector_payload(self) -> dict:
        """What a gymnasium vector env's info gets: arrays over envs beside their `_` masks."""
        out = {"mineclip": {"reward": self.learned, "prob": self.prob, "logits": self.logits,
                            "env_reward": self.env_reward},
               "_mineclip": self.mask.copy()}
        if self.episodes:
            n = len(self.mask)
            ended, returns, lengths = np.zeros(n, dtype=bool), np.zeros(n), np.zeros(n, dtype=np.int64)
            for i, ep in self.episodes.items():
                ended[i], returns[i], lengths[i] = True, ep["return"], ep["length"]
            first = next(iter(self.episodes.values()))
            out["mineclip_episode"] = {"return": returns, "length": lengths, "scale": first["scale"],
                                       "num_prompts": first["num_prompts"]}
            out["_mineclip_episode"] = ended
        return out


class RewardTracker:
    """The learned reward of N envs' episodes (module docstring): `reset` starts episodes from their
    first frames, `step` scores a step's frames; both return a `TrackedStep` with the info payload.

    combine="add": env reward + coef * learned reward (the paper's setup when the env reward is the
    sparse success bonus); "replace": coef * learned reward only. `autoreset`: how the envs' next
    episodes start ("none", "same-step", "next-step": module docstring).
    """

    def __init__(self, fn: WindowedReward, num_envs: int, combine: str = "add", coef: float = 1.0,
                 autoreset: str = "none"):
        if combine not in COMBINES:
            raise ValueError(f"combine must be one of {COMBINES}, got {combine!r}")
        self.fn, self.num_envs, self.combine, self.coef = fn, num_envs, combine, coef
        self.encoder = StepEncoder(fn.encode, num_envs, autoreset)
        self.stream = fn.stream(num_envs)
        self.stats = RunningStats()
        self.returns = np.zeros(num_envs)
        self.lengths = np.zeros(num_envs, dtype=np.int64)

    @property
    def autoreset(self) -> str:
        return self.encoder.autoreset

    @property
    def frames_encoded(self) -> int:
        return self.encoder.frames_encoded

    def reset(self, frames, ids: Sequence[int] | None = None) -> TrackedStep:
        """Start the episodes of envs `ids` (default all) from their first frames [len(ids), ...]."""
        ids = np.arange(self.num_envs) if ids is None else np.asarray(ids, dtype=np.int64)
        encoded = self.encoder.reset(frames, ids)
        out = self._start(ids, encoded.start_features)
        n, zeros = self.num_envs, np.zeros(self.num_envs)
        prob = np.zeros(n, dtype=np.float32)
        logits = np.zeros((n, out.logits.shape[-1]), dtype=np.float32)
        prob[ids], logits[ids] = out.prob.float().cpu().numpy(), out.logits.float().cpu().numpy()
        return TrackedStep(zeros, zeros.copy(), prob, logits, zeros.copy(), np.isin(np.arange(n), ids), encoded)

    def _start(self, ids: np.ndarray, feats: torch.Tensor):
        self.returns[ids] = 0.0
        self.lengths[ids] = 0
        return self.stream.reset_features(feats, ids)

    def step(self, frames, env_reward, done, final_frames=None) -> TrackedStep:
        """Score one step: `frames` [N, ...] of the observations it returned, each env's reward and
        whether its episode ended; `final_frames`: with autoreset "same-step", the ended episodes'
        last frames (`StepEncoder.step`). Ended envs without autoreset wait for `reset`."""
        encoded = self.encoder.step(frames, done, final_frames)
        out = self.stream.step_features(encoded.features)
        # copied out now: a reward's P may be a view of the window cache, which restarts below
        learned = out.reward.float().cpu().numpy().astype(np.float64)
        prob, logits = out.prob.float().cpu().numpy().copy(), out.logits.float().cpu().numpy().copy()
        restarted = np.zeros(self.num_envs, dtype=bool)  # envs whose step only restarted them
        if self.autoreset == "next-step" and len(encoded.started):
            restarted[encoded.started] = True
            self.stream.reset_features(encoded.start_features, encoded.started)
            learned[encoded.started] = 0.0
        counted = ~restarted
        self.stats.update(learned[counted])
        self.returns[counted] += learned[counted]
        self.lengths[counted] += 1
        env_reward = np.asarray(env_reward, dtype=np.float64)
        ended = np.asarray(done, dtype=bool) & counted
        episodes = {int(i): {"return": float(self.returns[i]), "length": int(self.lengths[i]),
                             "scale": self.stats.summary(), "num_prompts": self.fn.num_prompts}
                    for i in np.flatnonzero(ended)}
        for i, episode in episodes.items():
            log.debug("MineCLIP episode of env %d: %s", i, episode)
        self.returns[restarted], self.lengths[restarted] = 0.0, 0
        if self.autoreset == "same-step" and len(encoded.started):
            self._start(encoded.started, encoded.start_features)
        reward = env_reward + self.coef * learned if self.combine == "add" else self.coef * learned
        return TrackedStep(reward, learned, prob, logits, env_reward, np.ones(self.num_envs, dtype=bool), encoded,
                           episodes)


def make_tracker(reward: WindowedReward | None, reward_model=None, prompt: str | None = None,
                 negatives: Sequence[str] | None = None, mode: str = "direct", combine: str = "add",
                 coef: float = 1.0, num_envs: int = 1, precision: str | None = None,
                 autoreset: str = "none") -> RewardTracker:
    """The tracker of a wrapper: from a reward function, or from a RewardModel (or an artifact
    directory, loaded at `precision`: auto / bf16 / fp32, None = $MINECLIP_PRECISION or auto), a
    prompt and its negatives."""
    if reward is None:
        if reward_model is None or prompt is None or negatives is None:
            raise ValueError("pass reward=RewardFunction, or reward_model= (RewardModel or artifact dir), prompt= "
                             "and negatives=")
        if not isinstance(reward_model, RewardModel):
            reward_model = RewardModel.load(reward_model, precision=precision)
        reward = reward_model.reward_fn(prompt, negatives, mode)
    return RewardTracker(reward, num_envs, combine, coef, autoreset)
