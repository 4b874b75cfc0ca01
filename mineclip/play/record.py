"""Run agents on tasks and write labelled trajectories: an mp4 per episode plus one JSON line each.

JSON-lines record (the format eval.py reads; `video` is relative to the .jsonl's folder):
    {"id", "task_id", "prompt", "video", "label", "labeller", "seed", "world_seed", "agent",
     "noise", "fps", "num_steps", "actions", "events", "success", "view", ...extra keys}
`view` is the view the video shows and the actions are of (`mineclip.sim.view`: top or first_person).
Frames: video frame 0 is the reset view, frame t+1 follows actions[t]; so it has num_steps + 1
frames. `success[t]` is the (sticky) label after step t; `label` is its last value.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mineclip.evaluate.trajectories import Problem, json_lines
from mineclip.sim.view import DEFAULT_VIEW, check_view
from mineclip.tasks.env import CrafterTaskEnv
from mineclip.tasks.registry import get_task, list_tasks
from mineclip.tasks.world_seeds import split_of, world_seeds

from .agents import AGENTS, DIRS, grid_move, make_agent

FPS = 8  # crafter steps are discrete; 8 fps only sets the video timing
FAILURE_AGENTS = ("near_miss", "wrong_target", "noisy", "random")


@dataclass
class Episode:
    frames: np.ndarray  # uint8 [num_steps + 1, 160, 256, 3]
    record: dict
    states: list  # WorldState per frame (for narration)


def _wrong_task(task, seed: int):
    """Another task of the suite whose plan leads somewhere else (for wrong-target failures)."""
    pool = [t for t in list_tasks() if t.id != task.id and t.solution and set(t.goal) != set(task.goal)]
    return pool[seed % len(pool)]


def run_episode(task_id: str, agent: str = "scripted", seed: int = 0, world_seed: int | None = None,
                noise: float = 0.0, prelude: int = 0, tail: int = 4, min_frames: int = 17,
                max_steps: int | None = None, episode_id: str | None = None, env: CrafterTaskEnv | None = None,
                spawn_jitter: int = 0, init: dict | None = None, view: str = DEFAULT_VIEW) -> Episode:
    """Play one episode and return its frames, JSON record and per-frame world states.

    view: what the frames show and the agent's controls (`mineclip.sim.view`); an `env` of another
    view (or task) is not used: one of this view is made.
    prelude: random walking steps before the agent starts (variety); tail: steps kept after
    success is reached; the episode is padded with the agent's steps up to `min_frames` frames;
    init: changes to the task's start (`CrafterEnv` init keys), recorded as the record's "init".
    """
    task = get_task(task_id)
    world_seed = seed if world_seed is None else world_seed
    if env is None or env.task is not task or env.view != check_view(view):
        env = CrafterTaskEnv(task, max_steps=max_steps, terminate_on_success=False, declare_done=False,
                             spawn_jitter=spawn_jitter, view=view)
    limit = max_steps or env.max_steps
    obs, _ = env.reset(seed=seed, options={"world_seed": world_seed, **({"init": init} if init else {})})
    other = _wrong_task(task, seed) if agent == "wrong_target" else None
    bot = make_agent(agent, task, noise=noise, seed=seed, other=other)
    bot.reset(env)
    rng = np.random.RandomState(seed)
    frames, states = [obs], [env.state]
    actions, events, success = [], [], []
    label, done_at = False, None
    for t in range(limit):
        if t < prelude:
            action = _wander(env, rng, actions[-1] if actions else None)
        else:
            action = bot.act(env)
        obs, _, terminated, truncated, info = env.step(action)
        frames.append(obs)
        states.append(env.state)
        actions.append(int(action))
        events.append(info["events"])
        label = label or env.judge()
        success.append(bool(label))
        if env.player.health <= 0:
            break
        if label and done_at is None:
            done_at = t
        finished = done_at is not None or (bot.done and task.kind == "creative" and t >= prelude)
        if finished and done_at is None:
            done_at = t
        if done_at is not None and t - done_at >= tail and len(frames) >= min_frames:
            break
    agent_name = getattr(bot, "name", agent)
    rid = episode_id or f"{task.id}-s{seed}-e0"
    record = {
        "id": rid, "task_id": task.id, "prompt": task.prompt, "video": f"videos/{rid}.mp4",
        "label": int(label), "labeller": task.labeller, "seed": int(seed), "world_seed": int(world_seed),
        "agent": agent_name, "noise": float(getattr(bot, "noise", noise)), "fps": FPS,
        "num_steps": len(actions), "actions": actions, "events": events, "success": success,
        "category": task.category, "kind": task.kind, "split": split_of(world_seed), "view": env.view,
    }
    if init:
        record["init"] = dict(init)
    if task.labeller == "human":  # no criterion and no oracle: people label it (`mineclip label`)
        record.update(label=None, success=None)
    return Episode(np.stack(frames), record, states)


def _wander(env: CrafterTaskEnv, rng, last: int | None = None) -> int:
    """A random step onto grass, sand or path (never into water or lava), in the env's view's controls
    (in first person a turn toward it or the step; `last`, the action before)."""
    x, y = (int(v) for v in env.player.pos)
    free = [d for d in DIRS.values() if env.world[(x + d[0], y + d[1])][0] in ("grass", "sand", "path")]
    if not free:
        return 0
    return grid_move(env, free[rng.randint(len(free))], last)[0]


# -- parallel recording ------------------------------------------------------------------------

def _record_job(job: dict) -> dict:
    from mineclip.data.video import write_mp4

    out = Path(job.pop("out"))
    ep = run_episode(**job)
    write_mp4(out / ep.record["video"], ep.frames, fps=FPS, preset="superfast", threads=1)
    return ep.record


def make_jobs(task_ids: list[str], agents: list[str], episodes: int, purpose: str = "play",
              noise: float = 0.3, prelude: int = 6, seed_offset: int = 0, worlds: int = 16,
              view: str = DEFAULT_VIEW) -> list[dict]:
    """Episode jobs: each task x agent x episode, on `worlds` world seeds of a purpose's range (reused),
    in a view (`mineclip.sim.view`)."""
    check_view(view)
    if episodes < 1 or worlds < 1:  # none was an empty file written without a reason; no worlds, a ZeroDivisionError
        raise ValueError(f"expected at least 1 episode and 1 world, got episodes={episodes} and worlds={worlds}")
    jobs = []
    seeds = world_seeds(purpose, worlds, seed_offset)
    for task_id in task_ids:
        for agent in agents:
            if agent not in AGENTS:
                raise ValueError(f"unknown agent {agent!r}; expected one of {AGENTS}")
            for e in range(episodes):
                world_seed = seeds[e % len(seeds)]
                seed = world_seed * 100 + e // len(seeds)
                jobs.append(dict(task_id=task_id, agent=agent, seed=seed, world_seed=world_seed,
                                 noise=noise if agent in ("noisy",) else 0.0,
                                 prelude=int(np.random.RandomState(seed).randint(0, prelude + 1)),
                                 episode_id=f"{task_id}-s{seed}-{agent}-e{e}", view=view))
    return jobs


# fork where the platform has it: workers inherit the loaded modules
PLAY_CONTEXT = "fork" if "fork" in mp.get_all_start_methods() else "spawn"


def play_map(fn, jobs, workers: int, name_of=str, ordered: bool = True, what: str = "episode"):
    """fn over jobs: in this process for one worker, else in a pool that fails fast when a worker
    dies (`mineclip.pool.pool_map`: WorkerDiedError naming the jobs that were running)."""
    if workers <= 1:
        return (fn(job) for job in jobs)
    from mineclip.pool import pool_map

    return pool_map(fn, jobs, workers, name_of=name_of, ordered=ordered, context=PLAY_CONTEXT, what=what)


def remove_partial_videos(out: Path) -> None:
    """Videos a dead worker was writing (`write_mp4` writes NAME.part, then renames it)."""
    for part in (out / "videos").glob("*.part"):
        part.unlink(missing_ok=True)


def record(jobs: list[dict], out_dir: str | os.PathLike, workers: int | None = None,
           jsonl_name: str = "trajectories.jsonl", progress: bool = True) -> Path:
    """Run jobs in parallel processes; write videos/ and a JSON-lines file (a line per finished
    episode); return its path. A worker that dies stops it with WorkerDiedError."""
    from tqdm import tqdm

    from mineclip.pool import WorkerDiedError

    out = Path(out_dir)
    (out / "videos").mkdir(parents=True, exist_ok=True)
    path = out / jsonl_name
    workers = workers or os.cpu_count() or 1
    jobs = [{**j, "out": str(out)} for j in jobs]
    results = play_map(_record_job, jobs, workers, name_of=lambda j: j.get("episode_id") or j["task_id"],
                       ordered=False)
    with open(path, "a") as f, tqdm(total=len(jobs), desc="record", disable=not progress) as bar, closing(results):
        try:
            for rec in results:
                f.write(json.dumps(rec) + "\n")
                f.flush()
                bar.update(1)
        except WorkerDiedError:
            remove_partial_videos(out)
            raise
    return path


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    """Trajectory records of a JSON-lines file (the one line reader, `evaluate.trajectories.json_lines`;
    a line that is not a JSON object is a ValueError naming it)."""
    out = []
    for _, rec in json_lines(path):
        if isinstance(rec, Problem):
            raise ValueError(f"{path}: {rec}")
        out.append(rec)
    return out
