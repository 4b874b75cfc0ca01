"""Process pools fail fast: a worker that dies stops the map at once with an error naming the jobs
that were running, and no worker outlives the map (an error, or a consumer that stops early)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import struct
import sys
import time

import pytest

from mineclip.pool import WorkerDiedError, pool_map


def _double_or_die(job: int) -> int:
    if job == 5:
        os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does
    time.sleep(0.05)
    return 2 * job


def _quick_then_slow(job: int) -> int:
    if job:
        time.sleep(60)
    return job


def _start_sending() -> None:
    """Write the start of a 1 MB result into this worker's result pipe, as a worker does the moment
    it is killed while sending one (the executor's `_process_worker` holds the queue)."""
    frame = sys._getframe()
    while frame.f_code.co_name != "_process_worker":
        frame = frame.f_back
    os.write(frame.f_locals["result_queue"]._writer.fileno(), struct.pack("!i", 1 << 20) + b"\x80" * 64)


def _killed_while_sending(job: int) -> int:
    if job == 3:
        _start_sending()
        os.kill(os.getpid(), signal.SIGKILL)  # the OOM killer, mid-send
    time.sleep(0.05)
    return job


def _quick_then_sending(job: int) -> int:
    if job:
        time.sleep(0.2)
        _start_sending()  # and still sending when the consumer stops
        time.sleep(60)
    return job


@pytest.mark.parametrize("ordered", [True, False])
def test_results_come_in_order_or_as_they_finish(ordered):
    out = list(pool_map(_double_or_die, range(5), workers=2, ordered=ordered))
    assert (out if ordered else sorted(out)) == [0, 2, 4, 6, 8]


@pytest.mark.parametrize("ordered", [True, False])
def test_a_worker_that_dies_stops_the_map_at_once_naming_the_running_jobs(ordered):
    t0 = time.monotonic()
    with pytest.raises(WorkerDiedError, match=r"a worker process died .* while running videos .*clip5\.mp4") as e:
        list(pool_map(_double_or_die, range(40), workers=2, name_of=lambda j: f"clip{j}.mp4", ordered=ordered,
                      what="video"))
    assert time.monotonic() - t0 < 20  # multiprocessing.Pool waited here forever
    assert 5 in e.value.jobs
    assert multiprocessing.active_children() == []  # the other worker ended with it


def _first_then_die(job: int) -> int:
    if job == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return job


def test_a_worker_that_dies_while_the_consumer_holds_a_result_is_named_when_the_next_job_is_submitted():
    """The pool breaks while the consumer works on a result; the map's next `submit` then raises
    BrokenProcessPool itself, before any future is awaited (what failed `mineclip data build` once)."""
    results = pool_map(_first_then_die, range(8), workers=1, name_of=lambda j: f"clip{j}.mp4", what="video")
    assert next(results) == 0
    time.sleep(3)  # job 1 kills its worker meanwhile; the executor calls itself broken
    with pytest.raises(WorkerDiedError, match=r"a worker process died .* while running videos .*clip1\.mp4") as e:
        next(results)
    assert 1 in e.value.jobs and multiprocessing.active_children() == []


def test_a_consumer_that_stops_early_ends_the_workers_without_waiting_for_their_jobs():
    t0 = time.monotonic()
    results = pool_map(_quick_then_slow, range(6), workers=2)
    assert next(results) == 0
    results.close()  # what an error in the loop over the results, or a `break`, does
    assert time.monotonic() - t0 < 20 and multiprocessing.active_children() == []


@pytest.mark.timeout(60)
@pytest.mark.parametrize("ordered", [True, False])
def test_a_worker_killed_while_sending_its_result_stops_the_map_instead_of_hanging(ordered):
    # the executor's manager thread waits for the rest of the message forever: it never calls the
    # pool broken, and `shutdown` never returns (without `_Workers`, this test hangs)
    t0 = time.monotonic()
    with pytest.raises(WorkerDiedError):
        list(pool_map(_killed_while_sending, range(40), workers=2, ordered=ordered))
    assert time.monotonic() - t0 < 30
    assert multiprocessing.active_children() == []


@pytest.mark.timeout(60)
def test_a_consumer_that_stops_while_a_worker_is_sending_a_result_is_not_stuck():
    # what `mineclip play clips` does once it has enough clips, with workers sending megabytes of video:
    # it ended them, one mid-send, and `shutdown` then waited for the rest of that message forever
    t0 = time.monotonic()
    results = pool_map(_quick_then_sending, range(6), workers=2)
    assert next(results) == 0
    time.sleep(1.0)  # the other worker has begun sending
    results.close()
    assert time.monotonic() - t0 < 30 and multiprocessing.active_children() == []
