"""Symmetric InfoNCE over the global batch, with features gathered across processes."""

from __future__ import annotations

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


def _distributed() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def gather_features(x: torch.Tensor, with_grad: bool = True) -> torch.Tensor:
    """Concatenate [b, ...] tensors of all ranks (rank order) -> [world * b, ...].

    With `with_grad`, gradients flow back to every rank's local features (all_gather's backward
    sums the gradient each rank computed for the gathered copy). Every rank must pass the same b.
    """
    rank, world = _distributed()
    if world == 1:
        return x
    if with_grad:
        import torch.distributed.nn.functional as dist_fn

        return torch.cat(dist_fn.all_gather(x), dim=0)
    out = [torch.empty_like(x) for _ in range(world)]
    dist.all_gather(out, x.contiguous())
    out[rank] = x
    return torch.cat(out, dim=0)


def positive_targets(keys: torch.Tensor, all_keys: torch.Tensor) -> torch.Tensor:
    """Soft targets [b, N]: uniform over the global samples whose key row equals this sample's."""
    keys = keys.reshape(keys.shape[0], -1)
    all_keys = all_keys.reshape(all_keys.shape[0], -1)
    same = (keys[:, None, :] == all_keys[None, :, :]).all(dim=-1).float()
    return same / same.sum(dim=1, keepdim=True)


class ContrastiveLoss(nn.Module):
    """Symmetric InfoNCE (video->text and text->video cross entropy), open_clip's local-loss form.

    Each rank scores its own b videos against all N = world * b texts (and its b texts against
    all N videos); averaging the ranks' losses (DDP averages gradients) gives exactly the loss of
    one process on the global batch, and gradients flow through the gather.

    With `multi_positive`, samples whose `keys` rows are equal (token ids of the caption, or an
    event/task id) are positives of each other: the target of a row is uniform over them.
    Note: when the keys are the captions themselves, identical captions have identical text
    embeddings and the multi-positive loss equals the one-positive loss exactly (only in-batch
    R@1 changes, counting any positive as a hit); keys that group *different* captions (the same
    event or task) change the loss.
    """

    def __init__(self, multi_positive: bool = True, gather_with_grad: bool = True):
        super().__init__()
        self.multi_positive = multi_positive
        self.gather_with_grad = gather_with_grad

    def forward(
        self,
        video: torch.Tensor,
        text: torch.Tensor,
        logit_scale: torch.Tensor,
        keys: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        """video, text: L2-normalised [b, D]; logit_scale: the log temperature (scalar parameter);
        keys: [b, ...] rows whose equality marks positives. Returns loss, logits and targets."""
        if video.shape != text.shape or video.ndim != 2:
            raise ValueError(f"expected video and text embeddings of one shape [b, D], got {list(video.shape)} and {list(text.shape)}")
        rank, world = _distributed()
        b = video.shape[0]
        all_video = gather_features(video, self.gather_with_grad)
        all_text = gather_features(text, self.gather_with_grad)
        scale = logit_scale.exp()
        logits_v2t = scale * video @ all_text.t()  # [b, N]
        logits_t2v = scale * text @ all_video.t()  # [b, N]
        if self.multi_positive and keys is not None:
            all_keys = gather_features(keys, with_grad=False)
            targets = positive_targets(keys, all_keys)
            loss_v2t = F.cross_entropy(logits_v2t.float(), targets)
            loss_t2v = F.cross_entropy(logits_t2v.float(), targets)
        else:
            targets = torch.arange(b, device=video.device) + rank * b
            loss_v2t = F.cross_entropy(logits_v2t.float(), targets)
            loss_t2v = F.cross_entropy(logits_t2v.float(), targets)
        return {
            "loss": (loss_v2t + loss_t2v) / 2,
            "loss_v2t": loss_v2t.detach(),
            "loss_t2v": loss_t2v.detach(),
            "logits_v2t": logits_v2t.detach(),
            "targets": targets,
        }
