"""The simulator's ground truth for built shapes: a row counts its longest straight run of new
blocks, a single block counts every new block."""

import numpy as np

from mineclip.assist.executor import Snapshot
from mineclip.assist.intent import Intent
from mineclip.assist.outcome import ground_truth

NAMES = {1: "grass", 2: "stone"}


def snap(stones: list[tuple[int, int]]) -> Snapshot:
    mat = np.ones((64, 64), dtype=np.int32)
    for p in stones:
        mat[p] = 2
    return Snapshot(state=None, materials=mat, objects=[], frame=0, names=NAMES)


def test_a_row_needs_that_many_new_blocks_in_a_straight_line():
    before = snap([(10, 10)])  # a stone already there does not count
    row = Intent(action="BUILD", thing="stone", count=3, shape="ROW")
    ok, why = ground_truth(row, before, snap([(10, 10), (20, 5), (21, 5), (22, 5)]))
    assert ok and "longest line 3" in why
    ok, why = ground_truth(row, before, snap([(10, 10), (20, 5), (21, 5), (21, 6)]))  # an L, not a row
    assert not ok and "longest line 2" in why


def test_a_block_counts_every_new_block():
    before = snap([])
    block = Intent(action="BUILD", thing="stone", count=2, shape="BLOCK")
    assert ground_truth(block, before, snap([(3, 3), (30, 30)]))[0]
    assert not ground_truth(block, before, snap([(3, 3)]))[0]
