"""mineclip.perception.planner: the process agent decides from its observation and its perceiver's
places only (the world's maps raise while it decides, and its code names none of them); the Planner's
sub-objectives follow the task's pre-task graph with crafter's recipe counts, grounded by what was
seen; a failed step is planned again (and a fixed plan does not); the Performer memory replays what
succeeded; the blind ablation is never given a sight; MP5's failures (death, time-out)."""

import ast
import inspect
import textwrap

import pytest

from mineclip.perception import planner as planner_module
from mineclip.perception.patroller import make_perceiver
from mineclip.perception.planner import (
    Performer,
    PerformerMemory,
    Planner,
    ProcessAgent,
    Situation,
    perform,
    sight_of,
)
from mineclip.perception.seeker import Sight, observe
from mineclip.sim.vocab import MAKE, PLACE
from mineclip.tasks.env import CrafterTaskEnv

from helpers.blindfold import GuardedEnv, guarded
from mineclip.tasks.pretasks import PreTaskGraph, task_graph
from mineclip.tasks.registry import get_task

FP = "first_person"
WORLD = 1_400_001  # a held-out world (perception_eval) where every ablation but blind makes a wooden pickaxe


GuardedAgent = guarded(ProcessAgent)


def test_the_process_agent_decides_with_the_worlds_maps_raising_and_still_succeeds(monkeypatch):
    monkeypatch.setattr(planner_module, "CrafterTaskEnv", GuardedEnv)
    task = get_task("mp5_wood_pickaxe")
    agent = GuardedAgent(task, FP, "full", seed=WORLD)
    GuardedAgent.calls = 0
    outcome = perform(task, make_perceiver("ground_truth"), WORLD, FP, agent=agent)
    assert outcome.success and not outcome.died and outcome.done >= 4
    assert GuardedAgent.calls == outcome.steps  # every decision was made with the maps hidden


FORBIDDEN_NAMES = {"env", "world", "state", "player", "context", "around", "_mat_map", "_obj_map", "objects",
                   "_objects", "core", "first_person", "render", "solution"}


@pytest.mark.parametrize("thing", [Planner, Performer, PerformerMemory, ProcessAgent])
def test_the_agents_decision_code_names_no_part_of_the_environment(thing):
    tree = ast.parse(textwrap.dedent(inspect.getsource(thing)))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not (names | attrs) & FORBIDDEN_NAMES, (names | attrs) & FORBIDDEN_NAMES


def _planner(task_id, **kwargs):
    task = get_task(task_id)
    return Planner(task_graph(task), **kwargs), task_graph(task)


def test_the_plan_follows_the_pretask_graph_with_the_recipes_counts():
    planner, graph = _planner("mp5_wood_pickaxe")
    plan = planner.plan(Situation())
    assert set(plan) <= graph.vertices
    for i, atom in enumerate(plan):  # every pre-task of a step comes before it
        assert all(p in plan[:i] for p in graph.pre(atom)), (atom, plan[:i])
    wood = PLACE["table"]["uses"]["wood"] + MAKE["wood_pickaxe"]["uses"]["wood"]
    assert plan.count("collect_wood") == wood and plan.count("find_tree") == 1
    assert plan[-1] == "make_wood_pickaxe" and plan.count("place_table") == 1


def test_the_plan_is_grounded_in_what_perception_showed_and_what_is_held():
    grounded, _ = _planner("mp5_mine_stone")
    fixed, _ = _planner("mp5_mine_stone", grounded=False)
    seen = Situation(known={"tree", "stone", "table"}, placed={"table"})
    plan = grounded.plan(seen)
    assert "find_tree" not in plan and "find_stone" not in plan and "place_table" not in plan
    assert set(grounded.skipped) == {"tree", "stone"}
    assert {"find_tree", "find_stone", "place_table"} <= set(fixed.plan(seen))  # no grounding: the graph as is
    assert grounded.plan(Situation(inventory={"wood_pickaxe": 1}, known={"stone"})) == ["collect_stone"]
    assert grounded.plan(Situation(achievements={"collect_stone": 1})) == []
    blind, _ = _planner("mp5_mine_stone", blind=True)
    assert not [a for a in blind.plan(Situation()) if a.startswith("find_")]  # a find it cannot confirm


def test_an_or_takes_the_alternative_perception_has_shown():
    graph = PreTaskGraph.from_dict({"roots": ["obtain_food"], "graph": {
        "obtain_food": {"or": ["eat_cow", "eat_plant"]}, "eat_cow": {"and": ["find_cow"]},
        "eat_plant": {"and": ["find_plant"]}}})
    assert Planner(graph).plan(Situation(known={"plant"})) == ["eat_plant"]
    assert Planner(graph).plan(Situation()) == ["find_cow", "eat_cow"]


def _play_dropping_wood(ablation: str):
    """mp5_craft_table, where one wood is taken away when the agent first sets out to place the table."""
    task = get_task("mp5_craft_table")
    env = CrafterTaskEnv(task, view=FP)
    env.reset(seed=WORLD)
    agent = ProcessAgent(task, FP, ablation, seed=WORLD)
    perceiver = make_perceiver("ground_truth")
    start = (int(env.player.pos[0]), int(env.player.pos[1]))
    dropped, info = False, {}
    for _ in range(env.max_steps):
        obs = observe(env, start)
        action = agent.act(obs, sight_of(perceiver, env, obs.frame, obs.facing))
        if action is None:
            break
        if agent.sub == "place_table" and not dropped:
            env.player.inventory["wood"] -= 1
            dropped = True
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert dropped
    return agent, bool(info.get("success"))


def test_a_failed_step_is_planned_again_and_a_fixed_plan_is_not():
    full, success = _play_dropping_wood("full")
    # the Patroller failed the placing (a wood short), the Planner sent it for one more wood, then it placed
    assert success and full.replans >= 1 and "place_table" in full.failed
    assert full.done.count("collect_wood") == PLACE["table"]["uses"]["wood"] + 1
    fixed, success = _play_dropping_wood("fixed")
    assert not success and fixed.replans == 0 and "place_table" in fixed.failed and "place_table" not in fixed.done


def test_the_performer_memory_replays_a_sequence_that_succeeded_when_the_situation_recurs():
    task = get_task("mp5_wood_pickaxe")
    skills = PerformerMemory()
    agent = ProcessAgent(task, FP, "full", seed=WORLD, skills=skills)
    first = perform(task, make_perceiver("ground_truth"), WORLD, FP, agent=agent)
    assert first.success and skills.stored > 0
    second = perform(task, make_perceiver("ground_truth"), WORLD + 1, FP, agent=agent)
    assert second.success and second.reused > 0
    fresh = perform(task, make_perceiver("ground_truth"), WORLD + 1, FP)
    assert second.reused > fresh.reused  # what the first episode stored is replayed in the second
    # a replay the Patroller does not confirm is forgotten
    performer = Performer(FP, skills=skills)
    key = next(iter(skills.entries))
    performer.replay_key = key
    performer.finish(False)
    assert key not in skills.entries and skills.forgotten == 1


def test_the_no_memory_agent_plans_as_the_full_one_and_never_stores_or_replays():
    task = get_task("mp5_wood_pickaxe")
    skills = PerformerMemory()
    agent = ProcessAgent(task, FP, "no_memory", seed=WORLD, skills=skills)
    assert agent.situated and agent.planner.grounded
    for world in (WORLD, WORLD + 1):
        outcome = perform(task, make_perceiver("ground_truth"), world, FP, agent=agent)
        assert outcome.success and outcome.ablation == "no_memory" and outcome.reused == 0
    assert skills.stored == 0 and not skills.entries


class Blindfold:
    name = "ground_truth"

    def locate(self, *args):
        raise AssertionError("the blind agent's perceiver was asked")

    answer = locate


def test_the_blind_agent_is_never_given_a_sight(monkeypatch):
    seen = []
    original = ProcessAgent.act

    def act(self, obs, sight):
        seen.append(sight)
        return original(self, obs, sight)

    monkeypatch.setattr(ProcessAgent, "act", act)
    outcome = perform("mp5_mine_log", Blindfold(), WORLD, FP, ablation="blind", max_steps=40)
    assert seen and all(s == Sight() for s in seen) and outcome.ablation == "blind"


def test_death_and_time_out_are_failures_and_top_view_plays_too():
    dead = perform("mp5_wood_pickaxe", make_perceiver("ground_truth"), WORLD, FP, init={"inventory": {"health": 0}})
    assert dead.died and not dead.success and not dead.timed_out
    assert 0.0 <= dead.daylight <= 1.0 and set(dead.threats) <= {"zombie", "skeleton", "arrow"}
    late = perform("mp5_wood_pickaxe", make_perceiver("ground_truth"), WORLD, FP, max_steps=3)
    assert late.timed_out and not late.success and late.steps == 3
    assert late.threats == () and late.daylight is None  # recorded at a death only
    top = perform("mp5_wood_pickaxe", make_perceiver("ground_truth"), WORLD, "top")
    assert top.success and top.view == "top"
