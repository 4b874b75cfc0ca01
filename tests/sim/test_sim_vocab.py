"""`sim.vocab.acted_on`: the one reading of which kind an event or a task atom acts on, shared by the
narrator (size ranking's named kinds) and MP5's Planner (which target a sub-objective walks to)."""

from mineclip.sim.vocab import KINDS, acted_on


def test_acted_on_names_the_kind_a_frame_shows():
    assert [acted_on(e) for e in ("collect_wood", "collect_drink", "collect_stone", "eat_cow", "defeat_zombie",
                                  "hit_skeleton", "reach_lava", "find_water", "eat_plant")] == [
        "tree", "water", "stone", "cow", "zombie", "skeleton", "lava", "water", "plant"]
    assert all(acted_on(e) in KINDS for e in ("collect_coal", "collect_iron", "collect_diamond", "collect_sapling"))


def test_acted_on_is_none_for_what_acts_on_no_kind():
    for name in ("place_table", "make_wood_pickaxe", "nightfall", "wake_up", "sleep", "collect_nothing", "find_", "eat"):
        assert acted_on(name) is None, name
