"""Symmetric InfoNCE over the global batch, with features gathered across processes."""

from __future__ import annotations

import hashlib

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

from mineclip.data.clip_meta import ClipMeta


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


def stable_id(text: str) -> int:
    """A nonzero int64 id of a string, the same in every process (Python's hash() is not): how a
    group name or a fact becomes a key row that ranks can gather and compare."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=7).digest(), "little") + 1


def clip_facts(metas: list[ClipMeta], needed_by: str) -> tuple[list, list]:
    """The narrator's facts of each clip of a batch: (says, holds) of its metadata; a clip without
    them is a ValueError that names what needed them (`needed_by`)."""
    metas = [ClipMeta.from_dict(m) for m in metas]
    missing = [i for i, m in enumerate(metas) if m.says is None or m.holds is None]
    if missing:
        raise ValueError(f"{needed_by} needs each clip's meta 'says' and 'holds' (the facts its caption states "
                         f"and those true of it; `mineclip play clips` writes them): {len(missing)} of "
                         f"{len(metas)} clips in this batch have none")
    return [list(m.says) for m in metas], [list(m.holds) for m in metas]


def clip_completion(metas: list[ClipMeta]) -> torch.Tensor:
    """float32 [b]: each clip's meta `completion` (`graded_targets`); a clip without one, or with one
    outside [0, 1], is a ValueError."""
    metas = [ClipMeta.from_dict(m) for m in metas]
    missing = sum(m.completion is None for m in metas)
    if missing:
        raise ValueError(f"graded_targets needs each clip's meta 'completion' (how fully it shows what its caption "
                         f"names; `mineclip play clips` writes it since 2026-11-29): {missing} of {len(metas)} clips "
                         "in this batch have none")
    values = torch.tensor([float(m.completion) for m in metas], dtype=torch.float32)
    if not bool(((values >= 0) & (values <= 1)).all()):
        bad = values[(values < 0) | (values > 1) | values.isnan()]
        raise ValueError(f"a clip's meta 'completion' must be in [0, 1], got {sorted(set(bad.tolist()))[:5]}")
    return values


RANK_RATIO = 2.0  # size ranking: clip j ranks above clip l when what a caption names fills >= twice l's share ...
RANK_MIN_SHARE = 0.001  # ... and at least this share of j's last frame


def named_shares(metas: list[ClipMeta]) -> torch.Tensor:
    """float32 [b, b]: entry (i, j) is the least share of clip j's last frame that the kinds caption i
    names fill (meta `named`, `shares`; 0 for a kind clip j does not show), NaN for a caption that
    names none (`size_ranking`). A clip without `named` or `shares` is a ValueError."""
    metas = [ClipMeta.from_dict(m) for m in metas]
    missing = sum(m.named is None or m.shares is None for m in metas)
    if missing:
        raise ValueError(f"size_ranking needs each clip's meta 'named' and 'shares' (the kinds its caption names and "
                         f"how much of its last frame each kind fills; `mineclip play clips` writes them in first "
                         f"person since 2026-12-01): {missing} of {len(metas)} clips in this batch have none")
    out = torch.full((len(metas), len(metas)), float("nan"))
    for i, m in enumerate(metas):
        if m.named:
            out[i] = torch.tensor([min(float(c.shares.get(k, 0.0)) for k in m.named) for c in metas])
    return out


def size_ranking_loss(logits: torch.Tensor, shares: torch.Tensor) -> torch.Tensor:
    """CLIP4MC's task-completion degree as an order (`size_ranking`): logits [b, b] of caption i
    against clip j, `shares` [b, b] from `named_shares`. For every caption and every two clips j, l
    where what it names fills at least RANK_RATIO times l's share of j's last frame (and at least
    RANK_MIN_SHARE), the logistic loss softplus(logit_il - logit_ij), averaged over those triples; 0
    (with a gradient) when a batch has none."""
    if logits.shape != shares.shape or logits.ndim != 2:
        raise ValueError(f"expected logits and shares of one shape [b, b], got {list(logits.shape)} and {list(shares.shape)}")
    s = shares.to(logits.device, torch.float32)
    valid = ~s.isnan()
    s = s.nan_to_num(0.0)
    above = (s[:, :, None] >= RANK_RATIO * s[:, None, :]) & (s[:, :, None] >= RANK_MIN_SHARE)  # [i, j, l]
    above &= valid[:, :, None] & valid[:, None, :]
    if not bool(above.any()):
        return logits.sum() * 0.0
    margin = logits[:, :, None] - logits[:, None, :]  # logit_ij - logit_il
    return F.softplus(-margin.float())[above].mean()


def fact_ids(facts: list, width: int) -> torch.Tensor:
    """Lists of fact strings ("view:cow", "event:collect_wood") -> int64 [n, width] of their
    `stable_id`s, zero-padded."""
    out = torch.zeros(len(facts), width, dtype=torch.long)
    for i, row in enumerate(facts):
        if len(row) > width:
            raise ValueError(f"a clip has {len(row)} facts, more than the {width} the loss keeps")
        for k, fact in enumerate(row):
            out[i, k] = stable_id(str(fact))
    return out


def truth_positives(says: torch.Tensor, holds: torch.Tensor) -> torch.Tensor:
    """bool [m, n]: caption j (`says` [n, F] fact ids, 0 = none) is true of clip i (`holds` [m, F]):
    every fact it states holds there."""
    vocab, inverse = torch.unique(torch.cat([says, holds]), return_inverse=True)
    hot = torch.zeros(len(says) + len(holds), len(vocab), device=says.device)
    hot.scatter_(1, inverse, 1.0)
    hot[:, vocab == 0] = 0.0  # padding
    said, held = hot[: len(says)], hot[len(says):]
    return (held.new_ones(held.shape) - held) @ said.t() == 0  # [m, n]: nothing said that does not hold


def graded_targets(targets: torch.Tensor, completion: torch.Tensor | None) -> torch.Tensor:
    """Soft targets [b, N] graded by `completion` [b] (None: unchanged): row i keeps completion_i of
    its mass where it was and spreads the rest evenly over the N columns (`ContrastiveLoss`)."""
    if completion is None:
        return targets
    c = completion.to(targets.dtype)[:, None]
    return c * targets + (1 - c) / targets.shape[1]


def _pad(targets: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """Soft targets [b, N] padded with zeros to the logits' columns (the hard negative's)."""
    return F.pad(targets, (0, logits.shape[1] - targets.shape[1]))


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

    With `facts` = (says, holds), fact ids [b, F] of what each caption states and what is true of
    each clip (`fact_ids`), a caption is a positive of every clip it is true of (`truth_positives`):
    the video->text target of clip i is uniform over the captions true of it, the text->video
    target of caption j over the clips it is true of. The relation need not be symmetric; a clip's
    own caption must be true of it (the narrator ensures it), so no row is without a positive.

    With `hard_text` [b, D], one extra text per local clip that is false of it (`mineclip.train.
    minimal_pairs`: its caption with one statement about the scene made false), each clip's
    video->text row gets one more column, its own hard negative (NegCLIP's form); other clips do not
    see it, and the text->video direction is unchanged.

    With `completion` [b] in [0, 1] (CLIP4MC's task-completion degree, Jiang et al. 2024: how fully
    a clip shows what its caption names), clip i's video->text target keeps completion_i of its
    positive mass and spreads the rest evenly over all N captions (`graded_targets`): a clip that
    shows its caption's cow far away is pulled to that caption less than one that shows it close,
    so the probability of a caption can grow with how complete it looks. 1 everywhere is the
    ungraded loss exactly; the text->video direction is unchanged.
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
        facts: tuple[torch.Tensor, torch.Tensor] | None = None,
        hard_text: torch.Tensor | None = None,
        completion: torch.Tensor | None = None,
    ) -> dict[str, torch.Tensor]:
        """video, text: L2-normalised [b, D]; logit_scale: the log temperature (scalar parameter);
        keys: [b, ...] rows whose equality marks positives; facts: (says, holds) fact ids [b, F]
        (positives by truth, see the class); hard_text: L2-normalised [b, D], a negative of its own
        clip only; completion: [b] in [0, 1], grades each clip's video->text target (see the class).
        Returns loss, logits and (video->text) targets (the positives, ungraded; without the hard column)."""
        if video.shape != text.shape or video.ndim != 2:
            raise ValueError(f"expected video and text embeddings of one shape [b, D], got {list(video.shape)} and {list(text.shape)}")
        if hard_text is not None and hard_text.shape != video.shape:
            raise ValueError(f"expected one hard negative per clip [b, D] = {list(video.shape)}, got {list(hard_text.shape)}")
        rank, world = _distributed()
        b = video.shape[0]
        if completion is not None and (completion.shape != (b,) or not bool(((completion >= 0) & (completion <= 1)).all())):
            seen = f", range [{float(completion.min()):.3g}, {float(completion.max()):.3g}]" if completion.numel() else ""
            raise ValueError(f"completion must be one value in [0, 1] per clip, shape [{b}]; got shape "
                             f"{list(completion.shape)}{seen}")
        all_video = gather_features(video, self.gather_with_grad)
        all_text = gather_features(text, self.gather_with_grad)
        scale = logit_scale.exp()
        logits_v2t = scale * video @ all_text.t()  # [b, N]
        logits_t2v = scale * text @ all_video.t()  # [b, N]
        v2t = logits_v2t
        if hard_text is not None:  # [b, N + 1]: each clip's own hard negative last
            v2t = torch.cat([logits_v2t, scale * (video * hard_text).sum(-1, keepdim=True)], dim=1)
        if facts is not None:
            says, holds = facts
            if not (says.shape[0] == holds.shape[0] == b):
                raise ValueError(f"expected facts for each of the {b} clips, got {says.shape[0]} and {holds.shape[0]}")
            all_says, all_holds = gather_features(says, with_grad=False), gather_features(holds, with_grad=False)
            pos_v2t = truth_positives(all_says, holds).float()  # [b, N]: local clips x global captions
            pos_t2v = truth_positives(says, all_holds).t().float()  # [b, N]: local captions x global clips
            if (pos_v2t.sum(1) == 0).any() or (pos_t2v.sum(1) == 0).any():
                raise ValueError("a clip's own caption is not true of it: its 'holds' facts must include its 'says'")
            targets = pos_v2t / pos_v2t.sum(1, keepdim=True)
            loss_v2t = F.cross_entropy(v2t.float(), _pad(graded_targets(targets, completion), v2t))
            loss_t2v = F.cross_entropy(logits_t2v.float(), pos_t2v / pos_t2v.sum(1, keepdim=True))
        elif self.multi_positive and keys is not None:
            all_keys = gather_features(keys, with_grad=False)
            targets = positive_targets(keys, all_keys)
            loss_v2t = F.cross_entropy(v2t.float(), _pad(graded_targets(targets, completion), v2t))
            loss_t2v = F.cross_entropy(logits_t2v.float(), targets)
        else:
            targets = torch.arange(b, device=video.device) + rank * b
            loss_t2v = F.cross_entropy(logits_t2v.float(), targets)
            if completion is not None:
                graded = graded_targets(F.one_hot(targets, logits_v2t.shape[1]).float(), completion)
                loss_v2t = F.cross_entropy(v2t.float(), _pad(graded, v2t))
            else:
                loss_v2t = F.cross_entropy(v2t.float(), targets)
        return {
            "loss": (loss_v2t + loss_t2v) / 2,
            "loss_v2t": loss_v2t.detach(),
            "loss_t2v": loss_t2v.detach(),
            "logits_v2t": logits_v2t.detach(),
            "targets": targets,
        }
