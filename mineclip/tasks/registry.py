"""The task registry: every `suite/*.yaml` in the package, plus files named in $MINECLIP_TASKS_PATH.

A YAML file maps task ids to TaskSpec fields. An entry with `compose:` builds an MCU molecule
from atom tasks (`mineclip.tasks.algebra`): `and: [ids]`, `or: [ids]`, `of: id` with `naive`,
`when`, `where` and `how` constraints.

Two catalogues share the registry: the hand-written `suite` (what the built-in pipeline trains on,
the default negatives, every default task list) and the `generated` one (`suite/generated.yaml`,
made by `mineclip tasks generate` from templates, `mineclip.tasks.generator`). Every function here
returns the suite's tasks unless asked for another catalogue; `get_task` finds a task of either.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from .algebra import compose
from .spec import CATALOGUES, TaskSpec

ENV_PATH = "MINECLIP_TASKS_PATH"


def _suite_files() -> list:
    files = sorted((p for p in resources.files("mineclip.tasks").joinpath("suite").iterdir()
                    if p.name.endswith(".yaml")), key=lambda p: p.name)
    extra = [Path(p) for p in os.environ.get(ENV_PATH, "").split(os.pathsep) if p]
    return files + extra


def load_yaml_tasks(text: str, source: str = "", known: dict | None = None) -> dict[str, TaskSpec]:
    """Parse one suite file's text into TaskSpecs (compositions may refer to `known` tasks)."""
    return _build([(_parse(text, source), source)], known)


class _SuiteLoader(yaml.SafeLoader):
    """YAML 1.2's booleans: only true/false. YAML 1.1 (PyYAML's default) reads `on`, `off`, `yes`,
    `no` as booleans too, so a placement's `on: sand` became {True: "sand"} and was silently ignored."""


_SuiteLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_SuiteLoader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                   list("tTfF"))


def _parse(text: str, source: str) -> dict:
    raw = yaml.load(text, Loader=_SuiteLoader) or {}
    if not isinstance(raw, dict):
        raise ValueError(f"{source}: expected a mapping of task id -> fields, got {type(raw).__name__}")
    return raw


def _build(files: list[tuple[dict, str]], known: dict | None = None) -> dict[str, TaskSpec]:
    """Plain tasks first, then compositions (which may refer to tasks of any file)."""
    out: dict[str, TaskSpec] = {}
    known = dict(known or {})
    for compositions in (False, True):
        for raw, source in files:
            for task_id, fields in raw.items():
                fields = dict(fields)
                if ("compose" in fields) != compositions:
                    continue
                if str(task_id) in out:
                    raise ValueError(f"{source}: task id {task_id!r} defined twice")
                if compositions:
                    spec = compose(str(task_id), fields.pop("compose"), {**known, **out}, **fields)
                else:
                    fields.setdefault("source", source)
                    spec = TaskSpec.from_dict(str(task_id), fields)
                out[spec.id] = spec
    return out


@lru_cache(maxsize=1)
def _registry() -> dict[str, TaskSpec]:
    files = [(_parse(f.read_text(), str(getattr(f, "name", f))), str(getattr(f, "name", f))) for f in _suite_files()]
    return _build(files)


def reload() -> None:
    """Forget the loaded registry (after changing $MINECLIP_TASKS_PATH)."""
    _registry.cache_clear()


def get_task(task_id: str) -> TaskSpec:
    """The registered task with this id."""
    tasks = _registry()
    if task_id not in tasks:
        close = [t for t in tasks if task_id.split("_")[0] in t][:8]
        raise KeyError(f"unknown task {task_id!r}; {len(tasks)} tasks registered, e.g. {close or sorted(tasks)[:8]}")
    return tasks[task_id]


def _check_catalogue(catalogue: str | None) -> None:
    if catalogue not in (*CATALOGUES, "all", None):
        raise ValueError(f"expected catalogue in {(*CATALOGUES, 'all')}, got {catalogue!r}")


def list_tasks(category: str | None = None, kind: str | None = None, tag: str | None = None,
               simulator: str | None = "crafter", catalogue: str | None = "suite") -> list[TaskSpec]:
    """Registered tasks, optionally filtered by category, kind, tag and simulator, of one catalogue
    (`suite` by default, `generated`, or `all`/None)."""
    _check_catalogue(catalogue)
    out = []
    for t in _registry().values():
        if catalogue not in ("all", None) and t.catalogue != catalogue:
            continue
        if category and t.category != category:
            continue
        if kind and t.kind != kind:
            continue
        if tag and tag not in t.tags:
            continue
        if simulator and t.simulator != simulator:
            continue
        out.append(t)
    return out


def select_tasks(spec: str | None = None, category: str | None = None) -> list[str]:
    """Task ids from a comma-separated list (each checked), or every crafter task (of a category)
    for None or "all"."""
    if spec and spec != "all":
        ids = [t.strip() for t in spec.split(",") if t.strip()]
        for t in ids:
            get_task(t)
        return ids
    return [t.id for t in list_tasks(category=category)]


def all_prompts(simulator: str | None = None, catalogue: str | None = "suite") -> list[str]:
    """Every distinct task prompt of a catalogue (the suite's: default negatives for the reward), in
    registry order."""
    _check_catalogue(catalogue)
    seen: dict[str, None] = {}
    for t in _registry().values():
        if catalogue not in ("all", None) and t.catalogue != catalogue:
            continue
        if simulator is None or t.simulator == simulator:
            seen.setdefault(t.prompt, None)
    return list(seen)
