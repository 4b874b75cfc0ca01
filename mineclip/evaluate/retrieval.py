"""Video-text retrieval metrics: R@1/5/10 and median rank in both directions."""

from __future__ import annotations

import torch


def _ranks(scores: torch.Tensor, relevant: torch.Tensor) -> torch.Tensor:
    """1-based rank of the best-scored relevant column of each row ([N, M] scores, bool mask)."""
    best_relevant = scores.masked_fill(~relevant, float("-inf")).max(dim=1).values
    return (scores > best_relevant[:, None]).sum(dim=1) + 1


def retrieval_metrics(
    video_emb: torch.Tensor, text_emb: torch.Tensor, groups: torch.Tensor | None = None, ks: tuple[int, ...] = (1, 5, 10)
) -> dict[str, float]:
    """v2t / t2v R@k (fraction of queries with a match in the top k, 0..1) and median rank, for paired
    embeddings [N, D] (row i of each is one pair). With `groups` [N], items of one group (e.g. the
    same caption) count as matches of each other."""
    if video_emb.ndim != 2 or video_emb.shape != text_emb.shape:
        raise ValueError(f"expected paired embeddings [N, D], got {list(video_emb.shape)} and {list(text_emb.shape)}")
    v = torch.nn.functional.normalize(video_emb.float(), dim=-1)
    t = torch.nn.functional.normalize(text_emb.float(), dim=-1)
    n = len(v)
    if groups is None:
        relevant = torch.eye(n, dtype=torch.bool)
    else:
        groups = torch.as_tensor(groups)
        relevant = groups[:, None] == groups[None, :]
    scores = v @ t.t()
    # R@1 of a random ranking: the share of relevant items, averaged over queries (1/N without groups)
    out: dict[str, float] = {"chance_R@1": relevant.float().mean(dim=1).mean().item()}
    for name, s, rel in (("v2t", scores, relevant), ("t2v", scores.t(), relevant.t())):
        ranks = _ranks(s, rel).float()
        for k in ks:
            out[f"{name}_R@{k}"] = (ranks <= k).float().mean().item()
        out[f"{name}_median_rank"] = ranks.median().item()
    return out
