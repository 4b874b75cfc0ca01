"""The hand-written commands (`data/handwritten.json`): natural commands in other words than the
generator's templates (CraftAssist's "rephrases" and "prompts"), each with its expected action
dictionary. Never trained on. Split `dev` guided the generator's design; split `test` (>= 200)
is what the benchmark reports."""

from __future__ import annotations

import json
from importlib import resources

from .schema import validate
from .tokens import tokenize

FILE = "handwritten.json"
SPLITS = ("dev", "test")


def load_handwritten(split: str | None = "test") -> list[dict]:
    """Hand-written pairs {"id", "split", "text", "words", "action_dict"} of a split (None: all), validated."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"expected a split in {SPLITS} or None, got {split!r}")
    raw = json.loads(resources.files("mineclip.assist").joinpath("data", FILE).read_text(encoding="utf-8"))
    out = []
    for rec in raw:
        if split is not None and rec["split"] != split:
            continue
        words = tokenize(rec["text"])
        validate(rec["action_dict"], num_words=len(words))
        out.append({**rec, "words": words})
    return out
