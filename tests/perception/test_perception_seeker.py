"""mineclip.perception.seeker: the Seeker decides from its frame, inventory, pose and its perceiver's
answers only (the world's maps raise while it decides, and its code names none of them), finds a cow
behind it by turning, runs with the learned Percipient through the same interface; and the hidden
placement of mineclip.tasks.placement puts every scene out of the first frame, farther by level."""

import ast
import inspect
import textwrap

import numpy as np
import pytest
import torch

from mineclip.perception import seeker as seeker_module
from mineclip.perception.benchmark import ContextSettings, run_context, success_markdown
from mineclip.perception.calibrate import context_tasks
from mineclip.perception.conditions import Condition, conditions_of
from mineclip.perception.head import PATCH_DISTANCE, PerceptionHead, place_patches
from mineclip.perception.patroller import ActivePerceiver, head_locate, make_perceiver
from mineclip.perception.percipient import Percipient
from mineclip.perception.seeker import Memory, Observation, Seeker, Sight, seek, to_ego, to_world
from mineclip.sim.env import CrafterEnv
from mineclip.sim.view import action_id
from mineclip.tasks.env import CrafterTaskEnv

from helpers.blindfold import Forbidden, GuardedEnv, guarded
from mineclip.tasks.placement import HIDDEN_SHIFT, check_placement, placement_init, task_level
from mineclip.tasks.registry import get_task

FP = "first_person"
COW_BEHIND = {"time": "noon", "facing": [0, 1], "place": [{"what": "cow", "at": [0, -3]}]}


GuardedSeeker = guarded(Seeker)


def test_the_seeker_decides_with_the_worlds_maps_raising_and_still_succeeds(monkeypatch):
    monkeypatch.setattr(seeker_module, "CrafterTaskEnv", GuardedEnv)
    task = get_task("find_cow_near_water_day")
    agent = GuardedSeeker(conditions_of(task), FP, done_action=17, seed=0)
    GuardedSeeker.calls = 0
    outcome = seek(task, make_perceiver("ground_truth"), 1000, placement="hidden", agent=agent)
    assert outcome.success and outcome.agent == "seeker" and outcome.placement == "hidden"
    assert GuardedSeeker.calls == outcome.steps + 1  # every decision was made with the maps hidden
    with pytest.raises(AssertionError, match="world._mat_map"):  # the guard does catch a read
        np.asarray(Forbidden("world._mat_map"))


FORBIDDEN_NAMES = {"env", "world", "state", "player", "context", "around", "_mat_map", "_obj_map", "objects",
                   "_objects", "core", "first_person", "render", "solution"}


@pytest.mark.parametrize("thing", [Seeker, Memory])
def test_the_seekers_decision_code_names_no_part_of_the_environment(thing):
    tree = ast.parse(textwrap.dedent(inspect.getsource(thing)))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not (names | attrs) & FORBIDDEN_NAMES, (names | attrs) & FORBIDDEN_NAMES


def test_find_a_cow_behind_the_player_turns_to_find_it_then_walks_there():
    env = CrafterTaskEnv("find_a_cow", declare_done=True, view=FP)
    env.reset(seed=0, options={"init": COW_BEHIND})
    assert "cow" not in env.state.view and env.state.distance("cow") == 3  # behind it, none in view
    actions = []

    class Recording(Seeker):
        def act(self, obs, sight):
            actions.append(super().act(obs, sight))
            return actions[-1]

    agent = Recording(conditions_of(get_task("find_a_cow")), FP, done_action=17)
    outcome = seek("find_a_cow", make_perceiver("ground_truth"), 0, init=COW_BEHIND, agent=agent)
    assert outcome.success and outcome.declared
    turn = {action_id(FP, "turn_left"), action_id(FP, "turn_right")}
    assert actions[0] in turn and actions[1] in turn  # it turned round before anything else
    assert outcome.found_at == 2  # the second quarter turn shows what is behind
    assert action_id(FP, "move_forward") in actions[2:]  # then walked to it
    assert actions[-1] == 17


def test_memory_keeps_what_was_seen_and_forgets_a_creature_that_is_gone():
    mem = Memory()
    facing = (0, 1)
    assert to_ego(facing, to_world(facing, 3, -2)) == (3, -2)
    mem.update(Observation(None, {}, (0, 0), facing, 0), Sight({}, {"cow": [(2, 0)], "water": [(3, 1)]},
                                                                {(1, 0), (2, 0), (3, 1)}))
    cow, water = to_world(facing, 2, 0), to_world(facing, 3, 1)
    assert mem.where("cow", 0) == [cow] and mem.where("water", 0) == [water]
    assert not mem.free(water, 0) and not mem.free(cow, 0) and mem.free((5, 5), 0)  # never seen: free
    # turned away: still remembered; looking at the tile again without the cow: forgotten
    mem.update(Observation(None, {}, (0, 0), (1, 0), 1), Sight({}, {}, {(1, 0)}))
    assert mem.where("cow", 1) == [cow]
    mem.update(Observation(None, {}, (0, 0), facing, 2), Sight({}, {}, {(2, 0), (3, 1)}))
    assert mem.where("cow", 2) == [] and mem.where("water", 2) == [water]


def test_memory_takes_an_asked_things_places_only_from_a_frame_that_confirms_it():
    cow = Condition("creature", "cow", (("near", 1),))
    where = {"cow": [(2, 0)], "water": [(3, 1)]}
    for answer in ("unsure", "no"):  # placed, but not confirmed: not remembered (water, not asked, is)
        mem = Memory()
        mem.update(Observation(None, {}, (0, 0), (0, 1), 0), Sight({cow: answer}, where, {(2, 0), (3, 1)}))
        assert mem.where("cow", 0) == [] and mem.where("water", 0) == [to_world((0, 1), 3, 1)]
    mem = Memory()
    mem.update(Observation(None, {}, (0, 0), (0, 1), 0), Sight({cow: "yes"}, where, {(2, 0), (3, 1)}))
    assert mem.where("cow", 0) == [to_world((0, 1), 2, 0)]


def _head(width: int, bias: float) -> PerceptionHead:
    return PerceptionHead(["cow"], torch.zeros(1, width), torch.full((1,), bias), torch.zeros(width),
                          torch.ones(width), [], torch.zeros(0, 1), torch.zeros(0), torch.zeros(1), torch.ones(1),
                          view=FP)


def test_the_learned_percipient_answers_and_locates_through_the_same_interface(sim_model):
    width = sim_model.model.config.vision.width
    frame = np.zeros((160, 256, 3), np.uint8)
    where, visible = head_locate(Percipient(sim_model, {}, _head(width, 10.0)), frame, (0, 1))
    finite = sorted({max(1, round(float(d))) for d in PATCH_DISTANCE.tolist() if np.isfinite(d)})
    assert sorted({a for a, _ in visible}) == finite  # every patch that shows ground
    # every patch sees a cow: each column's is one cow standing on its lowest patch's ground
    assert {a for a, _ in where["cow"]} == {max(1, round(float(PATCH_DISTANCE[8])))}
    assert all(abs(r) <= a + 1 for a, r in where["cow"])  # within the 90-degree view
    assert head_locate(Percipient(sim_model, {}, _head(width, -10.0)), frame, (0, 1))[0] == {}
    assert head_locate(Percipient(sim_model, {}, None), frame, (0, 1)) == ({}, None)
    perceiver = ActivePerceiver(Percipient(sim_model, {}, _head(width, 10.0)))
    outcome = seek("find_a_cow", perceiver, 3, init=COW_BEHIND, max_steps=4)
    assert outcome.perceiver == "active" and not outcome.declared  # uncalibrated: unsure, never declares
    assert outcome.questions == 4


def test_an_upright_thing_is_placed_where_it_meets_the_ground_a_floor_patch_by_patch():
    rows, column = 9, 8  # a column just right of the centre: bearing ~0
    on = np.zeros((16 * rows, 3), bool)
    run = [column * rows + y for y in (4, 5, 6)]  # three patches above each other, the lowest at row 6
    on[run, :] = True
    where, _ = place_patches(on, ["tree", "cow", "water"], FP, (0, 1))
    foot = float(PATCH_DISTANCE[run[-1]])
    assert where["cow"] == [(round(foot), 0)]  # a sprite stands on its lowest patch's ground
    assert where["tree"] == [(round(foot + 0.5), 0)]  # a block's near face is half a tile before its centre
    assert len(where["water"]) == 3  # a floor: each patch is ground of its own distance
    assert sorted(a for a, _ in where["water"]) == sorted(max(1, round(float(PATCH_DISTANCE[i]))) for i in run)
    on[run[-1], 1] = False  # the cow's run ends a patch higher: it stands farther off
    farther = round(float(PATCH_DISTANCE[run[-2]]))
    assert farther > round(foot) and place_patches(on, ["tree", "cow", "water"], FP, (0, 1))[0]["cow"] == [(farther, 0)]
    top, _ = place_patches(on, ["tree", "cow", "water"], "top", (0, 1))  # from above every patch is a tile
    assert len(top["tree"]) == 3 and len(top["cow"]) == 2


def test_a_sprite_on_the_patch_the_horizon_crosses_is_seen_but_not_placed_a_block_is_placed():
    rows, column = 9, 8
    horizon = next(y for y in range(1, rows) if np.isfinite(PATCH_DISTANCE[column * rows + y])
                   and not np.isfinite(PATCH_DISTANCE[column * rows + y - 1]))
    on = np.zeros((16 * rows, 2), bool)
    on[column * rows + horizon, :] = True  # a cow and a tree whose lowest patch the horizon crosses
    where, _ = place_patches(on, ["cow", "tree"], FP, (0, 1))
    assert "cow" not in where and where["tree"] == [(round(float(PATCH_DISTANCE[column * rows + horizon]) + 0.5), 0)]
    on[column * rows + horizon + 1, :] = True  # now standing on the patch below: both placed
    where, _ = place_patches(on, ["cow", "tree"], FP, (0, 1))
    assert where["cow"] == [(round(float(PATCH_DISTANCE[column * rows + horizon + 1])), 0)]
    on[column * rows + horizon + 1, :] = False
    assert "cow" in place_patches(on, ["cow", "tree"], "top", (0, 1))[0]  # from above every patch is a tile


@pytest.mark.parametrize("task", [t.id for t in context_tasks()])
def test_the_hidden_placement_puts_the_scene_behind_the_player_and_out_of_the_first_frame(task):
    t = get_task(task)
    assert placement_init(t, "scene", 5) is None
    for seed in (0, 7):
        init = placement_init(t, "hidden", seed)
        assert init == placement_init(t, "hidden", seed)  # the same draw each time
        facing = tuple(init["facing"])
        placed = {}  # offset -> what was placed there last
        for e in init["place"]:
            ats = e["at"] if isinstance(e["at"][0], list) else [e["at"]]
            w, h = e.get("area", (1, 1))
            placed |= {(x + ax, y + ay): e["what"] for x, y in ats for ax in range(w) for ay in range(h)}
            assert len(ats) == e.get("count", 1) and True not in e  # YAML's `on:` has its name back
        placed = [(what, offset) for offset, what in placed.items()]
        assert {what for what, _ in placed} == {e["what"] for e in t.init["place"]}
        assert all(x * facing[0] + y * facing[1] <= -1 for _, (x, y) in placed)  # behind the eyes
        env = CrafterEnv(init=dict(t.init), view=FP)
        env.reset(seed=seed, options={"init": init})
        assert tuple(env.player.facing) == facing
        shown = {o for offs in env.state.view.values() for o in offs}
        assert not shown & {o for _, o in placed}  # nothing of the scene in the first frame
        for what, (x, y) in placed:
            pos = (int(env.player.pos[0]) + x, int(env.player.pos[1]) + y)
            material, obj = env.world[pos]
            assert what in (material, type(obj).__name__.lower() if obj is not None else None), (what, pos)


def test_the_hidden_scene_is_farther_the_higher_the_level_and_bad_settings_are_refused():
    dist = {}
    for t in context_tasks():
        for seed in range(4):
            ats = [e["at"] for e in placement_init(t, "hidden", seed)["place"]]
            near = min(abs(a[0]) + abs(a[1]) for at in ats for a in (at if isinstance(at[0], list) else [at]))
            dist.setdefault(task_level(t), []).append(near)
    means = [np.mean(dist[lv]) for lv in sorted(dist)]
    assert means == sorted(means) and sorted(dist) == sorted(HIDDEN_SHIFT)
    with pytest.raises(ValueError, match="placement"):
        check_placement("far")
    with pytest.raises(ValueError, match="level"):
        placement_init(get_task("find_a_cow"), "hidden", 0, level=7)
    with pytest.raises(ValueError, match="agent"):
        ContextSettings(agent="walker")
    with pytest.raises(ValueError, match="model"):
        ContextSettings(perceivers=["active"])


def test_success_per_level_of_the_seeker_with_the_ground_truth():
    result = run_context(ContextSettings(episodes=1, tasks=["find_a_cow", "find_cow_day"], placement="hidden",
                                         progress=False))
    assert set(result["success"]["ground_truth"]) == {"1", "2"}
    assert {o["agent"] for o in result["outcomes"]} == {"seeker"}
    assert "| ground_truth |" in success_markdown(result)
    patrolled = run_context(ContextSettings(agent="patroller", episodes=1, tasks=["find_a_cow"], placement="hidden",
                                            progress=False))
    assert patrolled["outcomes"][0]["placement"] == "hidden" and patrolled["outcomes"][0]["agent"] == "patroller"
