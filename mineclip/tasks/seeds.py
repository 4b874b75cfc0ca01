"""The one rule that keeps training worlds and evaluation worlds apart.

World seeds below `EVAL_SEED_START` are training worlds (narrated clips, RL, recorded play);
world seeds from `EVAL_SEED_START` up are held-out evaluation worlds (`mineclip tasks evalset`).
Every command that picks worlds goes through `world_seeds`, so the two sets never share a world.
"""

from __future__ import annotations

EVAL_SEED_START = 1_000_000
SEED_END = 2_000_000
SPLITS = ("train", "eval")


def split_of(world_seed: int) -> str:
    """'train' or 'eval' for a world seed."""
    if not 0 <= world_seed < SEED_END:
        raise ValueError(f"expected a world seed in [0, {SEED_END}), got {world_seed}")
    return "eval" if world_seed >= EVAL_SEED_START else "train"


def world_seeds(split: str, count: int, offset: int = 0) -> list[int]:
    """`count` consecutive world seeds of a split, starting `offset` seeds into it."""
    if split not in SPLITS:
        raise ValueError(f"expected split 'train' or 'eval', got {split!r}")
    start = (EVAL_SEED_START if split == "eval" else 0) + offset
    end = SEED_END if split == "eval" else EVAL_SEED_START
    if start + count > end:
        raise ValueError(f"{count} seeds from offset {offset} leave the {split} range")
    return list(range(start, start + count))
