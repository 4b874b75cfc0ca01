"""Scripted demonstrations of the suite's tasks, measured for the MCU difficulty scores
(`mineclip.tasks.difficulty` holds the scores themselves and their cache)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mineclip.tasks.difficulty import cache_path, permutation_entropy, planning_complexity, scores_from_raw
from mineclip.tasks.registry import get_task, list_tasks
from mineclip.tasks.seeds import world_seeds

from .record import run_episode


def demo_worlds(episodes: int) -> list[int]:
    """The worlds the scripted demonstrations are played on."""
    return world_seeds("demos", episodes)


def measure(task_ids: list[str], episodes: int = 4, progress: bool = True) -> dict[str, dict]:
    """Raw scores per task from scripted-agent episodes on the demonstration worlds."""
    from tqdm import tqdm

    raw = {}
    for task_id in tqdm(task_ids, desc="difficulty", disable=not progress):
        task = get_task(task_id)
        lengths, entropies, ok = [], [], 0
        for ws in demo_worlds(episodes):
            ep = run_episode(task_id, "scripted", seed=ws, world_seed=ws, tail=0, min_frames=0)
            rec = ep.record
            if rec["label"]:
                ok += 1
                lengths.append(rec["success"].index(True) + 1)
                entropies.append(permutation_entropy(rec["actions"][: lengths[-1]]))
        inv = dict(task.init.get("inventory", {})) if not task.init.get("naive") else {}
        raw[task_id] = {
            "time": float(np.mean(lengths)) if lengths else float(task.max_steps),
            "effort": float(np.mean(entropies)) if entropies else 0.0,
            "planning": planning_complexity(task.goal or [], inv),
            "scripted_success": ok / episodes,
        }
    return raw


def recompute(task_ids: list[str] | None = None, episodes: int = 4, path: Path | None = None,
              progress: bool = True) -> dict[str, dict]:
    """Measure, calibrate over the whole suite and write the cache."""
    tasks = list_tasks()
    ids = task_ids or [t.id for t in tasks]
    raw = measure(ids, episodes, progress)
    human = {t.id: t.human for t in tasks if t.human}
    scores = scores_from_raw(raw, human)
    (path or cache_path()).write_text(json.dumps(scores, indent=1, sort_keys=True) + "\n")
    return scores
