"""One RL run: PPO (stable-baselines3) on one task, reward variant and seed, then its success rate."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure

from mineclip.counts import require_counts
from mineclip.host import host_info
from mineclip.reward import MODES, RewardModel
from mineclip.sim.view import DEFAULT_VIEW, check_view
from mineclip.tasks import get_task
from mineclip.tasks.negatives import negatives_for

from mineclip.tasks.world_seeds import world_seeds

from .envs import VARIANTS, has_dense_reward, make_vec_env
from .features import FrameFeatures

RESULT = "result.json"
PROGRESS = "progress.txt"  # env steps trained so far


@dataclass
class PPOSettings:
    """PPO hyper-parameters (stable-baselines3 names); the defaults suit 48-step crafter episodes."""

    n_steps: int = 32  # per env and rollout; x num_envs = rollout size
    batch_size: int = 64
    n_epochs: int = 8  # env steps are the expensive part on a CPU: reuse each rollout more
    learning_rate: float = 5e-4
    gamma: float = 0.98
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_range: float = 0.2
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    # with symbolic input: "conv", two 3x3 convolutions over the local view (mineclip.rl.policy), or
    # "mlp", the one-hot view flat into the MLP like the rest
    view_net: str = "conv"

    def __post_init__(self):
        require_counts(self, "n_steps", "batch_size", "n_epochs", owner="PPO's ")
        if not self.learning_rate > 0:
            raise ValueError(f"PPO's learning_rate must be above 0, got {self.learning_rate}")


@dataclass
class RunConfig:
    """Everything that decides one run."""

    task: str
    variant: str
    seed: int
    artifact: str
    steps: int = 3_000  # env steps of training (the compute per run; 27 runs ~ 27 min on 2 cores)
    num_envs: int = 8
    stack: int = 1  # frames whose features form the policy input
    # the policy's input (mineclip.rl.features.OBS): the frame features and, as MineDojo's agent had,
    # the local view as symbols, the inventory and the position (mineclip.rl.symbolic)
    obs: str = "features+symbolic"
    # learned reward formula (variant "mineclip"): the paper's direct, direct-naive, delta, or how
    # near the task's target looks to the Percipient's head (mineclip.perception.proximity): "proximity"
    # pays each tile's change (delta), "proximity-progress" each tile closer than ever (progress)
    reward_mode: str = "direct"
    reward_coef: float = 0.02  # learned reward per step, in units of the success bonus
    negatives: str = "suite"  # a policy of mineclip.tasks.negatives: suite, distinct, scene, distinct+scene
    eval_episodes: int = 12
    eval_deterministic: bool = False
    max_steps: int | None = None  # episode length; None = the task's default
    worlds: int = 8  # world seeds trained on (and, disjoint, evaluated on)
    ppo: PPOSettings = field(default_factory=PPOSettings)
    # what the frames show and the policy's controls (mineclip.sim.view): the frame features, the
    # learned reward and the evaluation all see this view; the symbols stay the map's local window
    view: str = DEFAULT_VIEW

    def __post_init__(self):
        check_view(self.view)
        # none of these was a run that trained or judged nothing and reported NaN, or failed inside each worker
        require_counts(self, "steps", "num_envs", "stack", "eval_episodes", "worlds")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1 (or unset: the task's own), got {self.max_steps}")

    def run_dir(self, out: Path) -> Path:
        return Path(out) / "runs" / self.task / self.variant / f"seed{self.seed}"


def run_identity(config: dict) -> dict:
    """The settings of a run's config (`asdict(RunConfig)`, as result.json stores it) that decide
    its outcome, what a finished run is reused by: the learned reward's settings only count for the
    variant that has one, so a bonus-only run serves every learned reward's table."""
    d = json.loads(json.dumps(config))
    d.setdefault("view", DEFAULT_VIEW)  # runs from before the view existed were in the top view
    if d.get("variant") != "mineclip":
        for k in LEARNED_REWARD_FIELDS:
            d.pop(k, None)
    return d


LEARNED_REWARD_FIELDS = ("reward_mode", "reward_coef", "negatives")
# --reward-mode -> the mode of mineclip.perception.proximity's ProximityRewardFunction
PROXIMITY_REWARD_MODES = {"proximity": "delta", "proximity-progress": "progress"}
REWARD_MODES = (*MODES, *PROXIMITY_REWARD_MODES)  # the prompt's formulas (mineclip.reward), then the head's


_MODELS: dict[str, RewardModel] = {}


def reward_model(artifact: str) -> RewardModel:
    """The artifact's RewardModel, loaded once per process."""
    if artifact not in _MODELS:
        _MODELS[artifact] = RewardModel.load(artifact, device="cpu")
    return _MODELS[artifact]


class EpisodeLog(BaseCallback):
    """Records (env step, success, learned return) at the end of every training episode, and
    writes the env steps done so far to `progress` after every rollout (for the CLI's progress bar)."""

    def __init__(self, progress: Path | None = None):
        super().__init__()
        self.episodes: list[tuple[int, bool, float | None]] = []
        self.progress = progress

    def _on_rollout_end(self) -> None:
        if self.progress is not None:
            self.progress.write_text(str(self.num_timesteps))

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done:
                learned = info.get("mineclip_episode", {}).get("return")
                self.episodes.append((int(self.num_timesteps), bool(info.get("is_success", False)), learned))
        return True


def training_worlds(cfg: RunConfig) -> list[int]:
    """The worlds a run trains on (crafter world generation costs ~0.5 s, so runs reuse a few worlds;
    placements and mobs still change every episode)."""
    return world_seeds("rl_train", cfg.worlds)


def evaluation_worlds(cfg: RunConfig) -> list[int]:
    """The held-out worlds a run's policy is evaluated on."""
    return world_seeds("rl_eval", cfg.worlds)


def build_env(cfg: RunConfig, rm: RewardModel, worlds, seed: int, variant: str | None = None,
              num_envs: int | None = None) -> FrameFeatures:
    """The run's vector env: task envs -> frame features (+ the learned reward for "mineclip")."""
    variant = variant or cfg.variant
    venv = make_vec_env(cfg.task, variant, num_envs or cfg.num_envs, worlds, seed, cfg.max_steps,
                        symbols=cfg.obs != "features", view=cfg.view)
    fn = None
    if variant == "mineclip":
        fn = learned_reward(cfg, rm)
    return FrameFeatures(venv, rm, stack=cfg.stack, reward=fn, coef=cfg.reward_coef, obs=cfg.obs)


def learned_reward(cfg: RunConfig, rm: RewardModel):
    """The learned reward of the "mineclip" variant: the task's prompt against its negatives (the
    paper's formulas), or with a proximity reward_mode, how near the task's target looks to the
    Percipient's head (`mineclip.perception.proximity`; the target's kinds from the task's schema;
    the head must have been fitted in the run's view)."""
    task = get_task(cfg.task)
    if cfg.reward_mode not in PROXIMITY_REWARD_MODES:
        return rm.reward_fn(task.prompt, negatives_for(task.prompt, cfg.negatives), mode=cfg.reward_mode)
    from mineclip.perception.head import load_head
    from mineclip.perception.proximity import ProximityRewardFunction

    target = (task.reward or {}).get("navigate")
    if not target:
        raise ValueError(f"task {cfg.task!r} names no target to come near (reward.navigate in its schema): "
                         "the proximity reward has nothing to measure")
    return ProximityRewardFunction(rm, load_head(cfg.artifact, rm, cfg.view), [target],
                                   mode=PROXIMITY_REWARD_MODES[cfg.reward_mode])


def policy_kwargs(cfg: RunConfig, env: FrameFeatures) -> dict:
    """SB3 policy_kwargs: the MLP's layers and, for symbolic input with view_net "conv", the
    convolution over the local view."""
    kwargs: dict = {"net_arch": list(cfg.ppo.net_arch)}
    if cfg.ppo.view_net not in ("conv", "mlp"):
        raise ValueError(f"expected view_net 'conv' or 'mlp', got {cfg.ppo.view_net!r}")
    if env.use_symbols and cfg.ppo.view_net == "conv":
        from .policy import SymbolicExtractor

        kwargs["features_extractor_class"] = SymbolicExtractor
        kwargs["features_extractor_kwargs"] = {"frame_dim": env.stack * env.dim if env.use_features else 0}
    return kwargs


def evaluate(policy: PPO, cfg: RunConfig, rm: RewardModel, episodes: int, seed: int) -> dict:
    """Success rate over `episodes` episodes on held-out worlds, with stable-baselines3's
    `evaluate_policy` (each env runs a fixed share of the episodes, so short successful episodes
    do not crowd out long failures)."""
    from stable_baselines3.common.evaluation import evaluate_policy

    n = max(1, min(cfg.num_envs, episodes))
    env = build_env(cfg, rm, evaluation_worlds(cfg), seed, variant="sparse", num_envs=n)
    successes: list[bool] = []

    def record(local: dict, _) -> None:  # called for each env of each step, while it still counts
        if local["done"]:
            successes.append(bool(local["info"]["episode"]["is_success"]))

    _, lengths = evaluate_policy(policy, env, n_eval_episodes=episodes, deterministic=cfg.eval_deterministic,
                                 return_episode_rewards=True, callback=record)
    env.close()
    return {"success_rate": float(np.mean(successes)), "episodes": len(successes),
            "mean_length": float(np.mean(lengths))}


def run(cfg: RunConfig, out: str | Path) -> dict:
    """Train, evaluate and write run_dir/result.json (+ policy.zip); returns the result."""
    torch.set_num_threads(1)
    if cfg.variant not in VARIANTS:
        raise ValueError(f"expected a reward variant in {sorted(VARIANTS)}, got {cfg.variant!r}")
    run_dir = cfg.run_dir(Path(out))
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / PROGRESS).write_text("0")
    t0 = time.time()
    rm = reward_model(cfg.artifact)
    env = build_env(cfg, rm, training_worlds(cfg), cfg.seed)
    p = cfg.ppo
    policy = PPO("MlpPolicy", env, n_steps=p.n_steps, batch_size=p.batch_size, n_epochs=p.n_epochs,
                 learning_rate=p.learning_rate, gamma=p.gamma, gae_lambda=p.gae_lambda, ent_coef=p.ent_coef,
                 clip_range=p.clip_range, policy_kwargs=policy_kwargs(cfg, env), seed=cfg.seed,
                 device="cpu", verbose=0)
    # PPO's own statistics (losses, KL, entropy) as CSV in the run folder; SB3's default logger
    # would make an empty SB3-<time> folder in the system temp dir for every run
    policy.set_logger(configure(str(run_dir / "ppo"), ["csv"]))
    log = EpisodeLog(run_dir / PROGRESS)
    policy.learn(total_timesteps=cfg.steps, callback=log)
    train_s = time.time() - t0
    scale = env.stats.summary() if env.fn is not None else None
    frames = env.frames_encoded
    env.close()
    t1 = time.time()
    ev = evaluate(policy, cfg, rm, cfg.eval_episodes, seed=10_000 + cfg.seed)
    policy.save(run_dir / "policy.zip")
    result = {
        "task": cfg.task, "variant": cfg.variant, "seed": cfg.seed, "view": cfg.view,
        "success_rate": ev["success_rate"], "eval": ev,
        "train": {"env_steps": int(policy.num_timesteps), "episodes": len(log.episodes),
                  "success_rate_last_quarter": _last_quarter(log.episodes),
                  "frames_encoded": int(frames), "learned_reward_scale": scale},
        "curve": [[s, int(ok)] + ([] if r is None else [r]) for s, ok, r in log.episodes],
        "dense_reward_defined": has_dense_reward(cfg.task),
        "wall_s": {"train": train_s, "eval": time.time() - t1, "total": time.time() - t0},
        "host": host_info(),  # runs of one table may come from several machines
        "config": asdict(cfg),
    }
    (run_dir / RESULT).write_text(json.dumps(result) + "\n")
    return result


def _last_quarter(episodes: list) -> float | None:
    if not episodes:
        return None
    last = episodes[len(episodes) * 3 // 4:]
    return float(np.mean([ok for _, ok, _ in last]))
