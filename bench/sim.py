"""Crafter task environment throughput: env steps/s with rendering, one process and all cores.

    python bench/sim.py [--steps 2000] [--workers N] [--only views]

Prints steps/s for (a) env.step + render with random actions, (b) the scripted agent (BFS) on
the suite, each in one process, then (a) with N processes, and the parallel speed-up ratio; the
time to draw one frame with this project's renderer (`mineclip.sim.engine`: texture atlas,
in-place lighting, cached inventory bar) against crafter's own (a per-tile loop, PIL lighting),
by day and at night, on the same world state; and the first-person renderer's cost per frame
(`mineclip.sim.firstperson`) against a top-down environment step and a top-down frame, by day and
at night, measured in the same rounds. `--only views` prints the last alone.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import time

import numpy as np


def _random_steps(args) -> tuple[int, float]:
    steps, seed = args
    from mineclip.tasks.env import CrafterTaskEnv

    env = CrafterTaskEnv("harvest_wood", max_steps=10**9)
    env.reset(seed=seed)  # world generated (and cached) before timing
    rng = np.random.RandomState(seed)
    t = time.perf_counter()
    done = 0
    while done < steps:
        _, _, term, trunc, _ = env.step(int(rng.randint(17)))
        done += 1
        if term or trunc:
            env.reset(seed=seed)
    return done, time.perf_counter() - t


def _scripted_steps(steps: int) -> tuple[int, float]:
    from mineclip.play.agents import make_agent
    from mineclip.tasks.env import CrafterTaskEnv
    from mineclip.tasks.registry import list_tasks

    tasks = list_tasks(kind="programmatic")
    envs = {}
    for i, task in enumerate(tasks):  # warm the world cache
        envs[task.id] = CrafterTaskEnv(task)
        envs[task.id].reset(seed=i % 4)
    done, elapsed, i = 0, 0.0, 0
    while done < steps:
        task = tasks[i % len(tasks)]
        env = envs[task.id]
        env.reset(seed=i % 4)
        agent = make_agent("scripted", task, seed=i)
        agent.reset(env)
        t = time.perf_counter()
        for _ in range(env.max_steps):
            _, _, term, trunc, _ = env.step(agent.act(env))
            done += 1
            if term or trunc:
                break
        elapsed += time.perf_counter() - t
        i += 1
    return done, elapsed


def _world_generation(n: int = 5) -> float:
    from mineclip.tasks.env import CrafterTaskEnv

    env = CrafterTaskEnv("harvest_wood", reuse_worlds=False)
    t = time.perf_counter()
    for s in range(n):
        env.reset(seed=10_000 + s)
    fresh = (time.perf_counter() - t) / n
    env = CrafterTaskEnv("harvest_wood", reuse_worlds=True)
    env.reset(seed=10_000)
    t = time.perf_counter()
    for s in range(n):
        env.reset(seed=10_000)
    return fresh, (time.perf_counter() - t) / n


def _render_ms(time_of_day: str, frames: int = 200) -> tuple[float, float]:
    """Milliseconds per frame at a named time of day: ours, crafter's own renderer; interleaved rounds, median."""
    import crafter

    from mineclip.sim.env import CrafterEnv

    env = CrafterEnv(init={"time": time_of_day})
    env.reset(seed=2)
    core = env.core
    times = {"ours": [], "crafter": []}
    for _ in range(5):
        for name, render in (("ours", type(core).render), ("crafter", crafter.Env.render)):
            t = time.perf_counter()
            for _ in range(frames // 5):
                render(core)
            times[name].append((time.perf_counter() - t) / (frames // 5) * 1000)
    return float(np.median(times["ours"])), float(np.median(times["crafter"]))


def _views_ms(time_of_day: str, rounds: int = 7, n: int = 40) -> dict[str, float]:
    """Milliseconds: a top-down `CrafterEnv` step (random actions, its frame included), a top-down
    frame, a first-person frame and a first-person step, interleaved rounds, median."""
    from mineclip.sim.env import CrafterEnv
    from mineclip.sim.firstperson import FirstPersonRenderer

    top = CrafterEnv(init={"time": time_of_day}, max_steps=10**9)
    eyes = CrafterEnv(init={"time": time_of_day}, view="first_person", max_steps=10**9)
    top.reset(seed=2)
    eyes.reset(seed=2)
    renderer = FirstPersonRenderer()
    rng = np.random.RandomState(0)
    jobs = {"top step": lambda: top.step(int(rng.randint(17))),
            "top frame": lambda: top.core.render(),
            "first-person frame": lambda: renderer.render(top.world, top.player),
            "first-person step": lambda: eyes.step(int(rng.randint(17)))}
    times = {name: [] for name in jobs}
    for _ in range(rounds):
        for name, job in jobs.items():
            job()
            t = time.perf_counter()
            for _ in range(n):
                job()
            times[name].append((time.perf_counter() - t) / n * 1000)
        if top.core._step > 250:  # stay at the time of day measured
            top.reset(seed=2)
            eyes.reset(seed=2)
    return {name: float(np.median(v)) for name, v in times.items()}


def _print_views() -> None:
    for label in ("day", "night"):
        ms = _views_ms(label)
        step, frame = ms["top step"], ms["first-person frame"]
        print(f"first-person frame ({label + '):':<7} {frame:.2f} ms = x{frame / step:.2f} of a top-down step "
              f"({step:.2f} ms), x{frame / ms['top frame']:.2f} of a top-down frame ({ms['top frame']:.2f} ms); "
              f"first-person step {ms['first-person step']:.2f} ms")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--workers", type=int, default=os.cpu_count())
    p.add_argument("--only", choices=["views"], help="only the first-person renderer against the top-down step")
    a = p.parse_args()
    if a.only == "views":
        _print_views()
        return
    n, dt = _random_steps((a.steps, 0))
    single = n / dt
    print(f"random actions, 1 process:      {single:8.0f} steps/s (step + 160x256 render)")
    n, dt = _scripted_steps(a.steps)
    print(f"scripted agent, 1 process:      {n / dt:8.0f} steps/s (BFS planning + step + render)")
    for label in ("day", "night"):  # daylight 0.97 (shading only) and 0.03 (shading over noise)
        ours, theirs = _render_ms(label)
        print(f"render a frame ({label + '):':<7}      ours {ours:.2f} ms, "
              f"crafter's {theirs:.2f} ms (x{theirs / ours:.1f})")
    _print_views()
    fresh, cached = _world_generation()
    print(f"reset: new world {fresh * 1000:.0f} ms, reused world {cached * 1000:.0f} ms")
    ctx = mp.get_context("fork")
    with ctx.Pool(a.workers) as pool:
        t = time.perf_counter()
        results = pool.map(_random_steps, [(a.steps, s) for s in range(a.workers)])
        wall = time.perf_counter() - t
    total = sum(r[0] for r in results)
    print(f"random actions, {a.workers} processes:    {total / wall:8.0f} steps/s "
          f"(speed-up x{total / wall / single:.2f} over 1 process, wall time incl. world generation)")


if __name__ == "__main__":
    main()
