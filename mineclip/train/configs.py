"""Training configs: found by name in the package (`mineclip/configs/`) or by path, and composed.

A config is a LightningCLI YAML file. It may start with `defaults:`, a list of other configs (by
name, relative to its folder or the packaged root, or by path) that it builds on, as in the
Lightning-Hydra template: they are merged in order, then the file itself on top. Merging is
recursive for mappings; lists and everything else are replaced; a mapping with another
`class_path` replaces the one before instead of merging into it.

    load_config("tiny")                          # mineclip/configs/tiny.yaml, defaults expanded
    load_config(["tiny", "my_changes.yaml"])     # composed left to right, like several --config
    list_configs()                               # the packaged names
"""

from __future__ import annotations

import copy
import os
from importlib import resources
from pathlib import Path

import yaml

DEFAULTS_KEY = "defaults"


class ConfigError(ValueError):
    """A config that cannot be found, read or composed."""


def config_root() -> Path:
    """The folder of the packaged configs."""
    return Path(str(resources.files("mineclip").joinpath("configs")))


def list_configs(folder: str = "") -> list[str]:
    """Names of the packaged configs in a folder of the root ('' = the top-level training configs,
    'pipeline' = the pipeline presets, 'trainer', 'data' = pieces)."""
    return sorted(p.stem for p in (config_root() / folder).glob("*.yaml"))


def find_config(name: str | os.PathLike, folder: Path | None = None) -> Path:
    """A config file from a path, or a name under `folder` or the packaged root (`.yaml` optional)."""
    path = Path(name)
    if path.is_file():
        return path
    for base in ([folder] if folder else []) + [config_root()]:
        for cand in (base / path, base / path.with_name(path.name + ".yaml")):
            if cand.is_file():
                return cand
    raise ConfigError(f"config {str(name)!r} not found: neither a file nor a packaged config "
                      f"({', '.join(list_configs())}, pipeline/{{{','.join(list_configs('pipeline'))}}})")


def merge(base: dict, new: dict) -> dict:
    """`new` merged onto a copy of `base` (see the module docstring)."""
    out = copy.deepcopy(base)
    for k, v in new.items():
        old = out.get(k)
        same_class = not (isinstance(v, dict) and "class_path" in v and isinstance(old, dict)
                          and old.get("class_path") not in (None, v["class_path"]))
        if isinstance(old, dict) and isinstance(v, dict) and same_class:
            out[k] = merge(old, v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _read(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{path}: cannot read the config: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of options, got {type(data).__name__}")
    return data


def expand(config: dict, folder: Path | None = None, seen: tuple[Path, ...] = ()) -> dict:
    """A config mapping with its `defaults:` (names resolved against `folder`) merged in under it."""
    config = dict(config)
    names = config.pop(DEFAULTS_KEY, None) or []
    if isinstance(names, str):
        names = [names]
    out: dict = {}
    for name in names:
        path = find_config(name, folder).resolve()
        if path in seen:
            raise ConfigError(f"config {path} includes itself through its defaults: {' -> '.join(map(str, seen))}")
        out = merge(out, expand(_read(path), path.parent, seen + (path,)))
    return merge(out, config)


def load_config(names: str | os.PathLike | dict | list | tuple) -> dict:
    """The composed mapping of one config or of several, left to right; a config may also be given
    as a mapping (its `defaults:` are names of packaged configs or paths)."""
    if isinstance(names, (str, os.PathLike, dict)):
        names = [names]
    out: dict = {}
    for name in names:
        if isinstance(name, dict):
            out = merge(out, expand(name))
            continue
        path = find_config(name).resolve()
        out = merge(out, expand(_read(path), path.parent, (path,)))
    return out


def needs_composing(value: str) -> bool:
    """Whether a `--config` value is a packaged name or a file with `defaults:` (LightningCLI reads
    other files itself)."""
    path = Path(value)
    if not path.is_file():
        return True
    return DEFAULTS_KEY in _read(path)
