"""The dialogue manager's first look at a message (CraftAssist's obscenity check, sec. 4): what is
refused before it reaches the parser, with the reply that says why. Rules, not learning."""

from __future__ import annotations

import unicodedata

from .tokens import tokenize

MAX_CHARS = 300
# a small list of words the assistant will not answer to (matched as whole words)
OFFENSIVE = frozenset({"fuck", "fucking", "fucker", "shit", "bitch", "bastard", "asshole", "cunt", "dick", "piss",
                       "slut", "whore", "retard", "motherfucker", "bullshit", "wanker", "twat", "prick"})
EXAMPLES = "'chop a tree', 'go to the water', 'place a stone next to the tree', 'what do you see'"


def refuse(text: object) -> str | None:
    """A reply refusing the message (not text, empty, too long, offensive, not in English), or None."""
    if not isinstance(text, str):
        return f"I expected a text message, got {type(text).__name__}."
    if not text.strip():
        return f"You didn't say anything. Try {EXAMPLES}."
    if len(text) > MAX_CHARS:
        return (f"That message is {len(text):,} characters long; I read commands of up to {MAX_CHARS} characters. "
                "Say one thing at a time.")
    words = tokenize(text)
    if any(w in OFFENSIVE for w in words):
        return "Let's keep it friendly: I won't act on that. Ask me again without those words."
    letters = [c for c in text if c.isalpha()]
    foreign = sum(1 for c in letters if not c.isascii() and unicodedata.category(c).startswith("L"))
    if letters and foreign / len(letters) > 0.3:
        return f"I only understand English, sorry. Try {EXAMPLES}."
    if not words:
        return f"I couldn't find any words in that. Try {EXAMPLES}."
    return None


def known_share(words: list[str], vocabulary: set[str]) -> float:
    """The share of a message's words the parser knows (nonsense and other languages score low)."""
    return sum(w in vocabulary for w in words) / len(words) if words else 0.0
