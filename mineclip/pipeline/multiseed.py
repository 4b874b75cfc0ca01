"""Training seeds of one pipeline run: the same data and options, other initial weights and clip
orders (a training seed sets both), one after the other or several at a time.

Seed 0 trains in the base run's folder with the config's seed (0); seed s > 0 in `<base>-seed<s>`
with `seed_everything: s`, on the base run's clips and evaluation set, or on `data_from`'s for
every seed. Where the base run has no data yet, its data stages run first, alone, with every
worker. With `jobs` > 1 the seeds then run in that many spawned processes at once, seed 0 among
them, each with its share of the cores (torch threads and play workers) and its output in
`<run>/pipeline.log`; each holds its own clip cache in memory (about 8 GB for the default's 6,000
clips), and each seed gets a fresh process, so that a finished seed's cache is freed before the
next seed fills its own. `mineclip pipeline --seeds` and `bench/quality.py --seeds` run them
through `quality.quality_report`, which prints the spread over the seeds.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from .presets import Preset
from .run import DATA_STAGES, StageError, run_pipeline, stage_record

LOG_NAME = "pipeline.log"


@dataclass(frozen=True)
class SeedRun:
    """One training seed: its run folder and its training options."""

    seed: int
    run: Path
    overrides: dict = field(default_factory=dict, hash=False)


def seed_runs(base: Path, seeds: Sequence[int], overrides: dict | None = None) -> list[SeedRun]:
    """The run folders and training options of `seeds` (see the module)."""
    from mineclip.train.configs import merge

    if len(set(seeds)) != len(seeds) or any(s < 0 for s in seeds):
        raise ValueError(f"training seeds must be distinct and >= 0, got {list(seeds)}")
    common = overrides or {}
    return [SeedRun(0, base, merge(common, {})) if s == 0 else
            SeedRun(s, base.with_name(f"{base.name}-seed{s}"), merge(common, {"seed_everything": s})) for s in seeds]


def is_finished(run: Path) -> bool:
    return (run / "report" / "metrics.json").is_file()


def seed_pool(jobs: int) -> ProcessPoolExecutor:
    """`jobs` spawned processes that die with this one, each running one seed and exiting.

    A process that ran one seed and went on with the next kept the first seed's clip cache: with
    six seeds two at a time on 24 GB (2026-11-27), seed 0's process held 11.1 GiB when seed 4's
    cache filled, the kernel killed it, and the broken pool failed every seed after it."""
    from mineclip.host import die_with_parent

    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),), max_tasks_per_child=1)


def seed_error(e: Exception) -> Exception:
    """What a failed seed reports: its own error, or for a pool whose process died (and took the
    seeds not yet finished with it) a StageError that names the likely cause."""
    if isinstance(e, BrokenProcessPool):
        return StageError(f"a seed's process died ({e}); the seeds not finished then failed with it. Out of "
                          "memory? each job holds its clip cache (about 8 GB for the default): use fewer --jobs")
    return e


def _run_seed(job: SeedRun, preset: Preset, data_from: Path | None, workers: int, threads: int | None) -> int:
    """One seed's pipeline in a worker process: its output to <run>/pipeline.log, `threads` torch threads."""
    import torch

    if threads:
        torch.set_num_threads(threads)
    job.run.mkdir(parents=True, exist_ok=True)
    with open(job.run / LOG_NAME, "a") as log:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        run_pipeline(job.run, preset, workers, train_overrides=job.overrides, data_from=data_from)
    return job.seed


def run_seeds(base: Path, preset: Preset, seeds: Sequence[int], overrides: dict | None = None,
              data_from: Path | None = None, jobs: int = 1, workers: int = 2,
              progress: bool = True) -> dict[int, Exception]:
    """Run every seed whose run has not finished (see the module); returns the seeds that failed, with
    their errors (the others go on)."""
    from tqdm import tqdm

    if jobs < 1 or workers < 1:
        raise ValueError(f"jobs and workers must be >= 1, got {jobs} and {workers}")
    runs = seed_runs(base, seeds, overrides)
    todo = [r for r in runs if not is_finished(r.run)]
    failed: dict[int, Exception] = {}
    if not todo:
        return failed
    if data_from is None:
        if any(stage_record(base, stage) is None for stage in DATA_STAGES):
            if not any(r.run == base for r in todo):
                raise StageError(f"the seeds train on {base}'s data, which it has not made: run seed 0 too, "
                                 f"give data_from, or make the data first (mineclip pipeline --out {base} "
                                 "--until evalset)")
            run_pipeline(base, preset, workers, until=list(DATA_STAGES)[-1])  # the data alone, with every worker
        data_from = base
    data_of = {r.seed: None if r.run.resolve() == Path(data_from).resolve() else Path(data_from) for r in todo}
    jobs = min(jobs, max(len(todo), 1))
    threads = max(1, (os.cpu_count() or 1) // jobs) if jobs > 1 else None
    bar = tqdm(total=len(todo), desc="training seeds", unit="seed", disable=not progress)
    if jobs == 1:
        for r in todo:
            try:
                run_pipeline(r.run, preset, workers, train_overrides=r.overrides, data_from=data_of[r.seed])
            except Exception as e:  # noqa: BLE001 - a failed seed is reported, the others go on
                failed[r.seed] = e
            bar.update(1)
    else:
        with seed_pool(jobs) as pool:
            futures = {pool.submit(_run_seed, r, preset, data_of[r.seed], max(1, workers // jobs), threads): r
                       for r in todo}
            for fut in as_completed(futures):
                r = futures[fut]
                try:
                    fut.result()
                except Exception as e:  # noqa: BLE001
                    failed[r.seed] = seed_error(e)
                bar.set_postfix_str(f"seed {r.seed} {'failed' if r.seed in failed else 'done'} ({r.run / LOG_NAME})")
                bar.update(1)
    bar.close()
    return failed
