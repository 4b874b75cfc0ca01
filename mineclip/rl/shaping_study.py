"""Does the learned reward shape, in both views? (issue 59, part 1)

`mineclip.rl.shaping.reward_by_distance` asked it from above only, by distance alone. This study
asks it per task and per view (`top`, `first_person`), each view with its own artifact, for the
paper's two formulas (`direct` = max(P - 1/N, 0) and `delta` = P_t - P_{t-1}, the task's prompt
against the paper's negatives, `negatives_for(prompt, "suite")`), with four measures:

(a) **distance**: random play on the task's training worlds (`random_play`); per step the Manhattan
    distance from the player to the nearest tile of the dense reward's navigation target *that the
    frame shows* (`observe`: from above the 16 x 9 window the frame draws, which is also the dense
    reward's window; in first person the tiles `firstperson.in_view` finds pixels of in the
    renderer's semantic and tile maps, so a target behind the player is out of view). Spearman's
    rho of the reward against that distance over the steps with the target in view, and the mean
    reward at 1 / 2 / 4 / 8 tiles and with no target in view. Negative rho = the reward rises as
    the agent nears the target. Its 95% interval (`episode_interval`) resamples the episodes
    played, not the worlds and spawns another seed brings, so it understates the spread from one
    draw to the next (at the default 200 x 8 steps another seed moved a task's rho by up to 0.22).
(b) **share**: Spearman's rho of the reward against how much of the view the target fills, over
    all steps (0 when it is not in view): in first person its share of the world's pixels in the
    renderer's semantic map (`firstperson.visible_share`); from above the number of its tiles in
    the 16 x 9 window over 144 (the frame draws every tile the same size).
(c) **VOC**, the value-order correlation of GVL (Ma et al. 2024, "Vision language models are
    in-context value learners"): Spearman's rho of the per-step value with the time index along a
    successful trajectory (`value_order_correlation`), on the scripted agent's episodes in the view
    (`play.record.run_episode`, cut at the step of success), mean over episodes. 1 = the value rises
    at every step towards success. The control (`random_voc`): the same along random play's
    episodes cut to the same lengths, since a window still filling with an episode's first frames
    can make any value drift along a short episode.
(d) **EPIC** (Gleave et al. 2021, "Quantifying differences in reward functions", ICLR): the
    distance between the learned reward and the task's hand-written dense reward over the random
    play's transitions, both canonicalised with the coverage distribution of the visited states
    and the discount (`epic_distance`); 0 = the same reward up to scale and potential shaping,
    1 = opposite, sqrt(1/2) = unrelated. Against the whole dense reward, whose success bonus is 20
    tiles' worth, a reward that fires on the event alone comes out close; against its navigation
    term alone (`epic_navigation`) only one that pays for coming nearer does.

How Delta is read, since it is a change and not a level (the rest of the module says `delta` for it):
- (a) and (b) correlate the delta reward with the *change* of distance (of share) over the step,
  over the steps with the target in view before and after: a potential-based reward tracks the
  change, and against the distance itself a perfect one would give ~0;
- (c) its value is its return so far, P_t - P_0 (the potential it is the change of); Direct's value
  is its reward itself;
- (d) takes the per-step reward as it is: EPIC removes potential shaping, so the delta reward
  P(s') - P(s) = [gamma P(s') - P(s)] + (1 - gamma) P(s') has the EPIC distance of P(s') alone.

Both rewards are functions of *states*, so that EPIC can pair any two of them: the learned
reward's state is the window of frames ending at it (its P, from the reward library's stream), the
dense reward's the distance the dense reward reads (`WorldState.distance`, the map's window in both
views), the episode's best distance so far, and whether the step into it hit the target or
reached success (`dense_reward`); on the transitions actually played it reproduces the env's own
dense reward (checked per run: `dense_mismatch`).

`shaping_study` runs it all for several tasks and views, `tables` prints it; `python
bench/shaping.py` is the command.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from datetime import date
from typing import Callable, Sequence

import numpy as np

from mineclip.evaluate.bootstrap import LEVEL, interval
from mineclip.sim.view import VIEWS, check_view

NOT_IN_VIEW = -1
DISTANCES = (1, 2, 4, 8)  # tiles at which the mean reward is reported
MODES = ("direct", "delta")  # the paper's formulas measured
# seven tasks of the suite whose dense reward navigates to a target, one per target kind
STUDY_TASKS = ("hunt_cow", "drink_water", "harvest_wood", "harvest_stone", "harvest_coal", "combat_zombie",
               "eat_plant")
SHAPES_AT = -0.5  # the bar: rho(distance) <= -0.5
RESAMPLES = 1000  # episode resamples behind rho's interval
GAMMA = 0.98  # PPO's discount in mineclip rl (PPOSettings.gamma)


# --------------------------------------------------------------------------- measures
def _spearman(x, y) -> float:
    """Spearman's rho; nan with fewer than 3 points or a constant side."""
    from scipy.stats import spearmanr

    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(x, y)[0])


def episode_interval(x, y, episodes, resamples: int = RESAMPLES, seed: int = 0,
                     level: float = LEVEL) -> list[float]:
    """Percentile interval of Spearman's rho of `x` and `y` over resamples of whole episodes with
    replacement: the steps of one episode are not independent draws (a cow in view stays in view),
    so resampling steps would give an interval far too narrow. The judge's percentile interval
    (`mineclip.evaluate.bootstrap.interval`); [nan, nan] with fewer than two episodes or no resample
    where rho is defined."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ids, inverse = np.unique(np.asarray(episodes), return_inverse=True)
    if len(ids) < 2:
        return [math.nan, math.nan]
    groups = [np.flatnonzero(inverse == k) for k in range(len(ids))]
    rng = np.random.default_rng(seed)
    rhos = np.array([_spearman(x[idx], y[idx]) for idx in (
        np.concatenate([groups[k] for k in rng.integers(0, len(ids), len(ids))]) for _ in range(resamples))])
    rhos = rhos[np.isfinite(rhos)]
    return interval(rhos, level) if len(rhos) else [math.nan, math.nan]


def value_order_correlation(values: Sequence[float]) -> float:
    """GVL's value-order correlation (Ma et al. 2024): Spearman's rho of per-step values with their
    time index along one trajectory; 1 when they rise at every step, -1 when they fall, nan for a
    constant sequence or fewer than 3 steps."""
    return _spearman(np.arange(len(values)), values)


def pearson_distance(x, y) -> float:
    """sqrt((1 - rho) / 2) of the Pearson correlation rho (EPIC's D_rho); nan if a side is constant."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    rho = float(np.clip(np.corrcoef(x, y)[0, 1], -1.0, 1.0))
    return math.sqrt((1.0 - rho) / 2.0)


RewardOf = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]  # R(s, a, s'), broadcasting arrays


def canonicalize(reward: RewardOf, s, a, s_next, states, actions, gamma: float, chunk: int = 2048) -> np.ndarray:
    """EPIC's canonically shaped reward (Gleave et al. 2021, eq. 2, sample-based) of the transitions
    (s, a, s_next):

        C(R)(s, a, s') = R(s, a, s') + E[gamma R(s', A, S') - R(s, A, S') - gamma R(S, A, S')]

    with S, S' drawn from the coverage distribution of states (`states`, the same samples for both,
    every pair taken) and A from that of actions (`actions`, one per pair). Any potential shaping
    gamma Phi(s') - Phi(s) canonicalises to exactly 0 that way. `reward` takes arrays of states and
    actions (indices of whatever tables it reads) and broadcasts them."""
    s, a, s_next = (np.asarray(v) for v in (s, a, s_next))
    states, actions = np.asarray(states), np.asarray(actions)
    m = len(states)
    if m == 0 or len(actions) != m:
        raise ValueError(f"expected as many coverage actions as states (> 0), got {len(actions)} and {m}")
    # E over (S, A, S') of R: every ordered pair of the samples, the action of row j for pair (j, k)
    mean_all = float(np.mean(reward(states[:, None], actions[:, None], states[None, :])))
    out = np.empty(len(s), float)
    for i in range(0, len(s), chunk):
        sl = slice(i, i + chunk)
        after = reward(s_next[sl, None], actions[None, :], states[None, :]).mean(axis=1)
        before = reward(s[sl, None], actions[None, :], states[None, :]).mean(axis=1)
        out[sl] = reward(s[sl], a[sl], s_next[sl]) + gamma * after - before - gamma * mean_all
    return out


def epic_distance(reward_a: RewardOf, reward_b: RewardOf, s, a, s_next, states, actions,
                  gamma: float = GAMMA) -> float:
    """EPIC pseudometric (Gleave, Dennis, Legg, Russell, Leike 2021, "Quantifying differences in
    reward functions", ICLR; arXiv:2006.13900): the Pearson distance sqrt((1 - rho) / 2) between the
    canonicalised rewards (`canonicalize`) over the transitions (s, a, s_next), drawn from the
    coverage distribution. 0: equal up to a positive scale and potential shaping; 1: opposite;
    about 0.71: uncorrelated. nan if one canonical reward is constant there."""
    ca = canonicalize(reward_a, s, a, s_next, states, actions, gamma)
    cb = canonicalize(reward_b, s, a, s_next, states, actions, gamma)
    return pearson_distance(ca, cb)


# --------------------------------------------------------------------------- one state
def target_of(task_id: str) -> str:
    """The kind the task's dense reward navigates to (`reward.navigate`: cow, water, tree, ...)."""
    from mineclip.tasks import get_task

    kind = (get_task(task_id).reward or {}).get("navigate")
    if not kind:
        raise ValueError(f"task {task_id!r} has no navigation target in its dense reward: nothing to measure against")
    return kind


def observe(env, kind: str) -> tuple[int, float, float]:
    """(distance to the nearest `kind` the frame shows, or NOT_IN_VIEW; the dense reward's distance,
    inf when none is in the map's window; the share of the view it fills) for a crafter env's
    current state (see the module: in first person from the renderer's semantic and tile maps)."""
    from mineclip.sim.firstperson import visible_share
    from mineclip.sim.state import LOCAL_VIEW

    base = env.unwrapped
    state = base.state
    seen = state.view_distance(kind) if state.count(kind) else NOT_IN_VIEW
    if base.view == "first_person":
        share = visible_share(base.first_person.semantic, kind)
    else:  # from above every tile is drawn the same size: the target's tiles among the window's
        share = state.count(kind) / float(LOCAL_VIEW[0] * LOCAL_VIEW[1])
    return int(seen), float(state.distance(kind)), float(share)


# --------------------------------------------------------------------------- random play
@dataclass
class Play:
    """Every state of random play (reset states included), one row each, and its transitions."""

    prob: np.ndarray  # P of the prompt for the window ending at the state
    seen: np.ndarray  # distance to the nearest target in view, NOT_IN_VIEW
    dist: np.ndarray  # the dense reward's distance (inf: none in the window)
    share: np.ndarray
    best: np.ndarray  # the dense reward's best distance in the episode so far (inf: none yet)
    hit: np.ndarray  # the step into the state hit the target
    success: np.ndarray  # the task holds in the state
    env_reward: np.ndarray  # the env's dense reward of the step into the state (nan at a reset)
    action: np.ndarray  # the action into the state (-1 at a reset)
    prev: np.ndarray  # index of the state before (-1 at a reset)
    episode: np.ndarray  # which episode the state is of (0, 1, ...; rows of one episode are in time order)
    num_prompts: int
    num_actions: int

    @property
    def steps(self) -> np.ndarray:
        """Indices of the states reached by a step (the rewards an agent receives)."""
        return np.nonzero(self.prev >= 0)[0]


def random_play(fn, task_id: str, view: str, steps: int, num_envs: int = 8, seed: int = 0, worlds: int = 8,
                max_steps: int | None = None, progress: bool = False, desc: str = "") -> Play:
    """`steps` vector steps of `num_envs` envs of the task (its dense reward, in `view`) under
    uniformly random actions, on the RL training worlds; per state the learned P of the prompt
    (`fn`, a RewardFunction: one forward per step for all envs through its stream) and what
    `observe` reads."""
    import torch
    from tqdm import tqdm

    from mineclip.tasks.world_seeds import world_seeds

    from .envs import make_task_env

    kind = target_of(task_id)
    hit_event = f"hit_{kind}"
    envs = [make_task_env(task_id, "dense", world_seeds("rl_train", worlds), seed * 1000 + i, max_steps,
                          view=check_view(view)) for i in range(num_envs)]
    n_actions = int(envs[0].action_space.n)
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {k: [] for k in ("prob", "seen", "dist", "share", "best", "hit", "success",
                                               "env_reward", "action", "prev", "episode")}
    last = [-1] * num_envs  # each env's latest row
    best = [math.inf] * num_envs
    episode = [-1] * num_envs
    episodes = [0]

    def add(i: int, prob: float, reward: float, action: int, hit: bool, success: bool, reset: bool) -> None:
        seen, dist, share = observe(envs[i], kind)
        if reset:
            best[i] = math.inf  # the dense reward's best starts at the first step, not the reset state
            episode[i], episodes[0] = episodes[0], episodes[0] + 1
        elif math.isfinite(dist):
            best[i] = min(best[i], dist)
        for k, v in (("prob", prob), ("seen", seen), ("dist", dist), ("share", share), ("best", best[i]),
                     ("hit", hit), ("success", success), ("env_reward", reward), ("action", action),
                     ("prev", -1 if reset else last[i]), ("episode", episode[i])):
            rows[k].append(v)
        last[i] = len(rows["prob"]) - 1

    stream = fn.stream(num_envs)
    try:
        frames = [env.reset()[0] for env in envs]
        probs = stream.reset(np.stack(frames)).prob.float().cpu().numpy()
        for i in range(num_envs):
            add(i, float(probs[i]), math.nan, -1, False, False, True)
        for _ in tqdm(range(steps), desc=desc or f"{task_id} {view}", disable=not progress, leave=False):
            actions = rng.integers(0, n_actions, size=num_envs)
            out = [env.step(int(a)) for env, a in zip(envs, actions)]
            with torch.inference_mode():
                probs = stream.step(np.stack([o[0] for o in out])).prob.float().cpu().numpy()
            done = []
            for i, (_, reward, terminated, truncated, info) in enumerate(out):
                add(i, float(probs[i]), float(reward), int(actions[i]), hit_event in info.get("events", ()),
                    bool(info.get("is_success", False)), False)
                if terminated or truncated:
                    done.append(i)
            if done:
                frames = [envs[i].reset()[0] for i in done]
                probs = stream.reset(np.stack(frames), done).prob.float().cpu().numpy()
                for j, i in enumerate(done):
                    add(i, float(probs[j]), math.nan, -1, False, False, True)
    finally:
        for env in envs:
            env.close()
    arrays = {k: np.asarray(v, dtype=float if k in ("prob", "dist", "share", "best", "env_reward") else None)
              for k, v in rows.items()}
    return Play(num_prompts=fn.num_prompts, num_actions=n_actions, **arrays)


# --------------------------------------------------------------------------- the two rewards as functions of states
def learned_reward(play: Play, mode: str) -> RewardOf:
    """The learned reward of a transition between any two states of `play`: direct max(P(s') - 1/N,
    0), delta P(s') - P(s) (the reward library's formulas)."""
    from mineclip.reward import reward_from_probs

    p, n = play.prob, play.num_prompts
    if mode == "delta":
        return lambda s, a, s2: reward_from_probs(p[s2], n, "delta", prev_probs=p[s])
    if mode in ("direct", "direct-naive"):
        return lambda s, a, s2: reward_from_probs(p[s2], n, mode) + 0.0 * p[s]
    raise ValueError(f"expected a reward mode in {MODES}, got {mode!r}")


def dense_reward(play: Play, spec: dict, navigation_only: bool = False) -> RewardOf:
    """The task's hand-written dense reward (`tasks.env.CrafterTaskEnv._reward`) between any two
    states of `play`, in units of its success bonus as RL's dense variant pays it: 10 per tile by
    which s' is nearer than the episode's best distance at s, the hit bonus when the step into s'
    hit the target, the success bonus when s' succeeds and s did not. `navigation_only`: the first
    term alone (its shaping part, without the events)."""
    bonus = float(spec.get("success", 200.0))
    hit_bonus = float(spec.get("hit_bonus", 5.0)) if spec.get("hit") and not navigation_only else 0.0
    success_bonus = 0.0 if navigation_only else bonus
    best, dist = play.best, play.dist
    hit, success = play.hit.astype(float), play.success.astype(bool)

    def reward(s, a, s2):
        b, d = best[s], dist[s2]
        ok = np.isfinite(b) & np.isfinite(d)
        nav = 10.0 * np.maximum(np.where(ok, b, 0.0) - np.where(ok, d, 0.0), 0.0)
        return (nav + hit_bonus * hit[s2] + success_bonus * (success[s2] & ~success[s])) / bonus

    return reward


# --------------------------------------------------------------------------- one task in one view
def _by_distance(seen: np.ndarray, reward: np.ndarray) -> dict[str, list]:
    out = {}
    for d in DISTANCES:
        m = seen == d
        out[str(d)] = [int(m.sum()), float(reward[m].mean()) if m.any() else None]
    m = seen == NOT_IN_VIEW
    out["out"] = [int(m.sum()), float(reward[m].mean()) if m.any() else None]
    return out


def analyse_play(play: Play, spec: dict, gamma: float = GAMMA, coverage: int = 512, seed: int = 0) -> dict:
    """Measures (a), (b) and (d) of one random play, per mode (see the module)."""
    steps = play.steps
    s, a, s2 = play.prev[steps], play.action[steps], steps
    rng = np.random.default_rng(seed)
    states = rng.choice(len(play.prob), size=min(coverage, len(play.prob)), replace=False)
    actions = rng.integers(0, play.num_actions, size=len(states))
    dense, navigation = dense_reward(play, spec), dense_reward(play, spec, navigation_only=True)
    actual = dense(s, a, s2)
    mismatch = float(np.nanmax(np.abs(actual - play.env_reward[steps]))) if len(steps) else 0.0
    seen2, seen1 = play.seen[s2], play.seen[s]
    in_view = seen2 != NOT_IN_VIEW
    both = in_view & (seen1 != NOT_IN_VIEW)
    out: dict = {"steps": int(len(steps)), "in_view": int(in_view.sum()), "dense_mismatch": mismatch,
                 "successes": int((play.success[s2] & ~play.success[s]).sum()),
                 "episodes": int(len(np.unique(play.episode[s2]))),
                 "rho_distance": {}, "rho_distance_interval": {}, "rho_share": {}, "epic": {}, "epic_navigation": {},
                 "by_distance": {}, "mean_reward": {}}
    for mode in MODES:
        r = learned_reward(play, mode)(s, a, s2)
        if mode == "delta":  # the change against the change (see the module)
            x, y, episode = (seen2 - seen1)[both], r[both], play.episode[s2][both]
            out["rho_share"][mode] = _spearman(play.share[s2] - play.share[s], r)
        else:
            x, y, episode = seen2[in_view], r[in_view], play.episode[s2][in_view]
            out["rho_share"][mode] = _spearman(play.share[s2], r)
        out["rho_distance"][mode] = _spearman(x, y)
        out["rho_distance_interval"][mode] = episode_interval(x, y, episode, seed=seed)
        out["epic"][mode] = epic_distance(learned_reward(play, mode), dense, s, a, s2, states, actions, gamma)
        out["epic_navigation"][mode] = epic_distance(learned_reward(play, mode), navigation, s, a, s2, states,
                                                     actions, gamma)
        out["by_distance"][mode] = _by_distance(seen2, r)
        out["mean_reward"][mode] = float(r.mean()) if len(r) else None
    # whether Direct's clipping holds its rho down: where P of the prompt is below 1/N the reward is
    # exactly 0 whatever the distance; P itself (the unclipped Direct-Naive) has no such ties
    r = learned_reward(play, "direct")(s, a, s2)
    out["direct_zero_in_view"] = float((r[in_view] == 0).mean()) if in_view.any() else None
    out["rho_distance_prob"] = _spearman(seen2[in_view], play.prob[s2][in_view])
    # the direct reward against the dense reward's own distance (the map's window, seen or not)
    known = np.isfinite(play.dist[s2])
    out["rho_window_distance_direct"] = _spearman(play.dist[s2][known], r[known])
    return out


def scripted_voc(fn, task_id: str, view: str, episodes: int = 8, seed: int = 0, worlds: int = 8) -> dict:
    """(c): VOC of each mode's value along the scripted agent's successful episodes of the task in
    `view` (`play.record.run_episode`, no random prelude, cut at the step of success), on the RL
    training worlds; the mean over the successful episodes."""
    from mineclip.play.record import run_episode
    from mineclip.reward import reward_from_probs
    from mineclip.tasks.world_seeds import world_seeds

    seeds = world_seeds("rl_train", worlds)
    vocs: dict[str, list[float]] = {m: [] for m in MODES}
    lengths = []
    for e in range(episodes):
        ep = run_episode(task_id, "scripted", seed=seed + e, world_seed=seeds[e % len(seeds)], tail=0,
                         min_frames=1, view=view)
        if not ep.record["label"]:
            continue
        k = ep.record["success"].index(True) + 1  # frames 0..k: the reset frame to the one of success
        prob = fn.trajectory(ep.frames[: k + 1]).prob
        lengths.append(k)
        vocs["direct"].append(value_order_correlation(reward_from_probs(prob[1:], fn.num_prompts, "direct")))
        vocs["delta"].append(value_order_correlation(prob[1:] - prob[0]))  # the return so far
    return {"voc": {m: _nanmean(v) for m, v in vocs.items()}, "voc_episodes": vocs, "successful": len(lengths),
            "tried": episodes, "lengths": lengths}


def _nanmean(values) -> float:
    v = np.asarray(values, float)
    return float(np.nanmean(v)) if len(v) and not np.isnan(v).all() else float("nan")


def random_voc(play: Play, lengths: Sequence[int]) -> dict:
    """The control for (c): the same VOC along random play's episodes, cut to the scripted successes'
    lengths (episode j to lengths[j % len]; an episode that is shorter is skipped). A reward whose
    window is still filling with the episode's first frames can rise (or fall) along any short
    episode; VOC means something only where it is above this."""
    from mineclip.reward import reward_from_probs

    vocs: dict[str, list[float]] = {m: [] for m in MODES}
    if not len(lengths):
        return {m: float("nan") for m in MODES}
    for j, e in enumerate(np.unique(play.episode)):
        rows = np.nonzero(play.episode == e)[0]  # the reset state, then its steps
        k = int(lengths[j % len(lengths)])
        if len(rows) < k + 1:
            continue
        prob = play.prob[rows[: k + 1]]
        vocs["direct"].append(value_order_correlation(reward_from_probs(prob[1:], play.num_prompts, "direct")))
        vocs["delta"].append(value_order_correlation(prob[1:] - prob[0]))
    return {m: _nanmean(v) for m, v in vocs.items()}


# --------------------------------------------------------------------------- the study
def parse_models(specs: Sequence[str], views: Sequence[str] | None = None) -> dict[str, str]:
    """`--model` values -> {view: artifact}: `VIEW=DIR`, or plain `DIR`s taken in the order of
    `views` (default: top, then first_person, as many as given)."""
    tagged, plain = {}, []
    for spec in specs:
        view, sep, path = spec.partition("=")
        if sep and view in VIEWS:
            if view in tagged:
                raise ValueError(f"two artifacts for the {view} view")
            tagged[view] = path
        else:
            plain.append(spec)
    if views is None:
        views = [v for v in VIEWS if v in tagged] + [v for v in VIEWS if v not in tagged][: len(plain)]
        views = [v for v in VIEWS if v in views]
    views = [check_view(v) for v in views]
    free = [v for v in views if v not in tagged]
    if len(plain) != len(free):
        raise ValueError(f"views {list(views)} need one artifact each: got {sorted(tagged)} by name and "
                         f"{len(plain)} in order for {free} (--model top=DIR --model first_person=DIR)")
    extra = sorted(set(tagged) - set(views))
    if extra:
        raise ValueError(f"an artifact for the {extra} view(s), which are not measured (--view {','.join(views)})")
    models = dict(tagged, **dict(zip(free, plain)))
    return {v: models[v] for v in views}


def tasks_at_bar(rows: dict[str, dict]) -> tuple[dict[str, int], dict[str, int]]:
    """Per mode, how many tasks' rho against the distance is at the bar (<= -0.5), and how many have
    their whole interval there (its upper end at the bar: beyond the play's sampling noise). A
    task whose rho or interval is undefined (nan) counts in neither."""
    at = {m: sum(1 for r in rows.values() if r["rho_distance"][m] <= SHAPES_AT) for m in MODES}
    surely = {m: sum(1 for r in rows.values() if r["rho_distance_interval"][m][1] <= SHAPES_AT) for m in MODES}
    return at, surely


def study_reward_model(artifact: str, window: int | None = None, untrained: int | None = None):
    """The artifact's reward model as RL loads it, or with a window of `window` frames instead of
    its own (issue 59 part 4's question: does the window see the approach?); with `untrained` (a
    seed), its untrained twin (the same architecture and window, random weights): what the frames
    and prompts give a reward before any training."""
    from mineclip.reward import RewardModel

    from .train import reward_model

    rm = reward_model(artifact) if window is None else RewardModel.load(artifact, device="cpu", window=window)
    return rm if untrained is None else rm.untrained_twin(untrained)


def shaping_study(models: dict[str, str], tasks: Sequence[str] = STUDY_TASKS, steps: int = 200, num_envs: int = 8,
                  episodes: int = 8, seed: int = 0, negatives: str = "suite", gamma: float = GAMMA,
                  worlds: int = 8, max_steps: int | None = None, window: int | None = None,
                  untrained: int | None = None, progress: bool = False, log=None) -> dict:
    """The four measures for every task in every view of `models` ({view: artifact}); JSON-ready.
    `window`: frames per clip the reward sees (default: the artifact's own, the reward RL uses);
    `untrained`: measure each artifact's untrained twin instead, its weights drawn under this seed."""
    from mineclip.tasks import get_task
    from mineclip.tasks.negatives import negatives_for

    t_start = time.time()
    results: dict[str, dict[str, dict]] = {}
    for view, artifact in models.items():
        check_view(view)
        rm = study_reward_model(artifact, window, untrained)
        results[view] = {}
        for task_id in tasks:
            t0 = time.time()
            task = get_task(task_id)
            fn = rm.reward_fn(task.prompt, negatives_for(task.prompt, negatives), mode="direct")
            play = random_play(fn, task_id, view, steps, num_envs, seed, worlds, max_steps, progress,
                               desc=f"{view} {task_id}")
            row = {"target": target_of(task_id), "prompt": task.prompt, "num_prompts": fn.num_prompts}
            row.update(analyse_play(play, task.reward, gamma, seed=seed))
            row.update(scripted_voc(fn, task_id, view, episodes, seed, worlds))
            row["voc_random"] = random_voc(play, row["lengths"])
            row["seconds"] = round(time.time() - t0, 1)
            results[view][task_id] = row
            if log:
                log(f"{view} {task_id}: {row['seconds']:.0f} s")
    fp = results.get("first_person", {})
    shaping, surely = tasks_at_bar(fp) if fp else (None, None)
    summary = {"first_person_shaping_tasks": shaping, "first_person_shaping_tasks_surely": surely,
               "tasks": len(tasks), "bar": SHAPES_AT}
    meta = {"date": str(date.today()), "models": dict(models), "tasks": list(tasks), "steps": steps,
            "num_envs": num_envs, "episodes": episodes, "seed": seed, "negatives": negatives, "gamma": gamma,
            "worlds": worlds, "window": window, "untrained": untrained,
            "seconds": round(time.time() - t_start, 1)}
    return {"meta": meta, "results": results, "summary": summary}


def to_json(obj):
    """The study with nan (a constant reward, too few steps) as null and numpy scalars as numbers."""
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        return None if math.isnan(obj) or math.isinf(obj) else float(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


# --------------------------------------------------------------------------- tables
def _f(x, fmt: str = "{:+.2f}") -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def _pair(d: dict, fmt: str = "{:+.2f}") -> str:
    return " / ".join(_f(d.get(m), fmt) for m in MODES)


def tables(study: dict) -> str:
    """Markdown: the measures per task with the views side by side (Direct / Delta in each cell),
    then the mean direct reward by distance, then the count of tasks that shape in first person."""
    res = study["results"]
    views = list(res)
    tasks = list(dict.fromkeys(t for v in views for t in res[v]))
    names = {"top": "top", "first_person": "first person"}
    cols = ["rho dist", "rho share", "VOC (random)", "EPIC", "EPIC nav"]
    lines = ["| task (target) | " + " | ".join(f"{names[v]}: {c}" for v in views for c in cols) + " |",
             "|---|" + "---:|" * (len(cols) * len(views))]
    for t in tasks:
        target = next(res[v][t]["target"] for v in views if t in res[v])
        cells = []
        for v in views:
            r = res[v].get(t)
            if r is None:
                cells += ["–"] * len(cols)
                continue
            voc = f"{_pair(r['voc'])} ({_pair(r['voc_random'])})"
            cells += [_pair(r["rho_distance"]), _pair(r["rho_share"]), voc, _pair(r["epic"], "{:.2f}"),
                      _pair(r["epic_navigation"], "{:.2f}")]
        lines.append(f"| {t} ({target}) | " + " | ".join(cells) + " |")
    lines += ["", "Each cell: Direct / Delta. rho dist: Spearman's rho of the reward against the distance to the "
              "nearest target in view (Delta: its change over the step), negative = shaping; rho share: against "
              "the share of the view the target fills (first person: its pixels in the semantic map; from above: "
              "its tiles in the 16 x 9 window), positive = shaping; VOC: value-order correlation along successful "
              "scripted episodes (Delta: its return so far), 1 = rising to success, in brackets the same along "
              "random play's episodes cut to the same lengths (the control: what a filling window or an "
              "approaching creature gives alone); EPIC: distance to the dense reward (navigation, hit and success "
              "terms), 0 = equivalent, 0.71 = unrelated, 1 = opposite; EPIC nav: to its navigation term alone, "
              "the shaping part. –: constant reward or too few steps.", ""]
    head = [f"{d} tiles" for d in DISTANCES] + ["not in view"]
    lines += ["| task | " + " | ".join(f"{names[v]}: direct x 1000 at " + " / ".join(head) + f" | {names[v]}: "
                                        "Direct 0 in view / rho dist of P / rho dist [95%]" for v in views)
              + " |", "|---|" + "---|---|" * len(views)]
    for t in tasks:
        cells = []
        for v in views:
            r = res[v].get(t)
            if r is None:
                cells.append("–")
                continue
            by = r["by_distance"]["direct"]
            cells.append(" / ".join("–" if by[k][1] is None else f"{1000 * by[k][1]:.1f}"
                                    for k in [*map(str, DISTANCES), "out"]))
            zero = r.get("direct_zero_in_view")
            lo, hi = r["rho_distance_interval"]["direct"]
            cells.append(f"{_f(None if zero is None else 100 * zero, '{:.0f}')}% / {_f(r.get('rho_distance_prob'))} / "
                         f"{_f(r['rho_distance']['direct'])} [{_f(lo)}, {_f(hi)}]")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    fp = study["summary"].get("first_person_shaping_tasks")
    surely = study["summary"].get("first_person_shaping_tasks_surely") or {}
    n = len(res.get("first_person", {}))
    lines += ["", f"rho dist [95%]: Direct's rho against the distance with its interval over {RESAMPLES} resamples "
              "of the random play's episodes (the episodes played; another seed's worlds and spawns can move it "
              "further).", ""]
    if fp is not None:
        lines.append(f"First person: rho(distance) <= {SHAPES_AT} on Direct {fp['direct']}/{n} tasks "
                     f"({surely.get('direct', 0)} with the whole interval there), Delta {fp['delta']}/{n} "
                     f"({surely.get('delta', 0)}) (the issue's goal: at least 5 of 7).")
    else:
        lines.append("First person: not measured (no first_person artifact).")
    return "\n".join(lines)
