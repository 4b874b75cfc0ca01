"""Words of a message: the one tokenizer that spans index into, and the text of a span."""

from __future__ import annotations

import re

TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def tokenize(text: str) -> list[str]:
    """Lower-case words and numbers of a message (punctuation dropped; "don't" stays one word)."""
    return TOKEN.findall(text.lower())


def span_words(tokens: list[str], span) -> list[str]:
    """The words a span `[sentence_index, [start, end]]` (end inclusive) covers."""
    _, (start, end) = span
    return tokens[start:end + 1]


def span_text(tokens: list[str], span) -> str:
    """The words of a span joined by spaces."""
    return " ".join(span_words(tokens, span))
