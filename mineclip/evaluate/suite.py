"""What the judge asks of a task suite, plugged in by name.

Labelled trajectories name a task by id or by prompt; judging them needs, besides the model, a few
answers only a task suite has: the prompt of a task id, the negative prompts a policy names
(`suite`, `scene`, ...), and, for the report's difficulty section, each task's difficulty band.
The judge imports no suite: `EvalSettings.suite` names one as "module:attribute"
(default: the crafter suite's, `mineclip.tasks.judging:SUITE`), imported when an evaluation
starts; without it (an install without `mineclip[sim]`, or `suite=None`) trajectories keep their
own prompts, the `suite` negatives are the labels' other prompts and the report has no bands.

A file of prompts (one per line) is a negatives policy of its own and needs no suite.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

log = logging.getLogger(__name__)

DEFAULT_SUITE = "mineclip.tasks.judging:SUITE"


@runtime_checkable
class TaskSuite(Protocol):
    """A task suite as the judge uses it.

    `policies`: the named negatives policies; `prompt(task_id)`: the task's prompt (KeyError for an
    unknown id); `negative_pool(policy)`: (every prompt the policy may use as a negative, one line
    saying what they are), ValueError for a policy it does not know; `difficulty()`: (band names,
    score names, {task: {score: value}}, {task: band}) of the tasks it scores, or None."""

    policies: Sequence[str]

    def prompt(self, task_id: str) -> str: ...

    def negative_pool(self, policy: str) -> tuple[list[str], str]: ...

    def difficulty(self) -> tuple[Sequence[str], Sequence[str], Mapping, Mapping] | None: ...


def load_suite(spec: str | None = DEFAULT_SUITE) -> TaskSuite | None:
    """The suite `spec` names, or None (with a warning) when it cannot be imported; `spec` None: none."""
    if not spec:
        return None
    module, _, attr = str(spec).partition(":")
    try:
        suite = getattr(importlib.import_module(module), attr)
    except Exception as e:  # a missing extra, or a broken suite file on $MINECLIP_TASKS_PATH
        log.warning("task suite %s unavailable (%s): trajectories keep their own prompts", spec, e)
        return None
    if not isinstance(suite, TaskSuite):
        raise ValueError(f"{spec} is not a task suite (mineclip.evaluate.suite.TaskSuite)")
    return suite


def read_prompts(path: str | Path) -> list[str]:
    """The prompts of a text file, one per line (blank lines skipped, repeats once); ValueError when none."""
    path = Path(path)
    pool = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not pool:
        raise ValueError(f"{path}: no prompts in the negatives file")
    return list(dict.fromkeys(pool))
