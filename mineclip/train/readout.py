"""An auxiliary read-out of the frame encoder, trained on what the simulator says each frame shows.

Contrastive training alone keeps what the captions name often (the time of day) and drops which
things are in view (`bench/probe.py`, docs/quality.md): with 678 steps of a model from scratch,
which of the judged tasks' pictures (a pool of water, a placed stone, a sword icon) a seed picks up
first is left to chance. Clips played in the simulator carry per-frame labels
(the crafter suite's: kinds in view, kinds next to the player, day, the inventory bar; decoded by a
`FrameLabels` plug-in, `mineclip.train.supervision`, by default `mineclip.sim.labels`); this
read-out, a linear layer on each frame's feature (the frame encoder's output, before the temporal
aggregator), predicts them, and its loss joins InfoNCE with weight `frame_readout` (MineCLIPModule).

The read-out is training-only: it lives on the LightningModule, not on the model, so exports and
the released checkpoint layout are unchanged. Clips without labels (other data) add no loss.
Which labels it reads out is one of `LABEL_SETS`: all of them, the inventory bar alone (what the
programmatic tasks' events change) or the scene alone (kinds in view and next to the player, day).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from mineclip.data.clip_meta import ClipMeta
from mineclip.data.video import uniform_indices

from .supervision import LABEL_SETS, FrameLabels, check_label_set  # noqa: F401  (LABEL_SETS re-exported)


class FrameReadout(nn.Module):
    """Linear read-out of per-frame features [B, T, D] -> (binary logits, counts or None) of one of
    `LABEL_SETS` of a world's `FrameLabels`."""

    def __init__(self, dim: int, labels: str, spec: FrameLabels):
        super().__init__()
        self.labels, self.spec = check_label_set(labels), spec
        self.columns, self.reads_counts = spec.columns(labels)
        self.num_binary = len(range(spec.num_binary)[self.columns])
        self.proj = nn.Linear(dim, self.num_binary + (spec.num_counts if self.reads_counts else 0))

    def forward(self, frame_features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        out = self.proj(frame_features)
        return out[..., :self.num_binary], out[..., self.num_binary:] if self.reads_counts else None


def frame_targets(metas: Sequence[ClipMeta], num_frames: int, spec: FrameLabels
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
    """(clip rows with labels [K] long, binary [K, T, num_binary], counts [K, T, num_counts]) for the
    `num_frames` frames a batch sampled of each clip (`uniform_indices`, as the decoder), or None
    when no clip of the batch has labels."""
    rows, binary, counts = [], [], []
    for i, meta in enumerate(metas):
        labels = ClipMeta.from_dict(meta).frame_labels
        if not labels:
            continue
        b, c = spec.decode(labels, uniform_indices(spec.num_frames(labels), num_frames))
        rows.append(i)
        binary.append(b)
        counts.append(c)
    if not rows:
        return None
    return torch.tensor(rows), torch.from_numpy(np.stack(binary)), torch.from_numpy(np.stack(counts))


def readout_loss(readout: FrameReadout, frame_features: torch.Tensor, metas: Sequence[ClipMeta]) -> torch.Tensor | None:
    """Mean binary cross-entropy of the read-out's labels plus, when it reads them, the mean squared
    error of the counts over the labelled clips of a batch; None when none is labelled."""
    targets = frame_targets(metas, frame_features.shape[1], readout.spec)
    if targets is None:
        return None
    rows, binary, counts = (t.to(frame_features.device) for t in targets)
    logits, predicted = readout(frame_features[rows].float())
    loss = F.binary_cross_entropy_with_logits(logits, binary[..., readout.columns])
    return loss + F.mse_loss(predicted, counts) if predicted is not None else loss
