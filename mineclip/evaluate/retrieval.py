"""Video-text retrieval: R@1/5/10 and median rank in both directions, and their evaluation on held-out shards."""

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


def retrieval_eval(models: dict, shards: str, limit: int = 1000, progress: bool = True) -> dict[str, dict]:
    """R@1/5/10 and median rank both ways on held-out shards for each RewardModel of `models`
    (clips decoded and resized as the first model's reward sees them; same-caption clips count as
    matches). A model whose clips cannot be read gets {"error": ...}."""
    from collections import Counter

    from tqdm import tqdm

    from mineclip.data.reader import ClipDataset

    first = next(iter(models.values()))
    ds = ClipDataset(shards, batch_size=32, num_frames=first.window, resolution=first.resolution, mode="exact",
                     train=False, shuffle_buffer=0)
    ds.decode.aspect = first.resize  # resize as the reward does
    embs = {name: ([], []) for name in models}
    texts: list[str] = []
    skipped: Counter = Counter()
    with torch.inference_mode(), tqdm(total=limit, desc="retrieval", disable=not progress, unit="clip") as bar:
        for batch in ds:
            video, tokens = batch["video"], batch["tokens"]
            skipped.update(batch.get("skipped") or {})
            if len(texts) + len(video) > limit:
                k = limit - len(texts)
                video, tokens, batch["text"] = video[:k], tokens[:k], batch["text"][:k]
            for name, rm in models.items():
                v, t = rm.model.embed_pair(rm.model.encode_video(video.to(rm.device)),
                                           rm.model.encode_text(tokens.to(rm.device)))
                embs[name][0].append(v.cpu())
                embs[name][1].append(t.cpu())
            texts += batch["text"]
            bar.update(len(video))
            if len(texts) >= limit:
                break
    skipped.update(ds.counter.delta())
    if not texts:
        msg = f"no readable {first.window}-frame clips in the shards (skipped: {dict(skipped) or 'none'})"
        return {name: {"error": msg} for name in models}
    ids = {t: i for i, t in enumerate(dict.fromkeys(texts))}
    groups = torch.tensor([ids[t] for t in texts])
    out = {}
    for name, (v, t) in embs.items():
        out[name] = {**retrieval_metrics(torch.cat(v), torch.cat(t), groups=groups), "n": len(texts),
                     "distinct_captions": len(ids), "skipped": dict(skipped)}
    return out
