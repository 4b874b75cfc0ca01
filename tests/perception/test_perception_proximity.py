"""mineclip.perception.proximity: the proximity counts tiles when the head is sure, falls with the real
distance to the target on held-out worlds (read by a head fitted on training worlds), streams as
it scores a stored trajectory, and refuses what it cannot measure."""

import numpy as np
import pytest
import torch
from helpers.models import make_micro
from scipy.stats import spearmanr

from mineclip.perception.head import TILE_DISTANCE
from mineclip.perception.proximity import ProximityRewardFunction
from mineclip.reward import RewardModel


@pytest.fixture
def fitted(sim_head):
    head, _, held_out = sim_head
    return head, held_out


def nearest(frame, kind: str) -> int | None:
    """Manhattan distance from the player to the nearest tile of `kind` in the view (None: none)."""
    d = [abs(dx) + abs(dy) for dx, dy in frame.state.view.get(kind, ()) if (dx, dy) != (0, 0)]
    return min(d) if d else None


def test_proximity_counts_tiles_when_the_head_is_sure(sim_model, fitted):
    head, _ = fitted
    fn = ProximityRewardFunction(sim_model, head, ["water"])
    k, tiles = head.kinds.index("water"), len(TILE_DISTANCE)
    assert fn.max_distance == 12
    for d in (1, 4, 12):
        p = torch.zeros(1, tiles, len(head.kinds))
        p[0, int((TILE_DISTANCE == d).nonzero()[0]), k] = 1.0
        p[0, int((TILE_DISTANCE == 12).nonzero()[0]), k] = 1.0  # a farther one changes nothing
        assert fn.proximity(p).item() == pytest.approx(fn.max_distance + 1 - d)
    empty = torch.zeros(2, tiles, len(head.kinds))
    empty[:, :, (k + 1) % len(head.kinds)] = 1.0  # another kind everywhere
    empty[:, int((TILE_DISTANCE == 0).nonzero()[0]), k] = 1.0  # the player's own tile never counts
    assert torch.equal(fn.proximity(empty), torch.zeros(2, dtype=torch.float64))
    # unsure tiles give a graded value between the certain ones
    half = torch.zeros(1, tiles, len(head.kinds))
    half[0, int((TILE_DISTANCE == 1).nonzero()[0]), k] = 0.5
    assert 0 < fn.proximity(half).item() < fn.max_distance
    # delta: +1 per tile closer; direct: being near, scaled to [0, 1]
    prox = torch.tensor([3.0, 5.0, 4.0])
    assert fn.rewards(prox).tolist() == [0.0, 2.0, -1.0]
    assert fn.rewards(prox[1:], prev_probs=prox[:2]).tolist() == [2.0, -1.0]
    direct = ProximityRewardFunction(sim_model, head, ["water"], mode="direct")
    assert torch.allclose(direct.rewards(prox), prox / 12)
    # progress: +1 per tile closer than ever before in the episode, nothing back for moving away
    # (a killed target that vanishes costs nothing), so an episode pays its best minus its first
    progress = ProximityRewardFunction(sim_model, head, ["water"], mode="progress")
    path = torch.tensor([3.0, 5.0, 4.0, 0.0, 6.0, 7.0])
    assert progress.rewards(path).tolist() == [0.0, 2.0, 0.0, 0.0, 1.0, 1.0]
    assert progress.rewards(torch.tensor(4.0), prev_probs=torch.tensor(5.0)).item() == 0
    assert progress.reference(torch.tensor(4.0), torch.tensor(5.0)).item() == 5


def test_proximity_falls_with_the_real_distance_on_held_out_worlds(sim_model, fitted):
    head, held_out = fitted
    fn = ProximityRewardFunction(sim_model, head, ["water"])
    x = np.stack([f.frame for f in held_out])
    prox = fn.encode(x)[:, -1].numpy()
    dist = [nearest(f, "water") for f in held_out]
    seen = np.array([d is not None for d in dist])
    assert seen.sum() >= 10 and (~seen).sum() >= 5
    rho = spearmanr([d for d in dist if d is not None], prox[seen])[0]
    assert rho < -0.5, rho
    assert prox[seen].mean() > 2 * prox[~seen].mean()


@pytest.mark.parametrize("mode", ["delta", "progress"])
def test_streamed_rewards_equal_the_trajectory_and_the_features_are_one_pass(sim_model, fitted, mode):
    head, held_out = fitted
    fn = ProximityRewardFunction(sim_model, head, ["water", "tree"], mode=mode)
    x = np.stack([f.frame for f in held_out[:8]])
    feats = fn.encode(x)
    assert feats.shape == (8, fn.feature_dim)
    assert torch.allclose(feats[:, :-1], sim_model.frame_features(x).float(), atol=1e-5)
    traj = fn.trajectory(x)
    reference = np.maximum.accumulate(traj.prob) if mode == "progress" else traj.prob
    assert np.allclose(traj.reward[1:], np.diff(reference)) and traj.reward[0] == 0
    assert (np.diff(traj.prob) < 0).any()  # the frames move away too, where the modes differ
    assert mode == "delta" or (traj.reward >= 0).all()
    stream = fn.stream(num_envs=1)
    first = stream.reset(x[:1])
    assert first.reward.item() == 0
    got = [stream.step(x[i:i + 1]).reward.item() for i in range(1, 8)]
    assert np.allclose(got, traj.reward[1:], atol=1e-5)


def test_what_it_cannot_measure_is_refused(sim_model, fitted):
    head, _ = fitted
    with pytest.raises(ValueError, match="cannot see"):
        ProximityRewardFunction(sim_model, head, ["dragon"])
    with pytest.raises(ValueError, match="cannot see"):
        ProximityRewardFunction(sim_model, head, [])
    with pytest.raises(ValueError, match="has none"):
        ProximityRewardFunction(sim_model, None, ["water"])
    with pytest.raises(ValueError, match="mode"):
        ProximityRewardFunction(sim_model, head, ["water"], mode="direct-naive")
    with pytest.raises(ValueError, match="tiles"):
        ProximityRewardFunction(RewardModel(make_micro()), head, ["water"])  # 32x64 frames: a patch is no tile
    fn = ProximityRewardFunction(sim_model, head, ["water"])
    with pytest.raises(ValueError, match="expected frames"):
        fn.encode(np.zeros((2, 80, 256, 3), np.uint8))


def test_the_gymnasium_wrapper_takes_the_proximity_reward(sim_model, fitted):
    from mineclip.reward import MineCLIPReward
    from mineclip.tasks import make_env

    head, _ = fitted
    fn = ProximityRewardFunction(sim_model, head, ["cow"])
    env = MineCLIPReward(make_env("punch_cow", max_steps=6), reward=fn, coef=0.05)
    env.reset(seed=0)
    proximities, returned, infos = [], [], []
    for _ in range(6):
        _, r, terminated, truncated, info = env.step(env.action_space.sample())
        proximities.append(info["mineclip"]["prob"])
        returned.append(r - info["mineclip"]["env_reward"])
        infos.append(info)
        if terminated or truncated:
            break
    assert all(0 <= p <= fn.max_distance for p in proximities)
    # an info keeps what its step said: its logits (the proximity) are no view of the window cache
    assert [float(i["mineclip"]["logits"][0]) for i in infos] == pytest.approx(proximities)
    # the reward is the change of proximity, times coef
    assert np.allclose(np.diff(proximities), np.array(returned[1:]) / 0.05, atol=1e-4)
    assert info["mineclip_episode"]["length"] == len(proximities)
    env.close()
