"""mineclip.perception.head: the Poisson-binomial tail is exact, a head fitted on labelled frames of
training worlds finds things on held-out worlds, it saves as tensors and loads back the same, bad
files and mismatched models are refused, and the Percipient uses it only where its bands say so."""

import itertools

import numpy as np
import pytest
import torch

from mineclip.evaluate.judge import roc_auc
from mineclip.model import MineCLIP, get_config
from mineclip.perception.calibrate import fit_thresholds
from mineclip.perception.conditions import Condition
from mineclip.perception.head import (
    FILE_NAME,
    at_least,
    count_features,
    fit_counts,
    frame_tokens,
    load_head,
    supports,
    tile_labels,
)
from mineclip.perception.percipient import Percipient
from mineclip.reward import RewardModel


def test_at_least_is_the_exact_tail():
    p = torch.rand(4, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    for need in (0, 1, 2, 4, 7):
        exact = torch.zeros(4, dtype=torch.float64)
        for bits in itertools.product((0, 1), repeat=6):
            b = torch.tensor(bits, dtype=torch.float64)
            if sum(bits) >= need:
                exact += (p * b + (1 - p) * (1 - b)).prod(1)
        assert torch.allclose(at_least(p, need), exact), need


@pytest.fixture
def fitted(sim_head):
    return sim_head


def test_a_count_read_out_counts_where_the_tail_over_patches_miscounts():
    # in first person one near tree fills many patches (fewer than 3 trees), three far ones a patch each
    rng = np.random.default_rng(0)
    frames, labels = [], []
    for i in range(200):
        p = np.full(144, 0.01)
        if i % 2:  # three far trees: three patches, each fairly sure
            p[rng.choice(144, 3, replace=False)] = rng.uniform(0.6, 0.9, 3)
        else:  # one near tree: a block of 12 patches, very sure
            p[rng.choice(132, 1)[0]:][:12] = rng.uniform(0.9, 1.0, 12)
        frames.append(p)
        labels.append(bool(i % 2))
    probs, y = torch.tensor(np.stack(frames)), np.array(labels)
    assert roc_auc(at_least(probs, 3).numpy(), y) < 0.5  # the tail calls the near tree three
    keys, w, b = fit_counts({"tree:3": probs}, {"tree:3": y}, "first_person")
    assert keys == ["tree:3"] and w.shape == (1, count_features(probs[:1], "tree", "first_person").shape[1])
    learned = torch.sigmoid(count_features(probs, "tree", "first_person").float() @ w[0] + b[0]).numpy()
    assert roc_auc(learned, y) > 0.95
    assert fit_counts({"tree:3": probs}, {"tree:3": np.zeros(200, bool)}, "first_person")[0] == []  # one label: none


def test_the_count_features_count_an_upright_thing_once_per_foot_in_first_person():
    p = torch.zeros(2, 144, dtype=torch.float64)
    p[0, [8 * 9 + 4, 8 * 9 + 5, 8 * 9 + 6]] = 0.9  # one tree: a column of three patches
    p[1, [2 * 9 + 6, 8 * 9 + 6, 13 * 9 + 6]] = 0.9  # three trees side by side, one patch each
    assert count_features(p, "tree", "first_person")[:, -1].tolist() == [1.0, 3.0]
    assert count_features(p, "water", "first_person")[:, -1].tolist() == [3.0, 3.0]  # a floor: each patch its ground
    assert count_features(p, "tree", "top")[:, -1].tolist() == [3.0, 3.0]  # from above a patch is a tile


def test_tokens_line_up_with_the_tiles_and_wrong_models_or_frames_are_refused(sim_model, reward_model, fitted):
    _, fit, _ = fitted
    x = np.stack([f.frame for f in fit[:3]])
    tok = frame_tokens(sim_model, x)
    assert tok.shape == (3, 16, 9, 64)
    assert len(tile_labels(fit[:3], "grass")) == 3 * 16 * 9
    # a tile's token depends on its own pixels: repainting one tile changes its token most
    y = x.copy()
    y[:, 2 * 16:3 * 16, 5 * 16:6 * 16] = 255  # the tile at x = 5, y = 2
    diff = (frame_tokens(sim_model, y) - tok).norm(dim=-1)[0]
    assert diff.argmax() == 5 * 9 + 2
    assert supports(sim_model) and not supports(reward_model)
    with pytest.raises(ValueError, match="one patch per tile"):
        frame_tokens(reward_model, x)
    with pytest.raises(ValueError, match="expected frames"):
        frame_tokens(sim_model, x[:, :80])


def test_the_head_finds_things_on_held_out_worlds(sim_model, fitted):
    head, _, held_out = fitted
    assert {"water", "grass", "tree"} <= set(head.kinds) and {"day", "night"} <= set(head.states)
    conds = [Condition("terrain", "water", (("in_view", 3),)), Condition("object", "tree", (("in_view", 1),)),
             Condition("time", "night", (("time", "night"),))]
    x = np.stack([f.frame for f in held_out])
    probs = head.probs(sim_model, x, conds)
    assert probs.shape == (len(held_out), 3) and ((0 <= probs) & (probs <= 1)).all()
    # the embedding a caller already has (the judge's) gives the same P as encoding again
    assert np.allclose(head.probs(sim_model, x, conds, features=sim_model.frame_features(x)), probs)
    for j, c in enumerate(conds):
        truth = np.array([c.seen(f.state) for f in held_out])
        assert truth.any() and not truth.all()
        assert roc_auc(probs[:, j], truth) > 0.9, c.key
    unknown = Condition("creature", "dragon")
    assert not head.knows(unknown) and np.isnan(head.probs(sim_model, held_out[0].frame[None], [unknown])).all()


def test_the_head_saves_as_tensors_and_loads_back_the_same(sim_model, reward_model, fitted, tmp_path):
    head, _, held_out = fitted
    head.save(tmp_path)
    assert not list(tmp_path.glob("*.partial"))
    back = load_head(tmp_path, sim_model)
    conds = [Condition("terrain", "water"), Condition("time", "day", (("time", "day"),))]
    x = np.stack([f.frame for f in held_out[:4]])
    assert np.array_equal(back.probs(sim_model, x, conds), head.probs(sim_model, x, conds))
    assert back.kinds == head.kinds and back.fitted == head.fitted
    assert load_head(tmp_path / "nothing-here") is None and load_head(None) is None
    narrower = RewardModel(MineCLIP(get_config("micro", vision={"resolution": [160, 256], "width": 32})))
    with pytest.raises(ValueError, match="width"):
        load_head(tmp_path, narrower)


def test_a_file_that_is_not_a_head_is_refused(tmp_path):
    import pickle

    (tmp_path / FILE_NAME).write_bytes(pickle.dumps({"run": "code"}))
    with pytest.raises(ValueError, match="not a perception head"):
        load_head(tmp_path)
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, str(tmp_path / FILE_NAME), metadata={"format": "something-else"})
    with pytest.raises(ValueError, match="not a perception head"):
        load_head(tmp_path)


def test_the_percipient_answers_by_the_head_only_with_bands_fitted_on_it(sim_model, fitted):
    head, fit, held_out = fitted
    water = Condition("terrain", "water", (("in_view", 3),))
    in_words = Percipient(sim_model, fit_thresholds(Percipient(sim_model, {}), fit))
    with_head = Percipient(sim_model, in_words.thresholds, head)
    assert with_head.source(water) == "head" and in_words.source(water) == "text"
    # bands fitted on the words' P say nothing about the head's: unsure, never a guess
    assert in_words.band(water) is not None and with_head.band(water) is None
    (answer,) = with_head.perceive(held_out[0].frame, [water])
    assert answer.decision == "unsure" and "not calibrated" in answer.why
    fitted_on_head = Percipient(sim_model, {}, head)
    fitted_on_head.thresholds = fit_thresholds(fitted_on_head, fit)
    assert fitted_on_head.thresholds["conditions"]["terrain:water"]["by"] == "head"
    (answer,) = fitted_on_head.perceive(held_out[0].frame, [water])
    p = head.probs(sim_model, held_out[0].frame[None], [water])[0, 0]
    assert answer.prob == pytest.approx(p)
    # the decisions on held-out frames agree with the simulator where the head decides
    decided = [(a.decision, water.seen(f.state)) for f in held_out
               for a in fitted_on_head.perceive(f.frame, [water]) if a.decision != "unsure"]
    assert decided and np.mean([(d == "yes") == truth for d, truth in decided]) > 0.8


def test_condition_probs_answers_head_and_words_from_one_encoder_pass(sim_model, fitted, monkeypatch):
    head, _, held_out = fitted
    percipient = Percipient(sim_model, {}, head)
    water = Condition("terrain", "water", (("in_view", 3),))
    candidates = [Condition("object", s, (("in_view", 1),)) for s in ("table", "furnace", "plant", "lava")]
    in_words = next(c for c in candidates if percipient.source(c) == "text" and c.alternative_texts())
    assert percipient.source(water) == "head"
    x = np.stack([f.frame for f in held_out[:4]])
    alone = [percipient.condition_probs(x, [c])[:, 0] for c in (water, in_words)]
    passes = []
    encode = RewardModel.frame_features
    monkeypatch.setattr(sim_model, "frame_features", lambda *a, **k: passes.append(1) or encode(sim_model, *a, **k))
    both = percipient.condition_probs(x, [water, in_words])
    assert len(passes) == 1  # the head's tokens and the words' embedding come from the same pass
    for j in range(2):
        np.testing.assert_allclose(both[:, j], alone[j], rtol=1e-5, atol=1e-6)


def test_near_is_read_from_where_the_tiles_are(sim_model, fitted):
    head, _, held_out = fitted
    x = np.stack([f.frame for f in held_out])
    plain = Condition("terrain", "water", (("in_view", 1),))
    near = Condition("terrain", "water", (("in_view", 1), ("near", 2)))
    seen, close = head.probs(sim_model, x, [plain, near], near=True).T
    assert np.allclose(seen, head.probs(sim_model, x, [plain])[:, 0])  # no near check: the same P
    assert (close <= seen + 1e-9).all()
    truth = np.array([near.holds(f.state) for f in held_out])
    assert truth.any() and not truth.all() and roc_auc(close, truth) > 0.9


def test_the_judge_scores_the_conditions_the_head_knows_by_it(sim_model, fitted, tmp_path):
    from mineclip.evaluate.scoring import step_rewards
    from mineclip.evaluate.trajectories import load_frames, read_labels
    from mineclip.perception.conditions import conditions_of
    from mineclip.perception.condition_judge import score_trajectories
    from mineclip.play.evalset import EvalsetSettings, record_evalset
    from mineclip.tasks import get_task

    head, fit, _ = fitted
    record_evalset(tmp_path, EvalsetSettings(["find_a_lake"], per_label=1, worlds=2, tail=2), workers=1,
                   progress=False)
    trajs = read_labels(tmp_path / "evalset.jsonl")[0]
    percipient = Percipient(sim_model, {}, head)
    thresholds = fit_thresholds(percipient, fit)
    verdicts, problems = score_trajectories(sim_model, trajs, lambda p: ["chop a tree", "hunt a cow"], thresholds,
                                            head=head)
    assert not problems and len(verdicts) == 2
    (lake,) = conditions_of(get_task("find_a_lake"))
    for v, traj in zip(verdicts, trajs):
        assert v.conditions == ["terrain:water"]
        p = head.probs(sim_model, load_frames(traj), [lake], near=True)[:, 0]
        # one condition read by the head, chance level 0: the judge's reward is its P
        assert v.factored == pytest.approx(float(step_rewards(p).mean()), abs=1e-6)
    words = score_trajectories(sim_model, trajs, lambda p: ["chop a tree", "hunt a cow"], thresholds)[0]
    assert [w.factored for w in words] != [v.factored for v in verdicts]


def test_the_reward_by_conditions_streams_the_heads_p_through_the_gymnasium_wrapper(sim_model, fitted):
    # RL on a context task with the head: the judge's score, step by step, from one encoder pass a step
    import gymnasium as gym

    from mineclip.perception.conditions import conditions_of
    from mineclip.perception.condition_judge import task_reward
    from mineclip.reward.wrappers import MineCLIPReward
    from mineclip.tasks import get_task

    head, fit, _ = fitted
    frames = np.stack([f.frame for f in fit[:6]])
    negatives = lambda p: ["chop a tree", "hunt a cow"]  # noqa: E731
    fn = task_reward(sim_model, "find_cow_day", negatives, head)
    d = sim_model.model.config.embed_dim
    assert fn.sources == ["head", "head"] and fn.feature_dim == d + 2 and fn.chance < 1e-5
    stored = fn.trajectory(frames)
    heads = head.probs(sim_model, frames, conditions_of(get_task("find_cow_day")), near=True)
    np.testing.assert_allclose(stored.logits, heads, atol=1e-6)  # each frame's own P, not its window's
    stream = fn.stream(1)
    steps = [stream.reset(frames[:1])] + [stream.step(frames[t:t + 1]) for t in range(1, 6)]
    np.testing.assert_allclose([float(s.reward[0]) for s in steps], stored.reward, atol=1e-6)
    words = task_reward(sim_model, "find_cow_day", negatives)
    assert words.sources == ["text", "text"] and words.feature_dim == d

    env = MineCLIPReward(gym.make("mineclip/find_cow_day-v0", max_steps=3), fn, combine="replace")
    env.reset(seed=0)
    _, reward, *_, info = env.step(0)
    assert len(info["mineclip"]["logits"]) == 2 and reward == pytest.approx(float(info["mineclip"]["prob"]), abs=1e-5)
