from mineclip.assist.prereq import prerequisites
from mineclip.tasks.pretasks import expand


def test_placing_stone_from_nothing_needs_the_whole_chain():
    assert prerequisites("place_stone", {}) == [("collect", "wood", 3), ("place", "table", 1),
                                                ("make", "wood_pickaxe", 1), ("collect", "stone", 1)]


def test_what_is_held_or_near_is_not_fetched_again():
    assert prerequisites("place_stone", {"stone": 2}) == []
    assert prerequisites("make_stone_pickaxe", {"wood": 1, "wood_pickaxe": 1}, near={"table"}) == \
        [("collect", "stone", 1)]
    # held, but not enough for everything: collected up to what the plan consumes
    assert prerequisites("make_wood_pickaxe", {"wood": 1}) == [("collect", "wood", 2), ("place", "table", 1)]


def test_amounts_follow_what_the_command_consumes():
    assert prerequisites("place_stone", {"wood_pickaxe": 1}, consumes={"stone": 4}) == [("collect", "stone", 4)]


def test_the_sub_tasks_are_the_suite_pre_task_graph_in_order():
    steps = prerequisites("make_iron_pickaxe", {})
    graph = expand(["make_iron_pickaxe"])
    atoms = {f"{k}_{w}" for k, w, _ in steps}
    assert atoms == {a for a in graph.vertices if not a.startswith("find_")} - {"make_iron_pickaxe"}
    order = [a for a in graph.order() if a in atoms]
    assert [f"{k}_{w}" for k, w, _ in steps] == order
