import json

from mineclip.tasks import list_tasks
from mineclip.play.record import run_episode

EASY = ["harvest_wood", "harvest_stone", "drink_water", "hunt_cow", "find_cow", "place_table", "combat_zombie",
        "make_wood_pickaxe", "eat_plant", "plant_sapling", "find_water", "lay_stone_row"]


def test_scripted_agent_success_rate_per_task(scripted_results, tmp_path):
    rates = {t: sum(v) / len(v) for t, v in scripted_results.items()}
    (tmp_path / "scripted_success.json").write_text(json.dumps(rates, indent=1))
    print("scripted success per task:", json.dumps(rates))
    for t in EASY:
        assert rates[t] >= 2 / 3, f"{t}: scripted agent solved {rates[t]:.0%}"
    prog = [t.id for t in list_tasks(kind="programmatic")]
    assert sum(rates[t] for t in prog) / len(prog) >= 0.8, "the scripted agent should solve most tasks"


def test_random_agent_rarely_succeeds():
    labels = [run_episode("harvest_iron", "random", seed=s, world_seed=s).record["label"] for s in range(3)]
    assert sum(labels) <= 1


def test_near_miss_walks_to_the_target_and_faces_it():
    ep = run_episode("harvest_wood", "near_miss", seed=2, world_seed=2)
    assert ep.record["label"] == 0 and ep.states[-1].facing_kind == "tree"


def test_wrong_target_agent_follows_another_tasks_plan():
    ep = run_episode("hunt_cow", "wrong_target", seed=3, world_seed=3)
    assert ep.record["agent"] == "wrong_target" and ep.record["label"] == 0
    assert not any("eat_cow" in e for e in ep.record["events"])


def test_a_mined_block_is_placed_elsewhere_not_back_into_its_hole():
    # placed straight back where it was mined, the stone blinks out for one frame and the
    # episode shows no placement at all (the tiny model could not tell it from a near miss)
    ep = run_episode("place_stone", "scripted", seed=1_000_000, world_seed=1_000_000)
    steps = {e: i for i, ev in enumerate(ep.record["events"]) for e in ev if e in ("collect_stone", "place_stone")}
    assert ep.record["label"] == 1 and steps["place_stone"] > steps["collect_stone"] + 1
    mined, placed = ep.states[steps["collect_stone"]], ep.states[steps["place_stone"]]
    ahead = lambda s: (s.pos[0] + s.facing[0], s.pos[1] + s.facing[1])  # noqa: E731
    assert ahead(mined) != ahead(placed)


def test_the_avoiding_agent_walks_away_from_what_its_task_looks_for():
    # a failing attempt at a find: moving away from the target, not idling next to it
    ep = run_episode("find_a_tree", "avoid", seed=5, world_seed=5)
    assert ep.record["agent"] == "avoid" and ep.record["label"] == 0
    moves = [a for a in ep.record["actions"] if a != 0]
    assert len(moves) > len(ep.record["actions"]) // 2
