"""Worker processes that fail fast: `pool_map` runs a function over jobs in a process pool and, when a
worker dies (the OOM killer, a crash in native code, a `kill`), stops at once with a
`WorkerDiedError` that names the jobs that were running, instead of waiting forever on a result
that will not come (what `multiprocessing.Pool.imap` does).

Built on `concurrent.futures.ProcessPoolExecutor`, which notices a dead worker and ends the others.
Workers also exit when the process that started them is gone (`mineclip.host.die_with_parent`), and
a consumer that stops early (an error, enough results) ends them rather than waiting for their jobs:
no pool leaves an orphan behind.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator

from mineclip.host import die_with_parent

AHEAD = 2  # jobs submitted per worker ahead of the results taken (bounded memory, ordered output)


class WorkerDiedError(RuntimeError):
    """A worker process died while jobs were running; `jobs` are those that were in flight."""

    def __init__(self, message: str, jobs: list):
        super().__init__(message)
        self.jobs = jobs


def _start_worker(parent: int, pids) -> None:
    pids.put(os.getpid())
    die_with_parent(parent)


def pool_map(fn: Callable[[Any], Any], jobs: Iterable, workers: int, name_of: Callable[[Any], str] = str,
             ordered: bool = True, context: str | None = None, what: str = "job") -> Iterator:
    """fn(job) for every job in `workers` processes, in the jobs' order (or, not `ordered`, as they
    finish). `name_of(job)` names a job in the error a dead worker raises ("... while running
    {what}s a.mp4, b.mp4"); `context`: the multiprocessing start method (None: the platform's)."""
    ctx = multiprocessing.get_context(context)
    pids = ctx.SimpleQueue()
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_start_worker,
                                   initargs=(os.getpid(), pids))
    todo = iter(jobs)
    pending: deque = deque()  # (job, future), in submission order
    finished = False
    try:
        while True:
            while len(pending) < AHEAD * workers:
                job = next(todo, _END)
                if job is _END:
                    break
                pending.append((job, executor.submit(fn, job)))
            if not pending:
                break
            if ordered:
                job, future = pending.popleft()
            else:
                done, _ = wait([f for _, f in pending], return_when=FIRST_COMPLETED)
                job, future = next((j, f) for j, f in pending if f in done)
                pending.remove((job, future))
            try:
                result = future.result()
            except BrokenProcessPool:
                running = [job] + [j for j, _ in pending]
                names = ", ".join(name_of(j) for j in running[:8]) + (" ..." if len(running) > 8 else "")
                raise WorkerDiedError(
                    f"a worker process died (killed, or out of memory?) while running {what}s {names}; "
                    f"stopped, and the other workers with it", running) from None
            yield result
        finished = True
    finally:
        for _, future in pending:
            future.cancel()
        if not finished:  # an error, or a consumer that stopped early: end the workers, do not wait for them
            _end_workers(pids)
        executor.shutdown(wait=True, cancel_futures=True)


_END = object()


def _end_workers(pids) -> None:
    """Terminate this pool's workers that are still alive (their pids came through `pids`)."""
    ours = set()
    while not pids.empty():
        ours.add(pids.get())
    for process in multiprocessing.active_children():  # live children only: no pid reused by another
        if process.pid in ours:
            process.terminate()
