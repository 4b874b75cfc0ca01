"""Frame labels from the simulator's state: what the frame read-out is trained on."""

import numpy as np
import pytest

from mineclip.sim.labels import BINARY, ITEMS, KINDS, decode_frames, encode_frames, frame_label
from mineclip.sim.state import WorldState
from mineclip.tasks.env import CrafterTaskEnv


def state(view: dict, **inventory) -> WorldState:
    inv = {item: 0 for item in ITEMS} | {"health": 9, "food": 6, "drink": 6, "energy": 9} | inventory
    return WorldState(step=0, inventory=inv, achievements={}, pos=(10, 10), facing=(0, 1), facing_kind="grass",
                      sleeping=False, daylight=0.9, view=view)


def test_a_frame_says_what_is_in_view_next_to_the_player_the_time_and_the_bar():
    s = state({"grass": [(0, 1)], "water": [(1, 0), (5, 2)], "cow": [(3, 3)], "zombie": [(0, -1)]}, wood=12)
    seen, near, day, inv = frame_label(s)
    assert {k for i, k in enumerate(KINDS) if seen >> i & 1} == {"grass", "water", "cow", "zombie"}
    assert {k for i, k in enumerate(KINDS) if near >> i & 1} == {"grass", "water", "zombie"}  # the cow is 6 away
    assert day == 1 and inv[ITEMS.index("wood")] == 9 and inv[ITEMS.index("drink")] == 6  # counts stop at 9

    binary, counts = decode_frames(encode_frames([s, state({})]), [1, 0])
    assert binary.shape == (2, BINARY) and counts.shape == (2, len(ITEMS))
    assert binary[0, : 2 * len(KINDS)].sum() == 0 and binary[1, KINDS.index("water")] == 1
    assert binary[1, 2 * len(KINDS)] == 1  # day
    assert counts[1, ITEMS.index("wood")] == 1.0 and np.isclose(counts[1, ITEMS.index("drink")], 6 / 9)


def test_labels_of_a_played_frame_match_its_state():
    env = CrafterTaskEnv("combat_zombie_night")
    env.reset(seed=2)
    seen, near, day, inv = frame_label(env.state)
    assert seen >> KINDS.index("zombie") & 1 and day == 0 and inv[ITEMS.index("wood_sword")] == 1


@pytest.mark.parametrize("labels, why", [
    ({"seen": [1], "near": [0], "day": [1]}, "frame labels must hold"),
    ({"seen": [1], "near": [0], "day": [1], "inv": [[1, 2]]}, r"inv must be \[frames, 16\]"),
    ({"seen": ["a"], "near": [0], "day": [1], "inv": [[0] * 16]}, "frame labels must hold"),
])
def test_malformed_labels_are_a_clear_error(labels, why):
    with pytest.raises(ValueError, match=why):
        decode_frames(labels, [0])
