"""Small real sets to label: a recorded evaluation set, a task that only people can judge, and a
`mineclip label` server in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]

# A creative task without a success criterion or oracle: only people can label it.
PEOPLE_TASK = "decorate_with_stone"
PEOPLE_TASK_YAML = f"""
{PEOPLE_TASK}:
  prompt: decorate the meadow with stone
  category: creative
  kind: creative
  guidance: Place stone blocks on the grass, in any pattern you like.
  init: {{inventory: {{stone: 5}}}}
  goal: [place_stone]
  solution: [{{place_row: stone, count: 3}}]
  max_steps: 40
"""


def record_set(out: Path, tasks: list[str], per_label: int = 2) -> Path:
    """Record a small labelled evaluation set (held-out worlds); return its evalset.jsonl."""
    from mineclip.play.evalset import EvalsetSettings, record_evalset

    result = record_evalset(out, EvalsetSettings(tasks, per_label, worlds=2), workers=1, progress=False)
    return Path(result.labels)


@contextmanager
def people_task(folder: Path) -> Iterator[str]:
    """Register PEOPLE_TASK (through $MINECLIP_TASKS_PATH) for the duration of the block."""
    from mineclip.tasks import registry

    path = folder / "people_tasks.yaml"
    path.write_text(PEOPLE_TASK_YAML)
    old = os.environ.get(registry.ENV_PATH)
    os.environ[registry.ENV_PATH] = os.pathsep.join(p for p in (old, str(path)) if p)
    registry.reload()
    try:
        yield PEOPLE_TASK
    finally:
        if old is None:
            os.environ.pop(registry.ENV_PATH, None)
        else:
            os.environ[registry.ENV_PATH] = old
        registry.reload()


@contextmanager
def label_server(args: list[str], timeout: float = 120.0) -> Iterator[tuple[subprocess.Popen, str, list[str]]]:
    """`mineclip label ARGS --port 0` in a subprocess; yields (process, URL, lines printed) once it serves."""
    proc = subprocess.Popen([sys.executable, "-m", "mineclip.cli", "label", *args, "--port", "0", "--quiet"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url, seen, t0 = None, [], time.time()
    try:
        while url is None:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"mineclip label exited ({proc.wait()}) before serving:\n{''.join(seen)}")
            seen.append(line)
            m = re.search(r"open (http://\S+)", line)
            url = m.group(1) if m else None
            if time.time() - t0 > timeout:
                raise RuntimeError(f"mineclip label did not serve within {timeout}s:\n{''.join(seen)}")
        yield proc, url, seen
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()


def save_micro_artifact(out: Path) -> Path:
    """Export a micro model (random weights, seed 0) as an artifact into `out`."""
    from mineclip.model.artifact import save_artifact

    from helpers.models import make_micro

    save_artifact(make_micro(seed=0), out, source={"kind": "test"})
    return out
