"""Issue 59's shaping study (mineclip.rl.shaping_study, bench/shaping.py): EPIC and VOC on toys whose
answers are known, what "in view" and "share" read in first person, and a tiny run in both views."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers.scripts import run_script

from mineclip.rl.shaping_study import (
    NOT_IN_VIEW,
    canonicalize,
    episode_interval,
    epic_distance,
    observe,
    parse_models,
    pearson_distance,
    tasks_at_bar,
    value_order_correlation,
)

REPO = Path(__file__).resolve().parents[2]
GAMMA = 0.9


def toy(seed: int = 0, n_states: int = 12, n_actions: int = 3, n: int = 400):
    """A tabular reward R[s, a, s'], a potential Phi[s], transitions and coverage samples."""
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(n_states, n_actions, n_states))
    phi = rng.normal(size=n_states) * 3
    s, a, s2 = rng.integers(0, n_states, n), rng.integers(0, n_actions, n), rng.integers(0, n_states, n)
    states = rng.integers(0, n_states, 64)
    actions = rng.integers(0, n_actions, 64)
    return table, phi, (s, a, s2, states, actions)


def tabular(table):
    return lambda s, a, s2: table[s, a, s2]


def test_epic_is_zero_for_a_rescaled_and_potential_shaped_reward_and_one_for_its_opposite():
    table, phi, data = toy()
    r = tabular(table)
    shaped = lambda s, a, s2: 2.0 * table[s, a, s2] + GAMMA * phi[s2] - phi[s]  # noqa: E731
    assert epic_distance(r, shaped, *data, gamma=GAMMA) == pytest.approx(0.0, abs=1e-6)
    assert epic_distance(r, lambda s, a, s2: -table[s, a, s2], *data, gamma=GAMMA) == pytest.approx(1.0, abs=1e-6)
    # an unrelated reward is about sqrt(1/2) away; shaping with another discount is not removed
    other, _, _ = toy(seed=1)
    assert 0.6 < epic_distance(r, tabular(other), *data, gamma=GAMMA) < 0.8
    wrong = lambda s, a, s2: table[s, a, s2] + 0.5 * phi[s2] - phi[s]  # noqa: E731
    assert epic_distance(r, wrong, *data, gamma=GAMMA) > 0.05


def test_canonicalisation_sends_pure_potential_shaping_to_zero():
    _, phi, data = toy()
    c = canonicalize(lambda s, a, s2: GAMMA * phi[s2] - phi[s], *data, gamma=GAMMA)
    np.testing.assert_allclose(c, 0.0, atol=1e-9)
    with pytest.raises(ValueError, match="coverage"):
        canonicalize(lambda s, a, s2: phi[s2], *data[:3], data[3], data[4][:3], gamma=GAMMA)


def test_pearson_distance_of_a_constant_reward_is_undefined():
    assert math.isnan(pearson_distance(np.ones(5), np.arange(5)))
    assert pearson_distance(np.arange(5), np.arange(5)) == pytest.approx(0.0, abs=1e-7)


def test_rho_s_interval_resamples_episodes_not_steps():
    """Four episodes, each one point held for 100 steps: 400 steps but four draws. Resampling steps
    would give rho +0.8 almost every time (an interval under 0.1 wide); resampling the episodes
    shows how little four of them say."""
    rng = np.random.default_rng(0)
    x = np.repeat([1.0, 2.0, 3.0, 4.0], 100)
    y = np.repeat([1.0, 3.0, 2.0, 4.0], 100) + rng.normal(0, 1e-3, 400)
    lo, hi = episode_interval(x, y, np.repeat([7, 3, 5, 9], 100), resamples=300)
    assert lo < 0.5 and hi > 0.9
    # many short episodes of a strong relation: a narrow interval around it
    x = rng.integers(1, 9, 2000).astype(float)
    y = -x + rng.normal(0, 1, 2000)
    lo, hi = episode_interval(x, y, np.arange(2000) // 20, resamples=300)
    assert -1 < lo < hi < -0.8 and hi - lo < 0.1
    assert all(math.isnan(v) for v in episode_interval(x, y, np.zeros(2000)))  # one episode: no interval


def test_a_task_counts_as_surely_shaping_only_when_its_whole_interval_is_at_the_bar():
    def row(rho, lo, hi):
        return {"rho_distance": {"direct": rho, "delta": math.nan},
                "rho_distance_interval": {"direct": [lo, hi], "delta": [math.nan, math.nan]}}

    rows = {"a": row(-0.6, -0.7, -0.52), "b": row(-0.57, -0.68, -0.44), "c": row(-0.3, -0.45, -0.1),
            "d": row(-0.5, -0.62, -0.5)}
    at, surely = tasks_at_bar(rows)
    assert at == {"direct": 3, "delta": 0}  # a, b, d (at -0.5 itself counts)
    assert surely == {"direct": 2, "delta": 0}  # a, d: b's interval reaches above -0.5


def test_value_order_correlation_of_a_monotone_and_a_reversed_sequence():
    rising = [0.1, 0.2, 0.25, 0.7, 0.9]
    assert value_order_correlation(rising) == pytest.approx(1.0)
    assert value_order_correlation(rising[::-1]) == pytest.approx(-1.0)
    assert value_order_correlation([0.1, 0.3, 0.2, 0.4]) == pytest.approx(0.8)
    assert math.isnan(value_order_correlation([0.5] * 6))
    assert math.isnan(value_order_correlation([0.1, 0.2]))


def cow_behind(view: str):
    """A player facing south with a cow on the tile right behind it (north), at noon."""
    from mineclip.sim.env import CrafterEnv

    env = CrafterEnv(init={"time": "noon", "facing": [0, 1], "place": [{"what": "cow", "at": [0, -1]}]}, view=view)
    env.reset(seed=0)
    return env


def test_in_first_person_a_target_behind_the_player_is_out_of_view_until_it_turns_round():
    from mineclip.sim.firstperson import KIND_IDS, WORLD_ROWS, visible_share
    from mineclip.sim.state import LOCAL_VIEW
    from mineclip.sim.view import action_id

    top, eyes = cow_behind("top"), cow_behind("first_person")
    seen, dist, share = observe(top, "cow")
    assert (seen, dist) == (1, 1.0)  # from above the frame shows the window: the cow behind is in view
    assert share == len(top.state.view["cow"]) / (LOCAL_VIEW[0] * LOCAL_VIEW[1])
    seen, dist, share_behind = observe(eyes, "cow")
    assert dist == 1.0  # the dense reward's distance is a fact about the world, the same in both views
    assert seen == NOT_IN_VIEW or seen > 1  # but the frame does not show the cow behind
    assert share_behind == visible_share(eyes.first_person.semantic, "cow")
    for _ in range(2):
        eyes.step(action_id("first_person", "turn_left"))
    seen, dist, share = observe(eyes, "cow")
    assert (seen, dist) == (1, 1.0)
    cow = eyes.first_person.semantic[:WORLD_ROWS] == KIND_IDS["cow"]
    assert share == pytest.approx(cow.mean()) and share > share_behind + 0.05  # a cow one tile ahead is large
    eyes.first_person.semantic[:WORLD_ROWS][cow] = KIND_IDS["grass"]  # the share is the semantic map's
    assert observe(eyes, "cow")[2] == 0.0


def test_each_view_gets_its_own_artifact():
    assert parse_models(["top=A", "first_person=B"]) == {"top": "A", "first_person": "B"}
    assert parse_models(["A", "B"]) == {"top": "A", "first_person": "B"}
    assert parse_models(["A"]) == {"top": "A"}
    assert parse_models(["B"], ["first_person"]) == {"first_person": "B"}
    assert parse_models(["first_person=B", "A"]) == {"top": "A", "first_person": "B"}
    with pytest.raises(ValueError, match="one artifact each"):
        parse_models(["A"], ["top", "first_person"])
    with pytest.raises(ValueError, match="not measured"):
        parse_models(["top=A", "first_person=B"], ["top"])
    with pytest.raises(ValueError, match="unknown view"):
        parse_models(["A"], ["3d"])


def test_the_study_runs_in_both_views_end_to_end(tmp_path):
    """bench/shaping.py on a tiny untrained model: one task, a few random steps and one scripted
    episode in each view; the JSON holds every measure, and the dense reward rebuilt from the
    states is the env's own on every step played."""
    from mineclip.rl.runs import untrained_artifact

    art = untrained_artifact(tmp_path)
    out = tmp_path / "shaping.json"
    env = dict(os.environ, PYTHONPATH=str(REPO), OMP_NUM_THREADS="1")
    argv = [sys.executable, str(REPO / "bench" / "shaping.py"), "--model", f"top={art}", "--model",
            f"first_person={art}", "--tasks", "hunt_cow", "--steps", "8", "--num-envs", "2", "--episodes", "1",
            "--out", str(out), "--quiet"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=150, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "| hunt_cow (cow) |" in done.stdout and "First person: rho(distance) <= -0.5" in done.stdout
    study = json.loads(out.read_text())  # strict JSON: no NaN
    assert set(study["results"]) == {"top", "first_person"}
    for view, rows in study["results"].items():
        r = rows["hunt_cow"]
        assert r["target"] == "cow" and r["steps"] == 16
        assert r["dense_mismatch"] == pytest.approx(0.0, abs=1e-9)
        for key in ("rho_distance", "rho_distance_interval", "rho_share", "voc", "epic", "epic_navigation",
                    "voc_random"):
            assert set(r[key]) == {"direct", "delta"}, key
        assert all(len(v) == 2 for v in r["rho_distance_interval"].values())
        assert r["successful"] == 1 and r["lengths"][0] >= 1  # the scripted agent hunts the cow
        by = r["by_distance"]["direct"]
        assert set(by) == {"1", "2", "4", "8", "out"} and sum(n for n, _ in by.values()) <= 16
        assert all(e is None or 0 <= e <= 1 for e in [*r["epic"].values(), *r["epic_navigation"].values()])
    assert study["summary"]["first_person_shaping_tasks"].keys() == {"direct", "delta"}
    assert study["summary"]["first_person_shaping_tasks_surely"].keys() == {"direct", "delta"}
    assert "rho dist [95%]" in done.stdout and "with the whole interval there" in done.stdout
    assert study["meta"]["models"] == {"top": art, "first_person": art}


@pytest.mark.parametrize("view", ["top", "first_person"])
def test_the_dense_reward_rebuilt_from_states_is_the_env_s_own(tiny_reward_model, view):
    """EPIC pairs any two states, so the dense reward is rebuilt as a function of them (distance,
    the episode's best, hit, success): on every step random play made it must pay what the env paid."""
    from mineclip.rl.shaping_study import dense_reward, learned_reward, random_play
    from mineclip.tasks import get_task
    from mineclip.tasks.negatives import negatives_for

    task = get_task("hunt_cow")
    fn = tiny_reward_model.reward_fn(task.prompt, negatives_for(task.prompt, "suite"))
    play = random_play(fn, "hunt_cow", view, steps=40, num_envs=2, worlds=2, max_steps=12)
    steps = play.steps
    assert len(steps) == 80 and (play.prev[play.prev >= 0] < steps).all()
    paid = play.env_reward[steps]
    assert (paid > 0).sum() >= 2  # the agent came nearer than ever a few times (random play, fixed seed)
    np.testing.assert_allclose(dense_reward(play, task.reward)(play.prev[steps], play.action[steps], steps), paid,
                               atol=1e-12)
    nav = dense_reward(play, task.reward, navigation_only=True)(play.prev[steps], play.action[steps], steps)
    events = play.hit[steps].astype(bool) | (play.success[steps] & ~play.success[play.prev[steps]])
    np.testing.assert_allclose(nav[~events], paid[~events], atol=1e-12)  # the navigation term, events aside
    assert (play.episode[play.prev == -1] == np.arange((play.prev == -1).sum())).all()  # one reset per episode
    delta = learned_reward(play, "delta")(play.prev[steps], play.action[steps], steps)
    np.testing.assert_allclose(delta, play.prob[steps] - play.prob[play.prev[steps]])


def test_direct_clipped_to_zero_far_away_ties_what_p_itself_ranks():
    """A prompt whose P falls with the distance, above 1/N only within two tiles: Direct is 0 at
    every farther distance (its rho is capped by the ties), P itself ranks every distance."""
    from mineclip.rl.shaping_study import Play, analyse_play

    n, dists = 10, np.array([1, 2, 3, 4, 5, 6, 7, 8] * 4, dtype=float)
    prob = 0.25 / dists  # 1/N = 0.1: above it at 1 and 2 tiles only
    k = len(dists) + 1  # row 0 is the reset state, every other row a step from it
    seen = np.r_[NOT_IN_VIEW, dists]
    play = Play(prob=np.r_[0.0, prob], seen=seen, dist=seen.copy(), share=np.r_[0.0, 1.0 / dists],
                best=np.full(k, np.inf), hit=np.zeros(k, bool), success=np.zeros(k, bool),
                env_reward=np.r_[np.nan, np.zeros(k - 1)], action=np.r_[-1, np.zeros(k - 1, int)],
                prev=np.r_[-1, np.zeros(k - 1, int)], episode=np.zeros(k, int), num_prompts=n, num_actions=3)
    out = analyse_play(play, {"success": 200.0}, coverage=8)
    assert out["direct_zero_in_view"] == pytest.approx(0.75)  # 3 to 8 tiles
    assert out["rho_distance_prob"] == pytest.approx(-1.0)
    assert -1.0 < out["rho_distance"]["direct"] < -0.5


def test_the_study_measures_the_reward_with_the_window_asked_for(tmp_path):
    """`--window W` (issue 59 part 4: does the window see the approach?) scores clips of W frames;
    without it the reward model is the one RL loads, with the artifact's own window."""
    from mineclip.rl.runs import untrained_artifact
    from mineclip.rl.shaping_study import study_reward_model
    from mineclip.rl.train import reward_model

    art = untrained_artifact(tmp_path)
    own = study_reward_model(art)
    assert own is reward_model(art)
    assert study_reward_model(art, window=2).window == 2 != own.window
    with pytest.raises(ValueError, match="window must be"):
        study_reward_model(art, window=own.model.max_frames + 1)


def test_the_study_can_measure_an_artifact_s_untrained_twin(tmp_path, capsys):
    """`--untrained`: the artifact's architecture and window with random weights under the seed (the
    baseline every other table puts beside a trained model), not the artifact's own weights."""
    import torch

    from mineclip.rl.runs import untrained_artifact
    from mineclip.rl.shaping_study import study_reward_model

    art = untrained_artifact(tmp_path)
    own = study_reward_model(art)
    twin, again = study_reward_model(art, untrained=1), study_reward_model(art, untrained=1)
    assert twin.window == own.window and twin.model.config.to_dict() == own.model.config.to_dict()
    first = next(k for k, v in own.model.state_dict().items() if v.ndim >= 2)  # a drawn weight, not a constant
    assert not torch.equal(twin.model.state_dict()[first], own.model.state_dict()[first])
    assert torch.equal(twin.model.state_dict()[first], again.model.state_dict()[first])  # the seed decides
    out = tmp_path / "shaping.json"
    code, printed, err = run_script("shaping", ["--model", f"first_person={art}", "--tasks", "hunt_cow", "--steps", "4",
                                                "--num-envs", "2", "--episodes", "1", "--untrained", "--seed", "1",
                                                "--out", str(out), "--quiet"], capsys)
    assert code == 0, printed + err
    assert "(its untrained twin, random weights under seed 1)" in printed
    assert json.loads(out.read_text())["meta"]["untrained"] == 1
    code, _, err = run_script("shaping", ["--model", art, "--by-distance", "--untrained"], capsys)
    assert code == 2 and "--untrained is for the shaping study" in err
