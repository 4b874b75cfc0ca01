"""MineCLIP: frame encoder + temporal aggregator + video adapter + text encoder."""

from __future__ import annotations

from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .adapter import VideoAdapter
from .config import ModelConfig, get_config
from .fused import FusedVision, supports
from .temporal import build_temporal
from .tokenizer import tokenize
from .towers import build_text_tower, build_vision_tower, trim_padding


class MineCLIP(nn.Module):
    """Video-language model of the MineDojo paper, configurable from full size down to tiny."""

    def __init__(self, config: ModelConfig | str | None = None):
        super().__init__()
        if config is None or isinstance(config, str):
            config = get_config(config or "mineclip_attn")
        self.config = config
        d = config.embed_dim
        self.vision = build_vision_tower(config.vision, d)
        self.text = build_text_tower(config.text, d)
        self.temporal = build_temporal(d, config.temporal)
        self.adapter = VideoAdapter(d, config.adapter_layers, config.adapter_residual_init)
        self.logit_scale = nn.Parameter(torch.tensor(config.logit_scale_init))
        self.register_buffer("image_mean", torch.tensor(config.image_mean).view(3, 1, 1), persistent=False)
        self.register_buffer("image_std", torch.tensor(config.image_std).view(3, 1, 1), persistent=False)
        self.set_trainable(config.trainable_blocks)

    # ----------------------------------------------------------------- encoders
    @property
    def max_frames(self) -> int:
        return self.config.temporal.max_frames

    def check_video(self, video: torch.Tensor) -> None:
        h, w = self.config.vision.resolution
        if not isinstance(video, torch.Tensor):
            raise TypeError(f"expected a uint8 torch.Tensor video [B, T, 3, {h}, {w}], got {type(video).__name__}")
        if video.dtype != torch.uint8 or video.ndim != 5 or tuple(video.shape[2:]) != (3, h, w):
            raise ValueError(
                f"expected uint8 video [B, T, 3, {h}, {w}], got {str(video.dtype).replace('torch.', '')} "
                f"{list(video.shape)}"
            )

    def encode_frames(self, video: torch.Tensor) -> torch.Tensor:
        """uint8 RGB video [B, T, 3, H, W] -> per-frame features [B, T, D]."""
        self.check_video(video)
        b, t = video.shape[:2]
        frames = video.reshape(b * t, *video.shape[2:])
        return self.encode_images(frames).reshape(b, t, -1)

    def encode_images(self, frames: torch.Tensor, precision: torch.dtype | None = None, tokens: bool = False):
        """uint8 RGB frames [N, 3, H, W] -> features [N, D] (normalisation happens here); with
        `tokens`, (features, the last block's patch tokens after `ln_post` [N, L, width]) from one pass.

        Without gradients (inference) the fused forward of `mineclip.model.fused` runs, in
        `precision` (torch.float32 when None, or torch.bfloat16), and the features are float32.
        With gradients, the module forward runs in the weights' dtype. The config's
        `vision.blank_bottom` rows are filled with the mean colour first, on either path."""
        frames = self.blank(frames)
        if not torch.is_grad_enabled() and self._fused_ok():
            dtype = precision or torch.float32
            fused = self._fused.get(dtype)
            if fused is None:
                fused = self._fused[dtype] = FusedVision(self.vision, self.image_mean, self.image_std, dtype)
            return fused(frames, tokens=tokens)
        dtype = self.vision.conv1.weight.dtype
        # (x / 255 - mean) / std as two in-place passes over one fresh copy: on a 2-core CPU the
        # out-of-place form took 0.44 s for 256 frames of 160x256, this one 0.17 s (the tiny
        # model's vision forward on them: about 1 s).
        # contiguous_format: frames that are a [N, H, W, 3] array seen as [N, 3, H, W] (what decoders
        # and environments give) are transposed by this copy, which the conversion makes anyway
        x = frames.to(torch.float32, memory_format=torch.contiguous_format, copy=True)
        x = x.sub_(self.image_mean * 255.0).mul_(1.0 / (self.image_std * 255.0)).to(dtype)
        if not tokens:
            return self.vision(x)
        out = self.vision.forward_intermediates(x, indices=1, normalize_intermediates=True, output_fmt="NLC")
        return out["image_features"], out["image_intermediates"][0]

    def blank(self, frames: torch.Tensor) -> torch.Tensor:
        """uint8 frames [..., 3, H, W] with the config's `vision.blank_bottom` rows in the mean
        colour (a copy; the frames themselves when there are none)."""
        rows = self.config.vision.blank_bottom
        if not rows:
            return frames
        fill = (self.image_mean * 255.0).round().to(torch.uint8)  # [3, 1, 1]
        frames = frames.clone()
        frames[..., -rows:, :] = fill
        return frames

    def __getstate__(self) -> dict:  # copies and pickles leave the fused forward's weight copies behind
        state = self.__dict__.copy()
        state.pop("_fused", None)
        state.pop("_fused_supported", None)
        return state

    def _fused_ok(self) -> bool:
        if "_fused" not in self.__dict__:  # built per model, not saved: the fused forward's weight copies
            self.__dict__["_fused"] = {}
            self.__dict__["_fused_supported"] = supports(self.vision)
        return self.__dict__["_fused_supported"]

    def aggregate(self, frame_features: torch.Tensor) -> torch.Tensor:
        """Per-frame features [B, T, D] -> video features [B, D] (before the adapter)."""
        d = self.config.embed_dim
        if frame_features.ndim != 3 or frame_features.shape[-1] != d:
            raise ValueError(f"expected frame features [B, T, {d}], got {list(frame_features.shape)}")
        t = frame_features.shape[1]
        if not 1 <= t <= self.max_frames:
            raise ValueError(
                f"expected 1 to {self.max_frames} frames for {self.config.temporal.pooling} pooling, got {t}"
            )
        return self.temporal(frame_features)

    def encode_video(self, video: torch.Tensor) -> torch.Tensor:
        """uint8 video [B, T, 3, H, W] -> video features [B, D], before the adapter (as released)."""
        self.check_video(video)
        if video.shape[1] > self.max_frames:
            raise ValueError(f"expected 1 to {self.max_frames} frames, got {video.shape[1]}")
        return self.aggregate(self.encode_frames(video))

    def encode_text(self, texts: Sequence[str] | torch.Tensor) -> torch.Tensor:
        """Prompts (strings or token ids [N, 77]) -> text features [N, D]."""
        if isinstance(texts, str):
            raise TypeError("expected a list of prompts, got a single str; wrap it in a list")
        if isinstance(texts, torch.Tensor):
            n_ctx = self.config.text.context_length
            if texts.ndim != 2 or texts.shape[1] != n_ctx or texts.dtype != torch.long:
                raise ValueError(f"expected int64 tokens [N, {n_ctx}], got {texts.dtype} {list(texts.shape)}")
            tokens = texts
        else:
            texts = list(texts)
            if not texts:
                raise ValueError("expected at least one prompt, got an empty list")
            tokens = tokenize(texts, self.config.text.context_length)
        # padding after the longest prompt is dropped: same features (causal mask), less work
        return self.text(trim_padding(tokens).to(self.logit_scale.device))

    # ------------------------------------------------------------------ scoring
    def adapt(self, video_features: torch.Tensor) -> torch.Tensor:
        """Residual CLIP adapter on video features [B, D]."""
        return self.adapter(video_features)

    def embed_pair(self, video_features: torch.Tensor, text_features: torch.Tensor):
        """L2-normalised (adapted video, text) embeddings, the inputs of the contrastive loss."""
        return F.normalize(self.adapt(video_features), dim=-1), F.normalize(text_features, dim=-1)

    def score(self, video_features: torch.Tensor, text_features: torch.Tensor) -> torch.Tensor:
        """Logits [B, N]: exp(logit_scale) * cosine(adapter(video), text)."""
        d = self.config.embed_dim
        for name, f in (("video", video_features), ("text", text_features)):
            if f.ndim != 2 or f.shape[-1] != d:
                raise ValueError(f"expected {name} features [*, {d}], got {list(f.shape)}")
        v, t = self.embed_pair(video_features, text_features)
        return self.logit_scale.exp() * v @ t.t()

    def forward(self, video: torch.Tensor, texts: Sequence[str] | torch.Tensor) -> torch.Tensor:
        return self.score(self.encode_video(video), self.encode_text(texts))

    @torch.no_grad()
    def clamp_logit_scale(self) -> None:
        self.logit_scale.clamp_(max=self.config.logit_scale_max)

    # --------------------------------------------------------------- training
    def set_trainable(self, blocks: int) -> None:
        """Train the last `blocks` blocks of each tower (and what follows them), the aggregator,
        the adapter and the logit scale; freeze the rest. -1 trains everything."""
        self.config.trainable_blocks = blocks
        for p in self.parameters():
            p.requires_grad_(blocks < 0)
        if blocks < 0:
            return
        for tower, heads in ((self.vision, ("ln_post", "proj")), (self.text, ("ln_final", "text_projection"))):
            resblocks = tower.transformer.resblocks
            for block in list(resblocks)[len(resblocks) - blocks :] if blocks else []:
                block.requires_grad_(True)
            for name, p in tower.named_parameters():
                if name.split(".")[0] in heads and blocks > 0:
                    p.requires_grad_(True)
        for m in (self.temporal, self.adapter):
            m.requires_grad_(True)
        self.logit_scale.requires_grad_(True)

    def num_parameters(self, trainable_only: bool = False) -> int:
        """Unique parameters (shared tensors counted once)."""
        seen = {id(p): p for p in self.parameters() if p.requires_grad or not trainable_only}
        return sum(p.numel() for p in seen.values())


def build_model(name: str = "mineclip_attn", **overrides) -> MineCLIP:
    """A MineCLIP model from a named config (see `mineclip.model.config.list_configs`)."""
    return MineCLIP(get_config(name, **overrides))
