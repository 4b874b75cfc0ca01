"""CraftAssist's crowd-written commands (`data/craftassist/`, MIT): 4,568 commands that crowd workers
wrote for an assistant bot in Minecraft, each annotated by other workers with a 2019 action
dictionary, converted to ours (`craftassist.convert`), in a fixed split.

The split: a command's words (`tokens.tokenize`, joined by spaces) are hashed with SHA-256; the
first 8 hex digits as a number, modulo 10, put it in `train` (0-7), `validation` (8) or `test` (9).
The rule depends on nothing but the text, so it never changes, and a command written twice (the
files share some) is always in one split. The parser trains on `train`; `validation` is for choices
made while developing; `test` is only measured.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import resources

from .craftassist import convert, kind_of_2019
from .tokens import tokenize

FOLDER = "craftassist"
FILES = ("freegen_04_12.results.txt", "mturk_free_generations_02_14.results.txt",
         "mturk_free_generations_2.results.txt")
SPLITS = ("train", "validation", "test")
# 2019 kinds whose annotation has no arguments although the command names things ("where is the cave"):
# their spans are unknown, not empty, so the parser's tagger does not train on them
UNANNOTATED_SPANS = ("Answer",)


def split_of(text: str) -> str:
    """The crowd split of a command (from its words only)."""
    key = " ".join(tokenize(text)).encode()
    bucket = int(hashlib.sha256(key).hexdigest()[:8], 16) % 10
    return "train" if bucket < 8 else "validation" if bucket == 8 else "test"


def read_results(text: str) -> list[tuple[str, dict]]:
    """(command, 2019 dictionary) pairs of a results file: blocks of two lines, the command and its JSON."""
    out = []
    for n, block in enumerate(text.split("\n\n")):
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if len(lines) != 2:
            raise ValueError(f"block {n}: expected a command and its JSON dictionary on two lines, got {lines!r}")
        out.append((lines[0], json.loads(lines[1])))
    return out


@lru_cache(maxsize=1)
def _all() -> tuple[dict, ...]:
    folder = resources.files("mineclip.assist").joinpath("data", FOLDER)
    out = []
    for name in FILES:
        for i, (crowd_text, d) in enumerate(read_results(folder.joinpath(name).read_text(encoding="utf-8"))):
            c = convert(d, crowd_text)
            kind = kind_of_2019(d)
            out.append({"id": f"{name.split('.')[0]}:{i}", "file": name, "split": split_of(c.text), "text": c.text,
                        "words": c.words, "action_dict": c.action_dict, "crowd_text": crowd_text,
                        "craftassist": d, "craftassist_kind": kind, "spans_known": kind not in UNANNOTATED_SPANS})
    return tuple(out)


def load_crowd(split: str | None = "test") -> list[dict]:
    """Crowd pairs {"id", "file", "split", "text", "words", "action_dict", "crowd_text", "craftassist",
    "craftassist_kind", "spans_known"} of a split (None: all), in file order."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"expected a split in {SPLITS} or None, got {split!r}")
    return [dict(p) for p in _all() if split is None or p["split"] == split]
