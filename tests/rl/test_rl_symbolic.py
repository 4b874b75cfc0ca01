"""The symbols MineDojo's agent had besides the frame (local view, inventory, position, facing) and
how `FrameFeatures` joins them to the frame features."""

from __future__ import annotations

import numpy as np
import pytest

from mineclip.rl.features import FrameFeatures
from mineclip.rl.symbolic import (CLASSES, FACINGS, INVENTORY, INVENTORY_MAX, LAYOUT, SIZE, SymbolicInfo,
                                  view_classes)
from mineclip.sim.engine import ACTION_IDS
from mineclip.tasks import make_env


def _tree_ahead_env():
    """harvest_wood with a tree right of the player and the player facing it."""
    env = make_env("harvest_wood", dense_reward=False, max_steps=8)
    env.init = {"place": [{"what": "tree", "at": [1, 0]}], "facing": [1, 0]}
    return SymbolicInfo(env)


def test_symbols_show_the_player_the_tree_ahead_and_the_inventory_and_change_when_wood_is_collected():
    env = _tree_ahead_env()
    _, info = env.reset(seed=3, options={"world_seed": 0})
    v = info["symbols"]
    assert v.shape == (SIZE,) and v.dtype == np.float32
    view = v[LAYOUT["view"]].reshape(16, 9, len(CLASSES))
    np.testing.assert_array_equal(view.sum(-1), 1.0)  # one class per tile
    classes = view_classes(v)
    assert CLASSES[classes[8, 4]] == "player"
    assert CLASSES[classes[9, 4]] == "tree"  # the tile right of the player
    player = env.unwrapped.player
    np.testing.assert_allclose(v[LAYOUT["position"]], np.asarray(player.pos) / 64)
    np.testing.assert_array_equal(v[LAYOUT["facing"]], np.eye(4)[FACINGS.index((1, 0))])
    inv = v[LAYOUT["inventory"]] * INVENTORY_MAX
    wood = INVENTORY.index("wood")
    assert inv[wood] == 0 and inv[INVENTORY.index("health")] == player.inventory["health"]

    _, _, terminated, _, info = env.step(ACTION_IDS["do"])
    after = info["symbols"]
    assert terminated and info["success"]
    assert after[LAYOUT["inventory"]][wood] * INVENTORY_MAX == 1  # collected one wood
    assert CLASSES[view_classes(after)[9, 4]] == "grass"  # the tree is gone


def test_features_and_symbols_are_joined_and_auto_reset_keeps_each_episode_s_own(tiny_reward_model):
    from mineclip.rl.envs import make_vec_env

    venv = make_vec_env("harvest_wood", "sparse", 2, worlds=[0], seed=0, max_steps=3, symbols=True)
    env = FrameFeatures(venv, tiny_reward_model, obs="features+symbolic")
    d = tiny_reward_model.model.config.embed_dim
    assert env.observation_space.shape == (d + SIZE,)
    obs = env.reset()
    assert obs.shape == (2, d + SIZE)
    np.testing.assert_allclose(np.linalg.norm(obs[:, :d], axis=1), np.sqrt(d), rtol=1e-4)
    for i in range(2):
        np.testing.assert_array_equal(obs[i, d:], venv.reset_infos[i]["symbols"])
    for _ in range(3):  # noop until the step limit: every env auto-resets on the third step
        obs, _, dones, infos = env.step(np.zeros(2, dtype=int))
    assert dones.all()
    for i in range(2):
        terminal = infos[i]["terminal_observation"]
        np.testing.assert_array_equal(terminal[d:], infos[i]["symbols"])  # the last step's symbols
        np.testing.assert_array_equal(obs[i, d:], venv.reset_infos[i]["symbols"])  # the new episode's
    # the world was placed afresh: the new episode's first step is not the finished one's last
    assert any(not np.array_equal(obs[i, d:], infos[i]["symbols"]) for i in range(2))


def test_symbols_alone_encode_no_frame_unless_the_learned_reward_needs_them(tiny_reward_model):
    from mineclip.rl.envs import make_vec_env

    env = FrameFeatures(make_vec_env("harvest_wood", "sparse", 2, [0], 0, max_steps=4, symbols=True),
                        tiny_reward_model, obs="symbolic")
    assert env.observation_space.shape == (SIZE,)
    assert env.reset().shape == (2, SIZE)
    env.step(np.zeros(2, dtype=int))
    assert env.frames_encoded == 0
    fn = tiny_reward_model.reward_fn("chop a tree", negatives=["drink water"], mode="direct")
    env = FrameFeatures(make_vec_env("harvest_wood", "mineclip", 2, [0], 0, max_steps=4, symbols=True),
                        tiny_reward_model, obs="symbolic", reward=fn, coef=0.1)
    env.reset()
    _, _, _, infos = env.step(np.zeros(2, dtype=int))
    assert env.frames_encoded == 4 and "mineclip" in infos[0]  # the reward still comes from the frames


def test_symbolic_input_without_symbol_infos_is_a_clear_error(tiny_reward_model, short_vec_env):
    env = FrameFeatures(short_vec_env(), tiny_reward_model, obs="symbolic")
    with pytest.raises(KeyError, match="SymbolicInfo"):
        env.reset()
    with pytest.raises(ValueError, match="obs"):
        FrameFeatures(short_vec_env(), tiny_reward_model, obs="pixels")


def test_conv_extractor_reads_the_view_as_an_image_and_passes_the_rest_through():
    import gymnasium as gym
    import torch

    from mineclip.rl.policy import SymbolicExtractor

    frame_dim = 6
    space = gym.spaces.Box(-np.inf, np.inf, (frame_dim + SIZE,), np.float32)
    ext = SymbolicExtractor(space, frame_dim=frame_dim, channels=4)
    x = torch.zeros(3, frame_dim + SIZE)
    x[:, :frame_dim] = torch.arange(frame_dim, dtype=torch.float32)
    x[:, frame_dim + LAYOUT["inventory"].start] = 0.5
    out = ext(x)
    assert out.shape == (3, ext.features_dim) == (3, frame_dim + 4 * 8 * 5 + SIZE - LAYOUT["view"].stop)
    torch.testing.assert_close(out[:, :frame_dim], x[:, :frame_dim])
    torch.testing.assert_close(out[:, -(SIZE - LAYOUT["view"].stop):], x[:, frame_dim + LAYOUT["view"].stop:])
    # a tree moved by one tile changes the convolution's output
    y = x.clone()
    view = y[:, frame_dim:frame_dim + LAYOUT["view"].stop].reshape(3, 16, 9, len(CLASSES))
    view[0, 9, 4, CLASSES.index("tree")] = 1.0
    assert not torch.allclose(ext(y)[0], out[0])
    with pytest.raises(ValueError):
        SymbolicExtractor(space, frame_dim=0)
