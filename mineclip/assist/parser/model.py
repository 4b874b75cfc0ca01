"""The parser network: words -> (word embedding + hashed character n-grams) -> bi-GRU ->
multi-head self-attention -> per-word BIO slot tags, and one attention-pooled classifier per field.

Character n-grams give words the parser never saw a representation from their spelling; unknown
words otherwise reach it as `<unk>` and are tagged from their context (which is what the spans are
for: the slot's words are copied from the message, whatever they are).
"""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import torch
from torch import nn

from ..semantic_frame import CLASSES, TAGS

PAD, UNK = "<pad>", "<unk>"


@dataclass
class ParserConfig:
    """Sizes and vocabularies of a parser (saved next to its weights)."""

    vocab: list[str] = field(default_factory=lambda: [PAD, UNK])
    dim: int = 64
    hidden: int = 96
    heads: int = 4
    ngram_buckets: int = 4096
    tags: list[str] = field(default_factory=lambda: list(TAGS))
    classes: dict[str, list[str]] = field(default_factory=lambda: {k: list(v) for k, v in CLASSES.items()})

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> ParserConfig:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@lru_cache(maxsize=100_000)
def ngram_ids(word: str, buckets: int) -> tuple[int, ...]:
    """Hashed character 3- and 4-grams of `<word>` (crc32, stable across processes)."""
    w = f"<{word[:40]}>"
    grams = [w[i:i + n] for n in (3, 4) for i in range(len(w) - n + 1)] or [w]
    return tuple(1 + zlib.crc32(g.encode()) % (buckets - 1) for g in grams)  # 0 is padding


class Parser(nn.Module):
    """Tags [B, T] words with BIO slot tags and classifies each field of the dictionary."""

    def __init__(self, config: ParserConfig):
        super().__init__()
        self.config = config
        c = config
        self.index = {w: i for i, w in enumerate(c.vocab)}
        self.words = nn.Embedding(len(c.vocab), c.dim, padding_idx=0)
        self.ngrams = nn.EmbeddingBag(c.ngram_buckets, c.dim, mode="mean", padding_idx=0)
        self.gru = nn.GRU(2 * c.dim, c.hidden, batch_first=True, bidirectional=True)
        width = 2 * c.hidden
        self.attn = nn.MultiheadAttention(width, c.heads, batch_first=True)
        self.norm = nn.LayerNorm(width)
        self.tagger = nn.Linear(width, len(c.tags))
        self.queries = nn.ParameterDict({k: nn.Parameter(torch.randn(1, 1, width) * 0.02) for k in c.classes})
        self.pool = nn.MultiheadAttention(width, c.heads, batch_first=True)
        self.heads = nn.ModuleDict({k: nn.Linear(2 * width, len(v)) for k, v in c.classes.items()})

    # -- inputs --------------------------------------------------------------------------------
    def encode_words(self, sentences: list[list[str]], unk_prob: float = 0.0,
                     generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Word ids [B, T], n-gram ids [B*T, G] and the padding mask [B, T] (True = a word)."""
        b, t = len(sentences), max(1, max((len(s) for s in sentences), default=1))
        rows = [[self.index.get(w, 1) for w in s] + [0] * (t - len(s)) for s in sentences]
        ids = torch.tensor(rows, dtype=torch.long)
        mask = ids != 0
        for i, s in enumerate(sentences):  # a word can be <pad> only by padding
            mask[i, :len(s)] = True
        grams = [ngram_ids(s[j], self.config.ngram_buckets) if j < len(s) else (0,)
                 for s in sentences for j in range(t)]
        if unk_prob > 0:
            drop = (torch.rand(b, t, generator=generator) < unk_prob) & mask
            ids = ids.masked_fill(drop, 1)
        g = max(len(x) for x in grams)
        gram_ids = torch.tensor([x + (0,) * (g - len(x)) for x in grams], dtype=torch.long)
        return ids, gram_ids, mask

    # -- network -------------------------------------------------------------------------------
    def forward(self, ids: torch.Tensor, gram_ids: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Tag logits [B, T, tags] and class logits {field: [B, classes]}."""
        b, t = ids.shape
        x = torch.cat([self.words(ids), self.ngrams(gram_ids).view(b, t, -1)], dim=-1)
        lengths = mask.sum(1).clamp(min=1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        h, _ = self.gru(packed)
        h, _ = nn.utils.rnn.pad_packed_sequence(h, batch_first=True, total_length=t)
        a, _ = self.attn(h, h, h, key_padding_mask=~mask)
        h = self.norm(h + a)
        tags = self.tagger(h)
        summary = (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        out = {}
        for name, head in self.heads.items():
            pooled, _ = self.pool(self.queries[name].expand(b, -1, -1), h, h, key_padding_mask=~mask)
            out[name] = head(torch.cat([pooled[:, 0], summary], dim=-1))
        return tags, out
