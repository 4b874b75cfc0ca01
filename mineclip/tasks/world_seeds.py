"""World seeds: the one rule that keeps the worlds of every purpose apart.

Each purpose draws its crafter worlds from its own range, and no two ranges overlap, so no world
that trains a model (narrated clips, PPO) is ever one it is evaluated on (held-out clips, the
judge's evaluation set, PPO's evaluation), whatever the command and its defaults. Every command
that picks worlds asks `world_seeds`; `tests/tasks/test_tasks_world_seeds.py` checks the defaults of each.

Seeds below `EVAL_SEED_START` form the training split, seeds from it up the held-out split
(`split_of`, recorded in every trajectory).
"""

from __future__ import annotations

EVAL_SEED_START = 1_000_000
SEED_END = 2_000_000  # the suite's purposes use the first two million of crafter's worlds (sim.env.WORLD_SEEDS)

# purpose -> [first seed, end); disjoint, in order
RANGES: dict[str, tuple[int, int]] = {
    "rl_train": (0, 500),              # worlds PPO trains on (`mineclip rl`)
    "demos": (500, 1_000),             # scripted demonstrations (difficulty scores)
    "play": (1_000, 10_000),           # recorded play (`mineclip play record`)
    "clips": (10_000, 400_000),        # narrated training clips (`mineclip play clips`, the pipeline)
    "perception": (400_000, 500_000),  # frames the perception thresholds are fitted on (mineclip.perception)
    "val_clips": (500_000, 1_000_000),  # held-out clips for retrieval and validation
    "evalset": (1_000_000, 1_400_000),  # the judge's labelled evaluation set (`mineclip play evalset`)
    "perception_eval": (1_400_000, 1_500_000),  # held-out worlds of bench/perception.py (MP5's tables)
    "rl_eval": (1_500_000, 2_000_000),  # worlds PPO policies are evaluated on
}
PURPOSES = tuple(RANGES)
SPLITS = ("train", "eval")


def split_of(world_seed: int) -> str:
    """'train' or 'eval' for a world seed."""
    if not 0 <= world_seed < SEED_END:
        raise ValueError(f"expected a world seed in [0, {SEED_END}), got {world_seed}")
    return "eval" if world_seed >= EVAL_SEED_START else "train"


def purpose_of(world_seed: int) -> str:
    """The purpose whose range holds a world seed."""
    for purpose, (start, end) in RANGES.items():
        if start <= world_seed < end:
            return purpose
    raise ValueError(f"expected a world seed in [0, {SEED_END}), got {world_seed}")


def world_seeds(purpose: str, count: int, offset: int = 0) -> list[int]:
    """`count` consecutive world seeds of a purpose's range, starting `offset` seeds into it."""
    if purpose not in RANGES:
        raise ValueError(f"expected a world purpose in {PURPOSES}, got {purpose!r}")
    if count < 0 or offset < 0:
        raise ValueError(f"expected a non-negative count and offset, got {count} and {offset}")
    start, end = RANGES[purpose]
    if start + offset + count > end:
        raise ValueError(f"{count} seeds from offset {offset} leave the {purpose!r} range [{start}, {end})")
    return list(range(start + offset, start + offset + count))
