"""Many RL runs (task x reward variant x seed) in parallel processes, with one progress bar over
all their env steps; finished runs with the same config are reused. `mineclip rl` calls `run_all`."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mineclip.host import die_with_parent

from .train import PROGRESS, RESULT, RunConfig, run_identity

UNTRAINED = "untrained-tiny"


@dataclass
class RunsResult:
    """What `run_all` did: the results of the runs it trained, the runs that failed, how long."""

    results: list[dict]
    failures: list[tuple[RunConfig, Exception]] = field(default_factory=list)
    reused: int = 0
    seconds: float = 0.0


def untrained_artifact_path(out: Path) -> str:
    """Where `untrained_artifact` keeps the untrained model's artifact in `out`."""
    return str(Path(out) / "untrained-tiny-artifact")


def untrained_artifact(out: Path) -> str:
    """An artifact of an untrained tiny model in `out` (for smoke runs; its reward is meaningless)."""
    import torch

    from mineclip.model import MineCLIP, get_config
    from mineclip.model.artifact import save_artifact

    path = Path(untrained_artifact_path(out))
    if not (path / "config.json").is_file():
        torch.manual_seed(0)
        save_artifact(MineCLIP(get_config("tiny")), path, source={"kind": "untrained", "name": UNTRAINED})
    return str(path)


def artifact_meta(artifact: str) -> dict:
    """A line about the artifact for the table's footer."""
    from mineclip.model.artifact import ArtifactError, read_artifact_config

    try:
        c = read_artifact_config(artifact)
    except (ArtifactError, OSError, ValueError) as e:  # the table is still worth writing
        return {"artifact": f"{artifact} (unreadable: {e})"}
    src = c.get("source") or {}
    metrics = (c.get("training") or {}).get("metrics") or {}
    desc = f"{artifact} ({src.get('kind', '?')}, {c.get('parameters', 0):,} parameters"
    return {"artifact": desc + (f", metrics {metrics}" if metrics else "") + ")"}


def is_done(cfg: RunConfig, out: Path) -> bool:
    """Whether `out` holds a finished run with this config (`run_identity`)."""
    path = cfg.run_dir(out) / RESULT
    if not path.is_file():
        return False
    try:
        return run_identity(json.loads(path.read_text())["config"]) == run_identity(asdict(cfg))
    except (ValueError, KeyError):
        return False


def _progress(cfg: RunConfig, out: Path) -> int:
    try:
        return min(cfg.steps, int((cfg.run_dir(out) / PROGRESS).read_text()))
    except (OSError, ValueError):
        return 0


def _run_one(cfg: RunConfig, out: str) -> dict:
    from .train import run

    return run(cfg, out)


def run_all(configs: list[RunConfig], out: str | Path, workers: int = 2, force: bool = False,
            progress: bool = True) -> RunsResult:
    """Train and evaluate every config not finished in `out` (all with `force`), `workers` at a
    time in spawned processes; a failing run is recorded and the others go on."""
    from tqdm import tqdm

    t0, out = time.time(), Path(out)
    todo = [c for c in configs if force or not is_done(c, out)]
    result = RunsResult([], reused=len(configs) - len(todo))
    bar = tqdm(total=sum(c.steps for c in todo), desc="rl env steps", unit="step", unit_scale=True,
               disable=not progress)
    finished: set[int] = set()

    def refresh() -> None:
        bar.update(sum(c.steps if i in finished else _progress(c, out) for i, c in enumerate(todo)) - bar.n)

    def advance(k: int, get_result) -> None:
        cfg = todo[k]
        try:
            r = get_result()
        except Exception as e:  # a failed run is reported; the others go on
            result.failures.append((cfg, e))
        else:
            result.results.append(r)
            bar.set_postfix_str(f"{len(finished) + 1}/{len(todo)} runs; {cfg.task}/{cfg.variant}/s{cfg.seed}: "
                                f"{100 * r['success_rate']:.0f}%")
        finished.add(k)
        refresh()

    if workers <= 1:
        for k, cfg in enumerate(todo):
            advance(k, lambda cfg=cfg: _run_one(cfg, str(out)))
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=die_with_parent,
                                 initargs=(os.getpid(),)) as pool:
            futures = {pool.submit(_run_one, cfg, str(out)): k for k, cfg in enumerate(todo)}
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=5, return_when=FIRST_COMPLETED)
                for fut in done:
                    advance(futures[fut], fut.result)
                refresh()
    bar.close()
    result.seconds = time.time() - t0
    return result
