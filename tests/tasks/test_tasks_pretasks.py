import pytest

from mineclip.tasks import get_task
from mineclip.tasks.pretasks import (GraphError, PreTaskGraph, derive, expand, planning_graph, present_at_init,
                                     task_graph)


def test_wooden_pickaxe_from_nothing_by_hand():
    # make_wood_pickaxe <- collect_wood, place_table; place_table <- collect_wood; collect_wood <- find_tree
    g = expand(["make_wood_pickaxe"])
    assert g.vertices == {"make_wood_pickaxe", "collect_wood", "place_table", "find_tree"}
    assert len(g.edges()) == 4 and g.size() == 8 and g.roots == ("make_wood_pickaxe",)
    assert g.order()[0] == "find_tree" and g.order()[-1] == "make_wood_pickaxe"  # Kahn: pre-tasks first


def test_prune_removes_what_the_initialisation_provides_but_never_the_goal():
    g = expand(["make_stone_pickaxe"])
    assert g.prune({"make_wood_pickaxe", "collect_wood"}).vertices == {"make_stone_pickaxe", "collect_stone", "find_stone",
                                                                 "place_table"}
    assert expand(["find_diamond"]).prune({"find_diamond"}).size() == 1  # the goal itself stays
    assert present_at_init({"inventory": {"wood": 0, "stone": 2, "food": 9}, "place": [{"what": "table"}],
                            "spawn": {"near": {"water": 2}, "floor": "sand"}}) == \
        {"collect_stone", "find_table", "place_table", "find_water", "find_sand"}


def test_or_nodes_need_one_alternative_and_are_done_when_one_is_there():
    g = derive({"any": [{"achieve": {"eat_cow": 1}}, {"achieve": {"eat_plant": 1}}]})
    root = g.roots[0]
    assert g.mode(root) == "or" and set(g.pre(root)) == {"eat_cow", "eat_plant"}
    assert g.prune({"find_cow"}).vertices == {root, "eat_cow", "eat_plant", "find_plant"}
    food = expand(["obtain_food"])
    assert food.prune({"eat_cow"}).vertices == {"obtain_food"}  # an alternative present: nothing more to do


def test_find_is_a_search_and_creative_tasks_are_read_from_their_plan():
    assert derive({"near": {"diamond": 1}}).vertices == {"find_diamond"}
    assert derive({"achieve": {"collect_diamond": 1}}).size() > 30
    assert task_graph(get_task("lay_stone_row")).roots == ("place_stone",)
    assert planning_graph(get_task("find_cow_beach_day")).roots == ("find_cow", "find_sand", "find_tree", "find_water")


def test_yaml_form_round_trips_and_union_merges():
    g = expand(["make_wood_sword"])
    assert PreTaskGraph.from_dict(g.to_dict()) == g
    u = g.union(expand(["collect_drink"]))
    assert u.roots == ("collect_drink", "make_wood_sword") and u.size() == g.size() + 3  # + collect_drink <- find_water


def test_malformed_graphs_are_refused_with_a_reason():
    with pytest.raises(GraphError, match="cycle"):
        PreTaskGraph({"a": ("and", ("b",)), "b": ("and", ("a",))}, ("a",))
    with pytest.raises(GraphError, match="mode"):
        PreTaskGraph({"a": ("xor", ("b",))}, ("a",))
    with pytest.raises(GraphError, match="roots"):
        PreTaskGraph.from_dict({"graph": {"a": {"and": ["b"]}}})
    with pytest.raises(GraphError, match="exactly one of and/or"):
        PreTaskGraph.from_dict({"roots": ["a"], "graph": {"a": {"and": ["b"], "or": ["c"]}}})
    with pytest.raises(GraphError, match="cannot merge"):
        PreTaskGraph({"a": ("and", ("b", "c"))}, ("a",)).union(PreTaskGraph({"a": ("or", ("b", "c"))}, ("a",)))
    with pytest.raises(ValueError, match="task x: pre-task 'a' lists itself"):
        from mineclip.tasks.registry import load_yaml_tasks

        load_yaml_tasks("x: {prompt: p, category: harvest, success: {achieve: {collect_wood: 1}}, "
                        "pre_tasks: {roots: [a], graph: {a: {and: [a]}}}}")
