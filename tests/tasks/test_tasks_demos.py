"""Demonstrations measured for the difficulty scores (mineclip.play.demos)."""

import pytest

from mineclip.play.demos import DEMONSTRATORS, MIN_PE_DEMOS, demo_worlds, demonstrations, long_enough, raw_scores
from mineclip.play.record import run_episode


def test_the_second_scripted_agent_solves_tasks_its_own_way():
    a = run_episode("make_wood_pickaxe", "scripted", seed=501, world_seed=501, tail=0, min_frames=0).record
    b = run_episode("make_wood_pickaxe", "scripted_alt", seed=501, world_seed=501, tail=0, min_frames=0).record
    assert a["label"] == b["label"] == 1 and a["actions"] != b["actions"] and b["agent"] == "scripted_alt"


def test_a_one_action_task_gets_noisy_demonstrations_until_its_entropy_is_measurable():
    demos = demonstrations("plant_sapling", [500, 501])
    base = [d for d in demos if not d["extra"]]
    assert len(base) == 2 * len(DEMONSTRATORS) and all(d["steps"] == 1 for d in base if d["noise"] == 0)
    assert long_enough(demos) >= MIN_PE_DEMOS and any(d["extra"] for d in demos)
    raw = raw_scores("plant_sapling", demos)
    assert raw["time"] == 1 and 0 < raw["effort"] < 0.5 and raw["creativity"] >= 1 and "effort" not in raw["notes"]


def test_raw_scores_of_a_longer_task():
    raw = raw_scores("harvest_wood", demonstrations("harvest_wood", demo_worlds(4)))
    assert raw["extra"] == 0 and raw["demonstrations"] == 4 * len(DEMONSTRATORS) and raw["scripted_success"] == 1 and raw["time"] > 1 and raw["effort"] > 0
    assert raw["planning"] == 1 and raw["intricacy"] == 1


def test_raw_scores_from_hand_built_demonstrations():
    import math

    from mineclip.play.demos import raw_scores

    def demo(steps, actions, end, noise=0.0, extra=False):
        return {"agent": "scripted", "noise": noise, "world_seed": 500, "steps": steps, "actions": actions,
                "end_state": end, "extra": extra}

    demos = [demo(4, [1, 2, 3, 1], "a"), demo(2, [5, 5], "a"), demo(6, [1, 1, 1, 1, 1, 5], "b", noise=0.1),
             demo(None, [], None, noise=0.25), demo(3, [9, 1, 4], "c", noise=0.5, extra=True)]
    raw = raw_scores("harvest_wood", demos)
    assert raw["time"] == 3  # the noise-free ones: (4 + 2) / 2
    pe = [math.log(2) / math.log(6), 0.0, 0.0, 0.0]  # [1,2,3,1]: two patterns; short or constant: 0
    assert raw["effort"] == pytest.approx(sum(pe) / 4)
    assert raw["creativity"] == 2  # a, a, b: the extra demonstration's end state is left out
    assert raw["solved"] == 4 and raw["extra"] == 1 and raw["scripted_success"] == 1.0


def test_human_ratings_from_the_ratings_file_override_the_proxies(tmp_path):
    from mineclip.tasks import list_tasks
    from mineclip.tasks.difficulty import human_ratings, scores_from_raw
    from mineclip.tasks.ratings import append_rating

    path = tmp_path / "ratings.jsonl"
    append_rating(path, "dig_tunnel", "ana", {"intricacy": 4, "creativity": 2, "novelty": 1})
    append_rating(path, "dig_tunnel", "ben", {"intricacy": 2, "creativity": 2, "novelty": 3})
    human = human_ratings(list_tasks(), path)
    assert human["dig_tunnel"] == {"intricacy": 3.0, "creativity": 2.0, "novelty": 2.0}
    raw = {t: {k: float(i) for k in ("time", "effort", "planning", "intricacy", "creativity", "novelty")}
           for i, t in enumerate(["dig_tunnel", "harvest_wood", "hunt_cow"])}
    s = scores_from_raw(raw, human=human)
    assert s["dig_tunnel"]["intricacy"] == 3.0 and s["dig_tunnel"]["source"]["intricacy"] == "human"
    assert s["dig_tunnel"]["time"] == 0 and s["hunt_cow"]["source"]["novelty"] == "proxy"
