"""MineDojo interop: import its task description YAML files into registry entries, and drive
`minedojo.make(...)` (gym 0.21 API, dict observation with "rgb" [3, H, W]) as a gymnasium env.

MineDojo needs Java and a Minecraft build, so it is optional; the adapter accepts any object with
its API (reset() -> obs, step(a) -> (obs, reward, done, info), action_space, close()).
"""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import yaml

from .spec import TaskSpec

FILES = ("programmatic_tasks.yaml", "creative_tasks.yaml", "tasks_specs.yaml")
CATEGORY_MAP = {"tech-tree": "techtree", "tech_tree": "techtree", "techtree": "techtree"}


def _find(path: Path, name: str) -> Path | None:
    if path.is_file():
        return path if path.name == name else None
    for cand in (path / name, path / "description_files" / name, path / "tasks" / "description_files" / name):
        if cand.is_file():
            return cand
    return None


def _template_regex(template: str) -> re.Pattern:
    parts = re.split(r"(\{[^}]+\})", template)
    return re.compile("^" + "".join("(.+?)" if p.startswith("{") else re.escape(p) for p in parts) + "$")


def import_minedojo(path: str | Path) -> dict[str, TaskSpec]:
    """Registry entries from MineDojo's description files (a folder holding them, or one file).

    programmatic_tasks.yaml: id -> {category, prompt, guidance}; creative_tasks.yaml:
    id -> {prompt, guidance, collection, source}; tasks_specs.yaml: templated ids -> spec
    (`__cls__`, target names, initial inventory, ...), attached to the matching programmatic ids.
    """
    path = Path(path)
    files = {name: _find(path, name) for name in FILES}
    if not any(files.values()):
        raise FileNotFoundError(f"no MineDojo description files ({', '.join(FILES)}) at {path}")
    specs_raw = yaml.safe_load(files["tasks_specs.yaml"].read_text()) if files["tasks_specs.yaml"] else {}
    templates = [(_template_regex(k), k, v) for k, v in (specs_raw or {}).items() if isinstance(v, dict)]
    out: dict[str, TaskSpec] = {}
    if files["programmatic_tasks.yaml"]:
        raw = yaml.safe_load(files["programmatic_tasks.yaml"].read_text()) or {}
        for task_id, d in raw.items():
            d = d or {}
            category = CATEGORY_MAP.get(d.get("category", ""), d.get("category", "unknown"))
            spec = next(({"template": k, **{kk: vv for kk, vv in v.items() if kk != "prompt"}}
                         for rx, k, v in templates if rx.match(str(task_id))), {})
            if not category or category == "unknown":
                category = CATEGORY_MAP.get(spec.get("__cls__", ""), spec.get("__cls__", "unknown"))
            out[f"minedojo/{task_id}"] = TaskSpec(
                id=f"minedojo/{task_id}", prompt=str(d.get("prompt", task_id)).strip(),
                guidance=str(d.get("guidance", "")).strip(), category=category, kind="programmatic",
                simulator="minedojo", source=str(files["programmatic_tasks.yaml"]),
                init={"minedojo_spec": spec} if spec else {}, tags=["minedojo"])
    if files["creative_tasks.yaml"]:
        raw = yaml.safe_load(files["creative_tasks.yaml"].read_text()) or {}
        for task_id, d in raw.items():
            d = d or {}
            tid = f"minedojo/{str(task_id).replace(':', '_')}"
            out[tid] = TaskSpec(
                id=tid, prompt=str(d.get("prompt", task_id)).strip(), guidance=str(d.get("guidance", "")).strip(),
                category="creative", kind="creative", simulator="minedojo",
                source=str(files["creative_tasks.yaml"]),
                tags=["minedojo", f"collection:{d.get('collection') or 'unknown'}"])
    return out


def write_suite(tasks: dict[str, TaskSpec], out: str | Path) -> Path:
    """Write imported tasks as a suite YAML file (add it to $MINECLIP_TASKS_PATH to register it)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    data = {}
    for tid, t in tasks.items():
        d = t.to_dict()
        d.pop("id", None)
        data[tid] = d
    out.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100))
    return out


def _to_gymnasium_space(space):
    """Convert a gym (0.21) space, or anything with the same attributes, to gymnasium."""
    name = type(space).__name__
    if isinstance(space, gym.Space):
        return space
    if name == "MultiDiscrete" or hasattr(space, "nvec"):
        return gym.spaces.MultiDiscrete(np.asarray(space.nvec))
    if name == "Discrete":
        return gym.spaces.Discrete(int(space.n))
    if name == "Box":
        return gym.spaces.Box(np.asarray(space.low), np.asarray(space.high), dtype=space.dtype)
    raise TypeError(f"cannot convert action space {space!r} to gymnasium")


class MineDojoEnv(gym.Env):
    """A MineDojo env (gym 0.21 API) as a gymnasium env with RGB HWC uint8 observations.

    Pass `env` (an object with MineDojo's API) or a `task_id` to build one with `minedojo.make`.
    The full MineDojo observation dict is returned in `info["obs"]`.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 20}

    def __init__(self, env=None, task_id: str | None = None, image_size=(160, 256), **make_kwargs):
        if env is None:
            try:
                import minedojo  # noqa: F401
            except ImportError as e:
                raise ImportError("MineDojo is not installed (pip install minedojo; it needs Java 8)") from e
            env = minedojo.make(task_id=task_id, image_size=tuple(image_size), **make_kwargs)
        self.env = env
        self.image_size = tuple(image_size)
        self.action_space = _to_gymnasium_space(env.action_space)
        self.observation_space = gym.spaces.Box(0, 255, (*self.image_size, 3), np.uint8)
        self.prompt = getattr(env, "task_prompt", None)
        self._frame = None

    def _rgb(self, obs) -> np.ndarray:
        rgb = np.asarray(obs["rgb"] if isinstance(obs, dict) else obs)
        if rgb.ndim != 3 or rgb.shape[0] != 3:
            raise ValueError(f"expected MineDojo obs['rgb'] uint8 [3, H, W], got {rgb.dtype} {list(rgb.shape)}")
        self._frame = np.ascontiguousarray(rgb.transpose(1, 2, 0)).astype(np.uint8)
        return self._frame

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None and hasattr(self.env, "seed"):
            self.env.seed(seed)
        obs = self.env.reset()
        return self._rgb(obs), {"obs": obs}

    def step(self, action):
        obs, reward, done, info = self.env.step(action)
        info = dict(info or {})
        truncated = bool(info.get("TimeLimit.truncated", False))
        info["obs"] = obs
        return self._rgb(obs), float(reward), bool(done) and not truncated, truncated, info

    def render(self):
        return self._frame

    def close(self):
        if hasattr(self.env, "close"):
            self.env.close()
