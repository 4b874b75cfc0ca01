"""Demonstrations of the catalogue's tasks, measured for MCU's difficulty scores and used to validate
generated tasks (`mineclip.tasks.difficulty` holds the scores, their calibration and their cache).

Every task is played on `episodes` demonstration worlds by each of `DEMONSTRATORS`: the scripted
agent and the second scripted agent (its own path tie-breaking), noise-free and with a share of
random actions. A task whose successful demonstrations hold fewer than `MIN_PE_DEMOS` action
sequences of at least D + 1 = 4 actions (two windows, the least that can show two ordinal patterns;
crafting with everything at hand is one action) gets more noisy
demonstrations (`EXTRA_DEMONSTRATORS`, on further worlds, up to `EXTRA_ROUNDS` rounds), so that its
permutation entropy rests on sequences that have ordinal patterns. Time comes from the noise-free
demonstrations, operational effort from every successful one (a sequence shorter than D counts as
PE 0: it shows at most one pattern), creativity from the successful ones of `DEMONSTRATORS`.
"""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import numpy as np

from mineclip.tasks.difficulty import (PE_ORDER, cache_path, human_ratings, is_reference, load_scores,
                                       permutation_entropy, planning_complexity, scores_from_raw)
from mineclip.tasks.proxies import (CREATIVITY_K, end_state, intricacy, lexical_novelty, model_novelty,
                                    rarefied_richness, training_captions)
from mineclip.tasks.registry import get_task, list_tasks
from mineclip.sim.view import DEFAULT_VIEW
from mineclip.tasks.world_seeds import world_seeds

from .record import play_map, run_episode

DEMONSTRATORS = (("scripted", 0.0), ("scripted_alt", 0.0), ("scripted", 0.1), ("scripted_alt", 0.25))
EXTRA_DEMONSTRATORS = (("scripted", 0.25), ("scripted_alt", 0.5))
MIN_PE_DEMOS = 3
EXTRA_ROUNDS = 24
VALIDATION_OFFSET = 100  # validation worlds: further into the demonstrations' range than the demonstrations
EXTRA_OFFSET = 200  # worlds of the extra demonstrations


def demo_worlds(episodes: int) -> list[int]:
    """The worlds the demonstrations are played on."""
    return world_seeds("demos", episodes)


def demonstrate(task_id: str, worlds: list[int], demonstrators=DEMONSTRATORS, extra: bool = False,
                view: str = DEFAULT_VIEW) -> list[dict]:
    """Play a task with each demonstrator on each world, in a view (`mineclip.sim.view`): per episode
    the agent, noise, world, whether and when it succeeded, the actions up to success and the end
    state's signature."""
    from mineclip.tasks.env import CrafterTaskEnv

    task = get_task(task_id)
    env = CrafterTaskEnv(task, terminate_on_success=False, declare_done=False, view=view)  # labels: the criterion held
    out = []
    for i, (agent, noise) in enumerate(demonstrators):
        for ws in worlds:
            ep = run_episode(task_id, agent, seed=ws * 10 + i, world_seed=ws, noise=noise, tail=0, min_frames=0,
                             env=env, view=view)
            rec = ep.record
            steps = rec["success"].index(True) + 1 if rec["label"] else None
            out.append({"agent": agent, "noise": noise, "world_seed": ws, "steps": steps, "extra": extra,
                        "actions": rec["actions"][:steps] if steps else [],
                        "end_state": json.dumps(end_state(env.context, env.world)) if steps else None})
    return out


def raw_scores(task_id: str, demos: list[dict]) -> dict:
    """The measured raw scores of a task from its demonstrations, plus planning and intricacy."""
    task = get_task(task_id)
    solved = [d for d in demos if d["steps"]]
    clean = [d for d in solved if d["noise"] == 0] or solved
    notes = {}
    if clean:
        time = float(np.mean([d["steps"] for d in clean]))
    else:
        time = float(task.max_steps)
        notes["time"] = f"no demonstration solved it within {task.max_steps} steps: time = the step limit"
    entropies = [permutation_entropy(d["actions"], PE_ORDER) for d in solved]
    effort = float(np.mean([pe or 0.0 for pe in entropies])) if solved else 0.0
    if not any(pe is not None for pe in entropies):
        notes["effort"] = (f"no successful demonstration of {len(demos)}" if not solved else
                           f"all {len(solved)} successful demonstrations (noisy ones included) took fewer than "
                           f"{PE_ORDER} actions") + ": no ordinal pattern to measure, effort = 0"
    signatures = [d["end_state"] for d in solved if not d["extra"]]
    if len(signatures) < CREATIVITY_K:
        notes["creativity"] = f"{len(signatures)} successful demonstrations (< {CREATIVITY_K}): observed count"
    clean_runs = [d for d in demos if d["noise"] == 0 and d["agent"] == "scripted"]
    return {
        "time": time, "effort": effort, "planning": planning_complexity(task), "intricacy": intricacy(task),
        "creativity": rarefied_richness(signatures) if signatures else 0.0,
        "scripted_success": sum(bool(d["steps"]) for d in clean_runs) / max(len(clean_runs), 1),
        "demonstrations": len(demos), "solved": len(solved), "extra": sum(d["extra"] for d in demos),
        "pe_sequences": sum(pe is not None for pe in entropies), "notes": notes,
    }


def long_enough(demos: list[dict]) -> int:
    """How many successful demonstrations have at least D + 1 actions (two ordinal patterns)."""
    return sum(bool(d["steps"]) and d["steps"] > PE_ORDER for d in demos)


def demonstrations(task_id: str, worlds: list[int], view: str = DEFAULT_VIEW) -> list[dict]:
    """The demonstrations of a task: `DEMONSTRATORS` on `worlds`, then extra noisy ones while fewer
    than `MIN_PE_DEMOS` have more than D actions."""
    demos = demonstrate(task_id, worlds, view=view)
    extra = world_seeds("demos", EXTRA_ROUNDS, offset=EXTRA_OFFSET)
    for ws in extra:
        if long_enough(demos) >= MIN_PE_DEMOS or not any(d["steps"] for d in demos):
            break
        demos += demonstrate(task_id, [ws], EXTRA_DEMONSTRATORS, extra=True, view=view)
    return demos


def _measure_job(job: tuple) -> tuple[str, dict]:
    task_id, worlds, view = job
    return task_id, raw_scores(task_id, demonstrations(task_id, worlds, view))


def _pool_map(fn, jobs: list, workers: int, desc: str, progress: bool):
    from tqdm import tqdm

    with tqdm(total=len(jobs), desc=desc, disable=not progress) as bar, \
            closing(play_map(fn, jobs, workers, name_of=lambda j: str(j[0]), ordered=False, what="task")) as results:
        for r in results:
            yield r
            bar.update(1)


def measure(task_ids: list[str], episodes: int = 4, workers: int = 1, progress: bool = True,
            view: str = DEFAULT_VIEW) -> dict[str, dict]:
    """Raw scores per task from demonstrations on `episodes` demonstration worlds, played in a view."""
    jobs = [(t, demo_worlds(episodes), view) for t in task_ids]
    out = dict(_pool_map(_measure_job, jobs, workers, "difficulty", progress))
    return {t: out[t] for t in task_ids}


def novelty(task_ids: list[str], captions: str | Path, model: str | Path | None = None) -> dict[str, float]:
    """Raw novelty per task: its prompt's distance from the training captions (a trained model's text
    space when `model` is an artifact, else TF-IDF)."""
    texts = training_captions(captions)
    prompts = [get_task(t).prompt for t in task_ids]
    values = model_novelty(prompts, texts, model) if model else lexical_novelty(prompts, texts)
    return {t: round(float(v), 6) for t, v in zip(task_ids, values)}


def recompute(captions: str | Path, model: str | Path | None = None, task_ids: list[str] | None = None,
              episodes: int = 4, workers: int = 1, path: Path | None = None, progress: bool = True,
              ratings: str | Path | None = None) -> dict[str, dict]:
    """Measure tasks (default: every task of both catalogues; the others keep their cached raw scores),
    compute novelty for all, calibrate over the atom tasks and their naive versions (people's
    `ratings` file, if given, over the proxies), write the cache."""
    tasks = list_tasks(catalogue="all")
    path = path or cache_path()
    cached = {t: s["raw"] for t, s in load_scores(path).items() if "raw" in s}
    ids = task_ids or [t.id for t in tasks]
    raw = {t.id: cached[t.id] for t in tasks if t.id in cached and t.id not in ids}
    raw.update(measure(ids, episodes, workers, progress))
    for t, v in novelty(list(raw), captions, model).items():
        raw[t]["novelty"] = v
    reference = [t.id for t in tasks if t.id in raw and is_reference(t)]
    scores = scores_from_raw(raw, reference, human_ratings(tasks, ratings))
    path.write_text(json.dumps(scores, indent=1, sort_keys=True) + "\n")
    return scores


def _validate_job(job: tuple) -> tuple[str, float]:
    task_id, worlds, view = job
    demos = demonstrate(task_id, worlds, demonstrators=(("scripted", 0.0),), view=view)
    return task_id, sum(bool(d["steps"]) for d in demos) / len(demos)


def validate(task_ids: list[str], worlds: int = 3, workers: int = 1, progress: bool = True,
             view: str = DEFAULT_VIEW) -> dict[str, float]:
    """The scripted agent's success rate per task on `worlds` validation worlds (for generated tasks),
    played in a view."""
    seeds = world_seeds("demos", worlds, offset=VALIDATION_OFFSET)
    jobs = [(t, seeds, view) for t in task_ids]
    out = dict(_pool_map(_validate_job, jobs, workers, "validate", progress))
    return {t: out[t] for t in task_ids}
