"""Dense rewards from a MineCLIP model (MineDojo paper, sec. 4.2 and appendix F.1).

The agent's latest `window` (16) frames form a clip; the task prompt is scored against N-1
negative prompts; P is the softmax probability of the prompt among the N.

    direct        r_t = max(P_t - 1/N, 0)
    direct-naive  r_t = P_t
    delta         r_t = P_t - P_{t-1}
    progress      r_t = max(D_t - max_{s<t} D_s, 0), D = direct's max(P - 1/N, 0)
                  (not the paper's: Direct's gain over the episode's best so far. An episode pays at
                  most its best Direct minus Direct at reset, so standing near the target earns
                  nothing after the first step there, and nothing is taken back when it leaves the
                  view; docs/rl.md measures it against Direct)

First steps of an episode (policy "repeat", the default): the reset frame fills the whole window,
as if the agent had stood still for `window` steps before the episode began. Every clip the model
sees is then a full-length clip of real frames, which is what it was trained on; padding with
black or zero frames instead shows it a scene (darkness) that means something in Minecraft and
crafter (night, caves) and shifts P for reasons unrelated to the task. Policy "partial" scores
only the frames seen so far (1..window); the aggregator accepts any length up to its maximum.

`frame_stride` s > 1 feeds the model every s-th frame: the window is the newest frame and the
`window - 1` frames s, 2s, ... steps before it, spanning (window - 1) * s + 1 steps. A model
trained on 8 frames sampled from 16-frame clips is scored with window 8 and stride 2, so that it
sees at reward time what it saw in training (the same frames per second of play).

Step t's reward uses the window ending at the observation returned by that step (the paper's
"reward at t+1 for the step at t"). The reset observation counts as t = 0: its P is the baseline
of delta mode, whose first step reward is P_1 - P_0.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from mineclip.model import MineCLIP
from mineclip.model.precision import DTYPES, resolve_precision

log = logging.getLogger(__name__)

MODES = ("direct", "direct-naive", "delta", "progress")
FIRST_STEPS = ("repeat", "partial")
DEFAULT_WINDOW = 16


# --------------------------------------------------------------------------- formulas
def direct_reward(prob: torch.Tensor | np.ndarray, num_prompts: int):
    """max(P - 1/N, 0)."""
    if isinstance(prob, np.ndarray):
        return np.maximum(prob - 1.0 / num_prompts, 0.0)
    return (prob - 1.0 / num_prompts).clamp(min=0.0)


def progress_reward(probs, chance: float, prev_best=None):
    """Direct's gain over the episode's best: max(D_t - max_{s<t} D_s, 0) with D = max(P - chance, 0),
    for one step (`prev_best`: the best P so far) or along the last axis of a sequence of P (the
    first element 0)."""
    if prev_best is not None:
        if isinstance(probs, np.ndarray):
            return np.maximum(np.maximum(probs, chance) - np.maximum(prev_best, chance), 0.0)
        return (probs.clamp(min=chance) - prev_best.clamp(min=chance)).clamp(min=0.0)
    if isinstance(probs, np.ndarray):
        best = np.maximum(np.maximum.accumulate(probs, axis=-1), chance)
    else:
        best = probs.cummax(-1).values.clamp(min=chance)
    return reward_from_probs(best, 1, "delta")  # the best's rise, step by step


def reward_from_probs(probs, num_prompts: int, mode: str = "direct", prev_probs=None):
    """Rewards from P for one step (`prev_probs`: P_{t-1} for delta, the episode's best P so far for
    progress, as `WindowedReward.reference` keeps it) or, with prev_probs None, along the last axis
    of a sequence of P (the first element of delta and progress is 0)."""
    if mode not in MODES:
        raise ValueError(f"reward mode must be one of {MODES}, got {mode!r}")
    if mode == "direct":
        return direct_reward(probs, num_prompts)
    if mode == "direct-naive":
        return probs
    if mode == "progress":
        return progress_reward(probs, 1.0 / num_prompts, prev_probs)
    if prev_probs is not None:
        return probs - prev_probs
    if isinstance(probs, np.ndarray):
        out = np.zeros_like(probs)
        out[..., 1:] = probs[..., 1:] - probs[..., :-1]
        return out
    out = torch.zeros_like(probs)
    out[..., 1:] = probs[..., 1:] - probs[..., :-1]
    return out


# --------------------------------------------------------------------------- frames
def to_frames_tensor(frames, resolution: tuple[int, int], resize: str = "pad", contiguous: bool = True) -> torch.Tensor:
    """uint8 RGB frames [N, H, W, 3] or [N, 3, H, W] (numpy or torch), any size -> uint8 [N, 3, h, w].
    `contiguous=False` may return a channels-last view of the input's memory (no copy)."""
    h, w = resolution
    if isinstance(frames, np.ndarray):
        frames = torch.from_numpy(np.ascontiguousarray(frames))
    if not isinstance(frames, torch.Tensor) or frames.dtype != torch.uint8 or frames.ndim != 4:
        desc = f"{getattr(frames, 'dtype', type(frames).__name__)} {list(getattr(frames, 'shape', []))}"
        raise ValueError(f"expected uint8 RGB frames [N, H, W, 3] or [N, 3, H, W], got {desc}")
    if frames.shape[-1] == 3 and frames.shape[1] != 3:
        frames = frames.permute(0, 3, 1, 2)
    elif frames.shape[1] != 3:
        raise ValueError(f"expected 3 colour channels, got frames {list(frames.shape)}")
    if tuple(frames.shape[2:]) != (h, w):
        from mineclip.data.video import resize_frames

        hwc = frames.permute(0, 2, 3, 1).cpu().numpy()
        frames = torch.from_numpy(resize_frames(hwc, (h, w), aspect=resize)).permute(0, 3, 1, 2)
    return frames.contiguous() if contiguous else frames


# --------------------------------------------------------------------------- outputs
@dataclass
class StepRewards:
    """One streaming step for N envs: reward [N], P of the prompt [N], logits [N, K] (prompt first)."""

    reward: torch.Tensor
    prob: torch.Tensor
    logits: torch.Tensor


@dataclass
class TrajectoryRewards:
    """Per frame of one trajectory (index 0 = reset frame): reward [T], prob [T], logits [T, K]."""

    reward: np.ndarray
    prob: np.ndarray
    logits: np.ndarray

    @property
    def step_rewards(self) -> np.ndarray:
        """The rewards an agent receives: one per step, i.e. frames 1..T-1."""
        return self.reward[1:]


# --------------------------------------------------------------------------- model
class RewardModel:
    """A MineCLIP model used as a reward: text features cached per prompt, frames encoded in chunks.

    `precision` ("auto", "bf16", "fp32"; None: $MINECLIP_PRECISION, else "auto") is the frame
    encoder's (`mineclip.model.precision`): "auto" runs it in bfloat16 where the hardware computes
    bf16 natively, float32 elsewhere. Text features, aggregation, logits and rewards are float32."""

    def __init__(self, model: MineCLIP, *, window: int = DEFAULT_WINDOW, frame_stride: int = 1, resize: str = "pad",
                 device: str | torch.device | None = None, batch_size: int = 64, config: dict | None = None,
                 precision: str | None = None):
        if not 1 <= window <= model.max_frames:
            raise ValueError(f"window must be 1..{model.max_frames} frames, got {window}")
        if int(frame_stride) < 1:
            raise ValueError(f"frame_stride must be a positive number of steps, got {frame_stride}")
        self.device = torch.device(device) if device is not None else next(model.parameters()).device
        self.model = model.to(self.device).eval()
        self.window = window
        self.frame_stride = int(frame_stride)
        self.resize = resize
        self.batch_size = batch_size
        self.config = config or {}
        self.precision = resolve_precision(precision, self.device)  # "bf16" or "fp32"
        self.dtype = DTYPES[self.precision]
        self._text_cache: dict[str, torch.Tensor] = {}

    @classmethod
    def load(cls, path: str | os.PathLike, device: str | torch.device = "cpu", **kwargs) -> "RewardModel":
        """A reward model from any MineCLIP checkpoint, read by the one checkpoint dispatcher
        (`mineclip.model.load.load_checkpoint`, which never runs code from a file):

        - an exported artifact (its directory or its model.safetensors): window, frame stride and
          resize from its config.json;
        - a released MineCLIP .pth: the paper's 16-frame window;
        - a Lightning .ckpt of `mineclip train`, or a DeepSpeed checkpoint directory: loaded too,
          with what `mineclip export` writes by default (16 frames, stride 1, padding), since a
          training checkpoint records no reward settings.

        Anything else is refused with the dispatcher's error (`CheckpointError`). Keyword arguments
        go to the constructor (`precision=`, `window=`, ...)."""
        from mineclip.model.artifact import read_artifact_config
        from mineclip.model.load import load_checkpoint

        if not Path(path).exists():
            raise FileNotFoundError(f"no artifact directory, model.safetensors, released .pth, Lightning .ckpt or "
                                    f"DeepSpeed checkpoint directory at {path}")
        loaded = load_checkpoint(path)
        config = read_artifact_config(loaded.source) if loaded.kind == "artifact" else {}
        kwargs.setdefault("window", int(config.get("frames", {}).get("window", DEFAULT_WINDOW)))
        kwargs.setdefault("frame_stride", int(config.get("frames", {}).get("stride", 1)))
        kwargs.setdefault("resize", config.get("resolution", {}).get("resize", "pad"))
        return cls(loaded.model.to(device), device=device, config=config, **kwargs)

    def untrained_twin(self, seed: int = 0) -> "RewardModel":
        """The same architecture, window, stride, resize, device and precision with random weights
        (torch's initialisation under `seed`): the baseline every table puts beside a trained model."""
        from mineclip.model import MineCLIP, ModelConfig

        torch.manual_seed(seed)
        twin = MineCLIP(ModelConfig.from_dict(self.model.config.to_dict())).eval()
        return RewardModel(twin, window=self.window, frame_stride=self.frame_stride, resize=self.resize,
                           device=self.device, batch_size=self.batch_size, precision=self.precision)

    @property
    def span(self) -> int:
        """Steps one window covers: (window - 1) * frame_stride + 1."""
        return (self.window - 1) * self.frame_stride + 1

    def window_indices(self, ends) -> torch.Tensor:
        """Frame indices [len(ends), window] of the window the model sees ending at each frame of
        `ends` (an index or indices): every `frame_stride`-th frame back from it, the first frame
        repeated before the start. The one place this arithmetic lives (the reward, the reward by
        conditions, the Percipient and the assistant's judge ask it)."""
        ends = torch.as_tensor(ends, dtype=torch.long).reshape(-1, 1)
        return (ends + torch.arange(-(self.window - 1) * self.frame_stride, 1, self.frame_stride)).clamp(min=0)

    def real_frames(self, seen):
        """How many of a window's frames are real (not repeats of the first) after `seen` frames."""
        return ((seen - 1) // self.frame_stride + 1).clamp(max=self.window) if isinstance(seen, torch.Tensor) \
            else min((seen - 1) // self.frame_stride + 1, self.window)

    @property
    def resolution(self) -> tuple[int, int]:
        return tuple(self.model.config.vision.resolution)

    @torch.inference_mode()
    def text_features(self, prompts: Sequence[str]) -> torch.Tensor:
        """[K, D] text features, computed once per distinct prompt."""
        todo = [p for p in dict.fromkeys(prompts) if p not in self._text_cache]
        if todo:
            feats = self.model.encode_text(todo)
            self._text_cache.update(zip(todo, feats))
        return torch.stack([self._text_cache[p] for p in prompts])

    def prepare(self, frames) -> torch.Tensor:
        return to_frames_tensor(frames, self.resolution, self.resize)

    @torch.inference_mode()
    def frame_features(self, frames, tokens: bool = False):
        """uint8 frames [N, H, W, 3] / [N, 3, H, W] -> per-frame features [N, D] (float32), in chunks;
        with `tokens`, (features, the encoder's last-block patch tokens [N, L, width] on the CPU in
        float32) from the same pass (what `mineclip.perception.head` reads)."""
        x = to_frames_tensor(frames, self.resolution, self.resize, contiguous=False)  # the encoder reads any layout
        if not tokens and 0 < len(x) <= self.batch_size:
            return self.model.encode_images(x.to(self.device), self.dtype)
        out = [self.model.encode_images(x[i : i + self.batch_size].to(self.device), self.dtype, tokens=tokens)
               for i in range(0, len(x), self.batch_size)]
        if not tokens:
            return torch.cat(out) if out else torch.empty(0, self.model.config.embed_dim, device=self.device)
        vision = self.model.config.vision
        grid = (vision.resolution[0] // vision.patch_size) * (vision.resolution[1] // vision.patch_size)
        if not out:
            return (torch.empty(0, self.model.config.embed_dim, device=self.device),
                    torch.empty(0, grid, self.model.vision.conv1.out_channels))
        return torch.cat([f for f, _ in out]), torch.cat([t.float().cpu() for _, t in out])

    @torch.inference_mode()
    def window_logits(self, window_features: torch.Tensor, text_features: torch.Tensor) -> torch.Tensor:
        """Frame features of windows [B, T, D] -> logits [B, K] against text features [K, D]."""
        return self.model.score(self.model.aggregate(window_features), text_features)

    def reward_fn(self, prompt: str, negatives: Sequence[str], mode: str = "direct",
                  first_steps: str = "repeat") -> "RewardFunction":
        """A reward for `prompt` against `negatives` (for the bundled suite:
        `mineclip.tasks.negatives.negatives_for(prompt, "suite")`)."""
        return RewardFunction(self, prompt, negatives, mode, first_steps)


class WindowedReward:
    """What every reward function here shares: its reward model's window and frame stride, and a
    `RewardStream` over them (the prompt's `RewardFunction`, the factored and the proximity ones)."""

    rm: RewardModel
    mode: str  # one of MODES (or the proximity reward's): `reference` reads it

    @property
    def window(self) -> int:
        return self.rm.window

    @property
    def frame_stride(self) -> int:
        return self.rm.frame_stride

    @property
    def span(self) -> int:
        """Steps one window covers (`RewardModel.span`): what a stream caches per env."""
        return self.rm.span

    @property
    def device(self) -> torch.device:
        return self.rm.device

    def real_frames(self, seen):
        """How many of a window's frames are real after `seen` frames (`RewardModel.real_frames`)."""
        return self.rm.real_frames(seen)

    def stream(self, num_envs: int = 1) -> "RewardStream":
        """A streaming reward for `num_envs` parallel environments."""
        return RewardStream(self, num_envs)

    def reference(self, probs: torch.Tensor, prev_reference: torch.Tensor) -> torch.Tensor:
        """What a stream's next step is measured against (`rewards(prev_probs=...)`): this step's P,
        or in "progress" mode the best P of the episode so far."""
        return torch.maximum(probs, prev_reference) if self.mode == "progress" else probs


class RewardFunction(WindowedReward):
    """The reward of one prompt against its negatives: streaming (`stream`) or batch (`trajectory`)."""

    def __init__(self, reward_model: RewardModel, prompt: str, negatives: Sequence[str],
                 mode: str = "direct", first_steps: str = "repeat"):
        if mode not in MODES:
            raise ValueError(f"reward mode must be one of {MODES}, got {mode!r}")
        if first_steps not in FIRST_STEPS:
            raise ValueError(f"first_steps must be one of {FIRST_STEPS}, got {first_steps!r}")
        if negatives is None or isinstance(negatives, str):
            raise TypeError("expected the negative prompts as a list of strings, got "
                            f"{negatives!r}; for the bundled task suite: "
                            "mineclip.tasks.negatives.negatives_for(prompt, 'suite')")
        negatives = [n for n in dict.fromkeys(negatives) if n != prompt]
        if not negatives:
            raise ValueError("expected at least one negative prompt besides the task prompt; P would always be 1")
        self.rm, self.prompt, self.negatives = reward_model, prompt, negatives
        self.prompts = [prompt, *negatives]
        self.mode, self.first_steps = mode, first_steps
        self.text_features = reward_model.text_features(self.prompts)
        self._text_unit = torch.nn.functional.normalize(self.text_features, dim=-1)  # as MineCLIP.score, once
        log.debug("MineCLIP reward %r (%s, window %d, first steps %s): %d prompts, P baseline 1/N = %.4f; "
                 "negatives: %s", prompt, mode, self.window, first_steps, self.num_prompts,
                 1 / self.num_prompts, negatives)

    @property
    def num_prompts(self) -> int:
        return len(self.prompts)

    def describe(self) -> dict:
        """Settings worth logging next to the rewards."""
        return {"prompt": self.prompt, "negatives": list(self.negatives), "mode": self.mode,
                "num_prompts": self.num_prompts, "chance_prob": 1 / self.num_prompts, "window": self.window,
                "frame_stride": self.frame_stride,
                "first_steps": self.first_steps, "precision": self.rm.precision,
                "logit_scale": float(self.rm.model.logit_scale.detach().exp())}

    # ------------------------------------------------------------------ scoring
    def _score(self, windows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # MineCLIP.score(aggregate(windows), text_features) with the text side normalised once
        m = self.rm.model
        v = torch.nn.functional.normalize(m.adapt(m.aggregate(windows)), dim=-1)
        logits = m.logit_scale.exp() * v @ self._text_unit.t()
        return logits, logits.softmax(dim=-1)[:, 0]

    def score_windows(self, windows: torch.Tensor, lengths: torch.Tensor | None = None):
        """Logits [B, K] and P [B] for windows [B, W, D] whose last `lengths` frames are real
        (policy "partial"); with "repeat" all W frames are used."""
        if self.first_steps == "repeat" or lengths is None:
            return self._score(windows)
        lengths = lengths.clamp(max=windows.shape[1])
        logits = torch.empty(len(windows), self.num_prompts, device=windows.device)
        probs = torch.empty(len(windows), device=windows.device)
        for n in lengths.unique().tolist():
            idx = (lengths == n).nonzero().flatten()
            logits[idx], probs[idx] = self._score(windows[idx, windows.shape[1] - n :])
        return logits, probs

    def rewards(self, probs, prev_probs=None):
        """Rewards from P (one step with `prev_probs`, or along a sequence): `reward_from_probs`."""
        return reward_from_probs(probs, self.num_prompts, self.mode, prev_probs=prev_probs)

    @property
    def feature_dim(self) -> int:
        """Width of what `encode` gives per frame (what a stream caches)."""
        return self.rm.model.config.embed_dim

    def encode(self, frames) -> torch.Tensor:
        """Per-frame features [N, feature_dim] of uint8 frames: the frame embedding."""
        return self.rm.frame_features(frames)

    @torch.inference_mode()
    def trajectory(self, frames) -> TrajectoryRewards:
        """Rewards for a stored trajectory in one call: frames [T, H, W, 3] (frame 0 = reset)."""
        feats = self.rm.frame_features(frames)
        return self.trajectory_from_features(feats)

    @torch.inference_mode()
    def trajectory_from_features(self, feats: torch.Tensor) -> TrajectoryRewards:
        """Rewards from per-frame features [T, D] (lets several prompts share one encoding)."""
        t = len(feats)
        windows = feats[self.rm.window_indices(torch.arange(t)).to(feats.device)]  # the window ending at each frame
        lengths = self.rm.real_frames(torch.arange(t) + 1)
        logits, probs = [], []
        bs = max(1, self.rm.batch_size)
        for i in range(0, t, bs):
            lg, pr = self.score_windows(windows[i : i + bs], lengths[i : i + bs].to(windows.device))
            logits.append(lg)
            probs.append(pr)
        logits_t, probs_t = torch.cat(logits), torch.cat(probs)
        reward = self.rewards(probs_t)
        return TrajectoryRewards(reward.float().cpu().numpy(), probs_t.float().cpu().numpy(),
                                 logits_t.float().cpu().numpy())


class RewardStream:
    """Streaming rewards for N envs: each step encodes only the N newest frames (one forward),
    the previous window-1 frame features of every env come from a cache. `fn` is a `WindowedReward`
    (the prompt's RewardFunction, the reward by conditions of `mineclip.reward.factored`, whose
    `logits` are per-condition probabilities, or the proximity of `mineclip.perception.proximity`):
    the stream asks it for its window, encoding and scores, never its reward model.

    The cache is a ring of the last `span` features per env, stored twice over ([N, 2 * span, D],
    each feature at slot p and p + span), so that the span ending at the newest frame is always one
    contiguous slice: a step writes two rows per env and copies nothing else."""

    def __init__(self, fn: RewardFunction, num_envs: int = 1):
        self.fn, self.num_envs = fn, num_envs
        d, dev = fn.feature_dim, fn.device
        self.span = fn.span
        self._ring = torch.zeros(num_envs, 2 * self.span, d, device=dev)
        self._pos = self.span - 1  # slot of the newest frame (in [0, span))
        self.length = torch.zeros(num_envs, dtype=torch.long, device=dev)  # frames seen, capped at the span
        self.ref = torch.zeros(num_envs, device=dev)  # what each env's next reward is measured against (fn.reference)
        self.started = torch.zeros(num_envs, dtype=torch.bool)
        self._all_started = False
        self._partial = fn.first_steps == "partial"

    @property
    def cache(self) -> torch.Tensor:
        """Each env's cached span of frame features [N, span, D], oldest first (a view)."""
        return self._ring[:, self._pos + 1 : self._pos + 1 + self.span]

    def _check(self, frames, env_ids) -> list[int]:
        ids = list(range(self.num_envs)) if env_ids is None else [int(i) for i in np.atleast_1d(env_ids)]
        n = len(frames)
        if n != len(ids):
            raise ValueError(f"expected frames for {len(ids)} env(s), got {n}")
        return ids

    @torch.inference_mode()
    def reset(self, frames, env_ids: Sequence[int] | None = None) -> StepRewards:
        """Start episodes with their reset frames [n, H, W, 3] (all envs, or `env_ids`)."""
        ids = self._check(frames, env_ids)
        return self.reset_features(self.fn.encode(frames), ids)

    @torch.inference_mode()
    def step(self, frames) -> StepRewards:
        """Rewards for the newest frame of every env [N, H, W, 3]: one forward for all N."""
        if len(frames) != self.num_envs:
            raise ValueError(f"expected frames for {self.num_envs} env(s), got {len(frames)}")
        return self.step_features(self.fn.encode(frames))

    @torch.inference_mode()
    def reset_features(self, feats: torch.Tensor, env_ids: Sequence[int] | None = None) -> StepRewards:
        """`reset` from frame features [n, D] the caller already computed (`fn.encode`, e.g. shared
        with a policy)."""
        ids = list(range(self.num_envs)) if env_ids is None else [int(i) for i in np.atleast_1d(env_ids)]
        idx = torch.tensor(ids, device=self._ring.device)
        self._ring[idx] = feats.to(self._ring.device)[:, None, :].expand(-1, self._ring.shape[1], -1)
        self.length[idx] = 1
        self.started[ids] = True
        self._all_started = bool(self.started.all())
        logits, probs = self.fn.score_windows(self._windows(self.cache[idx]), self.fn.real_frames(self.length[idx]))
        self.ref[idx] = probs
        reward = self.fn.rewards(probs, prev_probs=probs)
        return StepRewards(reward, probs, logits)

    def _windows(self, cache: torch.Tensor) -> torch.Tensor:
        """The frames the model sees from cached spans [n, span, D]: every stride-th, ending at the newest."""
        return cache[:, :: self.fn.frame_stride]

    @torch.inference_mode()
    def step_features(self, feats: torch.Tensor) -> StepRewards:
        """`step` from the newest frames' features [N, D]."""
        if len(feats) != self.num_envs:
            raise ValueError(f"expected features for {self.num_envs} env(s), got {len(feats)}")
        if not self._all_started:
            missing = (~self.started).nonzero().flatten().tolist()
            raise RuntimeError(f"reset() env(s) {missing} before step()")
        p = self._pos = (self._pos + 1) % self.span
        feats = feats.to(self._ring.device)
        self._ring[:, p] = feats
        self._ring[:, p + self.span] = feats
        self.length.add_(1).clamp_(max=self.span)
        windows = self._windows(self.cache)
        if self._partial:
            logits, probs = self.fn.score_windows(windows, self.fn.real_frames(self.length))
        else:  # every window is full: no lengths to look at
            logits, probs = self.fn.score_windows(windows)
        reward = self.fn.rewards(probs, prev_probs=self.ref)
        self.ref = self.fn.reference(probs, self.ref).clone()
        return StepRewards(reward, probs, logits)


def recompute_window_rewards(fn: RewardFunction, frames) -> TrajectoryRewards:
    """Reference implementation: every window re-encoded from raw frames (no cache), at the reward
    model's precision, scored by `MineCLIP.score`. For tests; `fn.stream` and `fn.trajectory` must
    agree with it."""
    x = fn.rm.prepare(frames)
    t, w, s = len(x), fn.window, fn.frame_stride
    logits, probs = [], []
    with torch.inference_mode():
        for i in range(t):
            n = fn.rm.real_frames(i + 1)
            idx = [max(0, j) for j in range(i - (w - 1) * s, i + 1, s)]
            if fn.first_steps == "partial":
                idx = idx[w - n :]
            m = fn.rm.model
            feats = m.encode_images(x[idx].to(fn.rm.device), fn.rm.dtype)
            lg = m.score(m.aggregate(feats[None]), fn.text_features)
            logits.append(lg[0])
            probs.append(lg.softmax(-1)[0, 0])
    logits_t, probs_t = torch.stack(logits), torch.stack(probs)
    reward = reward_from_probs(probs_t, fn.num_prompts, fn.mode)
    return TrajectoryRewards(reward.cpu().numpy(), probs_t.cpu().numpy(), logits_t.cpu().numpy())
