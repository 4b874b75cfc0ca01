"""The gymnasium wrappers add the learned reward, expose P and logits, and agree across vector envs."""

import gymnasium as gym
import numpy as np
import pytest

from mineclip.reward import MineCLIPReward, MineCLIPRewardVec, RewardModel

NEG = ["drink water", "hunt a cow"]


class FrameEnv(gym.Env):
    """Random RGB frames, reward 1 at the last step of a fixed-length episode."""

    def __init__(self, length=4, seed=0, size=(32, 48)):
        self.length, self.size = length, size
        self.observation_space = gym.spaces.Box(0, 255, (*size, 3), np.uint8)
        self.action_space = gym.spaces.Discrete(2)
        self.rng = np.random.default_rng(seed)

    def _obs(self):
        return self.rng.integers(0, 256, (*self.size, 3), dtype=np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        done = self.t >= self.length
        return self._obs(), float(done), done, False, {}


@pytest.fixture(scope="module")
def reward_fn(micro_model):
    return RewardModel(micro_model, window=4).reward_fn("chop a tree", NEG, mode="direct-naive")


def test_wrapper_adds_learned_reward_to_the_success_bonus_and_exposes_p_and_logits(reward_fn):
    env = MineCLIPReward(FrameEnv(length=3), reward_fn, combine="add", coef=2.0)
    obs, info = env.reset(seed=0)
    assert 0 < info["mineclip"]["prob"] < 1
    total = []
    while True:
        obs, r, term, trunc, info = env.step(0)
        m = info["mineclip"]
        assert m["logits"].shape == (3,) and m["reward"] == pytest.approx(m["prob"])
        assert r == pytest.approx(m["env_reward"] + 2.0 * m["reward"])
        total.append(m["reward"])
        if term or trunc:
            break
    ep = info["mineclip_episode"]
    assert ep["length"] == 3 and ep["return"] == pytest.approx(sum(total))
    assert ep["scale"]["steps"] == 3 and ep["num_prompts"] == 3


def test_replace_mode_returns_only_the_learned_reward(reward_fn):
    env = MineCLIPReward(FrameEnv(length=1), reward_fn, combine="replace")
    env.reset(seed=0)
    _, r, *_, info = env.step(0)
    assert r == pytest.approx(info["mineclip"]["reward"])


def test_wrapper_works_on_the_task_suite_env_and_passes_the_gymnasium_checker(reward_fn):
    from gymnasium.utils.env_checker import check_env

    import mineclip.tasks  # noqa: F401  (registers the suite's environments)

    env = MineCLIPReward(gym.make("mineclip/harvest_wood-v0", max_steps=3), reward_fn)
    env.reset(seed=1)
    _, _, _, _, info = env.step(0)
    assert 0 < info["mineclip"]["prob"] < 1 and info["is_success"] is False
    with pytest.warns(UserWarning, match="different from the unwrapped"):
        check_env(env, skip_render_check=True)


def test_vector_wrapper_matches_single_env_wrappers_across_autoresets(reward_fn):
    lengths = (2, 3)
    vec = MineCLIPRewardVec(gym.vector.SyncVectorEnv([lambda L=L, i=i: FrameEnv(L, seed=i) for i, L in enumerate(lengths)]),
                            reward_fn, combine="replace")
    singles = [MineCLIPReward(FrameEnv(L, seed=i), reward_fn, combine="replace") for i, L in enumerate(lengths)]
    vec.reset(seed=0)
    for s in singles:
        s.reset()
    expect_reset = [False, False]
    for _ in range(7):
        _, r, term, trunc, info = vec.step(np.zeros(2, dtype=np.int64))
        for i, s in enumerate(singles):
            if expect_reset[i]:  # NEXT_STEP autoreset: this step only reset env i
                s.reset()
                assert r[i] == 0.0
                expect_reset[i] = False
                continue
            _, ri, ti, tri, _ = s.step(0)
            assert r[i] == pytest.approx(ri, abs=1e-5)
            expect_reset[i] = ti or tri
        assert info["mineclip"]["logits"].shape == (2, 3) and info["_mineclip"].all()


def test_sb3_vec_env_wrapper_scores_all_envs_in_the_main_process_like_single_wrappers(reward_fn):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from mineclip.reward import MineCLIPVecEnvReward

    lengths = (2, 3)
    make = [lambda L=L, i=i: FrameEnv(L, seed=i) for i, L in enumerate(lengths)]
    vec = MineCLIPVecEnvReward(DummyVecEnv(make), reward_fn, combine="add", coef=2.0)
    singles = [MineCLIPReward(FrameEnv(L, seed=i), reward_fn, combine="add", coef=2.0) for i, L in enumerate(lengths)]
    vec.reset()
    for s in singles:
        s.reset()
    for _ in range(7):  # SB3 resets an ended env within the same step: the step reward is its last frame's
        _, r, dones, infos = vec.step(np.zeros(2, dtype=np.int64))
        for i, s in enumerate(singles):
            _, ri, ti, tri, info = s.step(0)
            assert r[i] == pytest.approx(ri, abs=1e-5) and infos[i]["mineclip"]["prob"] == pytest.approx(
                info["mineclip"]["prob"], abs=1e-6)
            assert dones[i] == (ti or tri)
            if dones[i]:
                assert infos[i]["mineclip_episode"]["length"] == lengths[i]
                s.reset()
    # envs stepped in subprocesses: the model stays in this process
    sub = MineCLIPVecEnvReward(SubprocVecEnv(make, start_method="fork"), reward_fn)
    try:
        sub.reset()
        _, r, _, infos = sub.step(np.zeros(2, dtype=np.int64))
        assert r.shape == (2,) and set(infos[0]["mineclip"]) == {"reward", "prob", "logits", "env_reward"}
    finally:
        sub.close()
