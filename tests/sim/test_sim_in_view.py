"""What is in view follows the view: in first person it is what the first-person frame shows, read
from the renderer's own maps; from above the local window. Distances and "near" stay facts about
the world, the same in both views."""

import numpy as np

from mineclip.sim.env import CrafterEnv
from mineclip.sim.firstperson import KIND_IDS, KINDS, WORLD_ROWS, in_view, visible_shares
from mineclip.sim.labels import frame_label
from mineclip.sim.state import object_kind
from mineclip.sim.view import action_id
from mineclip.sim.vocab import KINDS as LABEL_KINDS


def test_the_tile_map_names_the_tile_of_every_pixel_the_semantic_map_labels():
    env = CrafterEnv(init={"time": "noon"}, view="first_person")
    env.reset(seed=5)
    for _ in range(3):
        env.step(action_id("first_person", "turn_left"))
        out, world = env.first_person, env.world
        tiles, semantic = out.tiles[:WORLD_ROWS], out.semantic[:WORLD_ROWS]
        none = tiles < 0
        assert np.isin(semantic[none], [KIND_IDS["sky"], KIND_IDS["outside"]]).all()
        assert (out.tiles[WORLD_ROWS:] == -1).all()
        height = world.area[1]
        for tile in np.unique(tiles[~none]):
            material, obj = world[(int(tile) // height, int(tile) % height)]
            shown = {KINDS[k] for k in np.unique(semantic[tiles == tile])}
            assert shown <= {material} | ({object_kind(obj)} if obj is not None else set())


def test_in_first_person_the_view_is_every_tile_and_object_the_frame_shows_pixels_of():
    env = CrafterEnv(view="first_person")
    env.reset(seed=2)
    env.step(action_id("first_person", "move_forward"))
    state, out = env.state, env.first_person
    assert state.view == in_view(out, env.world, env.player)
    assert state.shares == visible_shares(out.semantic)  # counted in the same pass, to the last bit
    px, py = state.pos
    height = env.world.area[1]
    for kind, offsets in state.view.items():
        for dx, dy in offsets:
            pixels = (out.tiles[:WORLD_ROWS] == (px + dx) * height + py + dy) & (out.semantic[:WORLD_ROWS] == KIND_IDS[kind])
            assert pixels.any(), (kind, dx, dy)
    shown = {KINDS[k] for k in np.unique(out.semantic[:WORLD_ROWS])} - {"sky", "outside"}
    assert set(state.view) == shown


def cow_behind(view: str) -> CrafterEnv:
    """A player facing down (south) with a cow right behind it."""
    env = CrafterEnv(init={"time": "noon", "facing": [0, 1], "place": [{"what": "cow", "at": [0, -1]}]}, view=view)
    env.reset(seed=0)
    return env


def test_a_cow_behind_the_player_is_in_view_from_above_but_not_in_first_person():
    top, eyes = cow_behind("top"), cow_behind("first_person")
    assert (0, -1) in top.state.view["cow"]
    assert (0, -1) not in eyes.state.view.get("cow", [])
    for env in (top, eyes):  # where the cow is is a fact about the world: the same in both views
        assert env.state.distance("cow") == 1 and (0, -1) in env.state.around["cow"]
    bit = 1 << LABEL_KINDS.index("cow")
    (seen_top, near_top, *_), (seen_eyes, near_eyes, *_) = frame_label(top.state), frame_label(eyes.state)
    assert seen_top & bit and not seen_eyes & bit  # seen: what the frame shows
    assert near_top & bit and near_eyes & bit  # near: where the cow is
    cow = eyes.world[eyes.player.pos + (0, -1)][1]
    before = eyes.state.count("cow")
    for _ in range(2):  # turn round: the cow is ahead now, in view
        eyes.step(action_id("first_person", "turn_left"))
    assert tuple(int(v) for v in cow.pos - eyes.player.pos) in eyes.state.view["cow"]
    assert eyes.state.count("cow") > before
