"""CLIP BPE tokenisation with the released MineCLIP's text cleaning (works offline)."""

from __future__ import annotations

import functools
import unicodedata

import regex as re
import torch

CONTEXT_LENGTH = 77
SOT_TOKEN = 49406
EOT_TOKEN = 49407


@functools.lru_cache(maxsize=1)
def _bpe():
    from open_clip.tokenizer import SimpleTokenizer

    return SimpleTokenizer()


def clean_text(text: str) -> str:
    """What Hugging Face's fast CLIP tokenizer does before BPE: NFC, collapse whitespace, lower-case.

    open_clip's own cleaning also runs ftfy and HTML unescaping, which changes ids for strings such
    as `&amp;` or curly quotes; the released checkpoints were trained without that.
    """
    return " ".join(unicodedata.normalize("NFC", text).split()).lower()


def bpe_ids(text: str) -> list[int]:
    """BPE ids of one string, without start/end tokens."""
    tok = _bpe()
    ids: list[int] = []
    for piece in re.findall(tok.pat, clean_text(text)):
        piece = "".join(tok.byte_encoder[b] for b in piece.encode("utf-8"))
        ids.extend(tok.encoder[p] for p in tok.bpe(piece).split(" "))
    return ids


def count_tokens(text: str) -> int:
    """Number of BPE tokens of a string (start and end tokens not counted)."""
    return len(bpe_ids(text))


def tokenize(texts: str | list[str], context_length: int = CONTEXT_LENGTH) -> torch.LongTensor:
    """`[SOT] + bpe[:context_length - 2] + [EOT]`, zero-padded: LongTensor [N, context_length]."""
    if isinstance(texts, str):
        texts = [texts]
    if len(texts) == 0:
        raise ValueError("expected at least one text, got an empty list")
    out = torch.zeros(len(texts), context_length, dtype=torch.long)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"expected str texts, got {type(text).__name__} at index {i}")
        ids = [SOT_TOKEN] + bpe_ids(text)[: context_length - 2] + [EOT_TOKEN]
        out[i, : len(ids)] = torch.tensor(ids)
    return out
