"""The policy's input (frame-encoder features) and the learned reward computed from the same features."""

from __future__ import annotations

import numpy as np

from mineclip.rl.features import FrameFeatures


def test_observation_space_is_stacked_feature_vector(tiny_reward_model, short_vec_env):
    env = FrameFeatures(short_vec_env(), tiny_reward_model, stack=2)
    d = tiny_reward_model.model.config.embed_dim
    assert env.observation_space.shape == (2 * d,)
    assert env.observation_space.dtype == np.float32
    obs = env.reset()
    assert obs.shape == (2, 2 * d) and obs.dtype == np.float32
    # after reset both stacked slots hold the reset frame; features are normalised to norm sqrt(D)
    np.testing.assert_allclose(obs[:, :d], obs[:, d:], rtol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(obs[:, :d], axis=1), np.sqrt(d), rtol=1e-4)
    obs, reward, dones, infos = env.step(np.array([1, 2]))
    assert obs.shape == (2, 2 * d) and reward.shape == (2,)
    assert "mineclip" not in infos[0]  # no learned reward asked for


def test_terminal_observation_becomes_features_and_each_frame_is_encoded_once(tiny_reward_model, short_vec_env):
    env = FrameFeatures(short_vec_env(max_steps=3), tiny_reward_model, stack=1)
    env.reset()
    dones = np.zeros(2, bool)
    for _ in range(3):
        _, _, dones, infos = env.step(np.zeros(2, dtype=int))  # noop: no success, episodes run to the limit
    assert dones.all()
    for info in infos:
        assert info["terminal_observation"].shape == env.observation_space.shape
    # 2 reset frames + 3 steps x 2 envs + 2 reset frames of the next episodes
    assert env.frames_encoded == 2 + 6 + 2


def test_learned_reward_info_keys_and_combined_reward(tiny_reward_model, short_vec_env):
    fn = tiny_reward_model.reward_fn("chop a tree", negatives=["drink water", "find a cow"], mode="direct-naive")
    env = FrameFeatures(short_vec_env(max_steps=2), tiny_reward_model, reward=fn, coef=0.5)
    env.reset()
    for _ in range(2):
        _, reward, dones, infos = env.step(np.zeros(2, dtype=int))
        for i, info in enumerate(infos):
            m = info["mineclip"]
            assert set(m) == {"reward", "prob", "logits", "env_reward"}
            assert m["logits"].shape == (3,)
            assert 0.0 < m["prob"] < 1.0 and m["reward"] == m["prob"]  # direct-naive: r = P
            assert reward[i] == np.float32(m["env_reward"] + 0.5 * m["reward"])
    assert dones.all()
    ep = infos[0]["mineclip_episode"]
    assert ep["length"] == 2 and ep["num_prompts"] == 3 and set(ep["scale"]) >= {"mean", "std"}
