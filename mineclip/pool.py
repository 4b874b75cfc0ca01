"""Worker processes that fail fast: `pool_map` runs a function over jobs in a process pool and, when a
worker dies (the OOM killer, a crash in native code, a `kill`), stops at once with a
`WorkerDiedError` that names the jobs that were running, instead of waiting forever on a result
that will not come (what `multiprocessing.Pool.imap` does).

Built on `concurrent.futures.ProcessPoolExecutor`, which notices a dead worker and ends the others.
Workers also exit when the process that started them is gone (`mineclip.host.die_with_parent`), and
a consumer that stops early (an error, enough results) ends them rather than waiting for their jobs:
no pool leaves an orphan behind.

A worker that dies while it is *sending* a result (a result of megabytes takes a while through the
pipe; the consumer stopping early ends workers at whatever they are doing) leaves part of a message in
the executor's result pipe, and the executor's manager thread then waits for the rest of it forever:
it neither sees the death nor lets `shutdown` return (`mineclip pipeline` hung so in its clips stage,
which stops the workers once it has enough clips). `_Workers` watches for this: once every worker is
gone, it closes this process's end of the pipe's writing side, the last one open, and the manager
reads an end of file instead, calls the pool broken and cleans up.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator

from mineclip.host import die_with_parent

AHEAD = 2  # jobs submitted per worker ahead of the results taken (bounded memory, ordered output)
GRACE = 2.0  # seconds a dead worker's last result may still be arriving before the pool is called broken
POLL = 0.5  # seconds between checks on the workers while waiting for a result


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
    watch = _Workers(executor, pids)
    todo = iter(jobs)
    pending: deque = deque()  # (job, future), in submission order
    finished = False

    def died(running: list) -> WorkerDiedError:
        names = ", ".join(name_of(j) for j in running[:8]) + (" ..." if len(running) > 8 else "")
        return WorkerDiedError(f"a worker process died (killed, or out of memory?) while running {what}s {names}; "
                               f"stopped, and the other workers with it", running)

    try:
        while True:
            while len(pending) < AHEAD * workers:
                job = next(todo, _END)
                if job is _END:
                    break
                try:  # a worker that died since the last result breaks the pool: submitting then raises
                    pending.append((job, executor.submit(fn, job)))
                except BrokenProcessPool:
                    raise died([j for j, _ in pending] + [job]) from None
            if not pending:
                break
            if ordered:
                job, future = pending.popleft()
                watch.wait([future])
            else:
                done = watch.wait([f for _, f in pending])
                job, future = next((j, f) for j, f in pending if f in done)
                pending.remove((job, future))
            try:
                result = future.result()
            except BrokenProcessPool:
                raise died([job] + [j for j, _ in pending]) from None
            yield result
        finished = True
    finally:
        for _, future in pending:
            future.cancel()
        if not finished:  # an error, or a consumer that stopped early: end the workers, do not wait for them
            watch.end()
        executor.shutdown(wait=True, cancel_futures=True)


class _Workers:
    """The pool's worker processes, by the pids they announce (`_start_worker`), and what to do when
    one is gone while a result is awaited (see the module)."""

    def __init__(self, executor: ProcessPoolExecutor, pids):
        self.executor, self.pids, self.ours = executor, pids, set()

    def _alive(self) -> dict:
        while not self.pids.empty():
            self.ours.add(self.pids.get())
        # live children only (it reaps the dead ones): no pid reused by another process
        return {p.pid: p for p in multiprocessing.active_children() if p.pid in self.ours}

    def wait(self, futures: list) -> set:
        """The first of `futures` done, as `concurrent.futures.wait(FIRST_COMPLETED)`; if a worker has
        been dead for GRACE seconds and none is done (the executor did not notice: it died sending a
        result), the pool is ended and the futures fail with BrokenProcessPool."""
        dead_since = None
        while True:
            done, _ = wait(futures, timeout=POLL, return_when=FIRST_COMPLETED)
            if done:
                return done
            if len(self._alive()) < len(self.ours):
                dead_since = dead_since or time.monotonic()
                if time.monotonic() - dead_since > GRACE:
                    self.end()
                    done, _ = wait(futures, timeout=10 * GRACE, return_when=FIRST_COMPLETED)
                    if not done:  # the manager thread did not call the pool broken: say so ourselves
                        for f in futures:
                            if not f.done():
                                f.set_exception(BrokenProcessPool("a worker died while sending a result"))
                        return set(futures)
                    return done

    def end(self) -> None:
        """Terminate the workers still alive and reap them; then, if the executor's manager thread is
        still reading (the rest of a message a dead worker was sending), close this process's end of
        the result pipe's writing side, the last one open, so that it reads an end of file."""
        alive = self._alive()
        for process in alive.values():
            process.terminate()
        for process in alive.values():
            process.join(GRACE)
            if process.is_alive():
                process.kill()
                process.join()
        manager = getattr(self.executor, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(GRACE)
            results = getattr(self.executor, "_result_queue", None)
            if manager.is_alive() and results is not None:
                results._writer.close()


_END = object()
