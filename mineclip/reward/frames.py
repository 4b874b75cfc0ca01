"""The one way every reward wrapper gets RGB frames out of observations (gymnasium, vector or
stable-baselines3 alike; no dependency of theirs is needed here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

FRAME_KEYS = ("rgb", "pov", "image", "pixels", "frame")


def extract_frame(obs: Any, frame_key: str | None = None) -> np.ndarray | None:
    """The RGB frame(s) of an observation (one env's, or a vector env's batch): the array itself, or
    obs[frame_key] / a usual key of a dict observation (MineDojo's "rgb" is [3, H, W]; both layouts
    are accepted downstream); None when there is none."""
    if frame_key is not None:
        return np.asarray(obs[frame_key])
    if isinstance(obs, dict):
        for k in FRAME_KEYS:
            if k in obs:
                return np.asarray(obs[k])
        return None
    obs = np.asarray(obs)
    if obs.dtype == np.uint8 and obs.ndim >= 3 and 3 in (obs.shape[-1], obs.shape[-3]):
        return obs
    return None


def frames_of(obs: Any, frame_key: str | None = None, frame_fn: Callable[[Any], np.ndarray] | None = None,
              render: Callable[[], Any] | None = None) -> np.ndarray:
    """The uint8 RGB frame(s) of an observation: `frame_fn(obs)`, else `extract_frame`, else (for one
    env) `render()`; a ValueError that says what came when there is none."""
    frames = frame_fn(obs) if frame_fn is not None else extract_frame(obs, frame_key)
    if frames is None and render is not None:
        frames = render()
    if frames is None:
        got = (f"a dict with keys {sorted(map(str, obs))}" if isinstance(obs, dict) else
               f"{getattr(obs, 'dtype', type(obs).__name__)} {list(np.shape(obs))}")
        raise ValueError(f"expected uint8 RGB frames [H, W, 3] or [3, H, W] (or a dict observation holding them "
                         f"under one of {FRAME_KEYS}), got {got}; pass frame_key= or frame_fn="
                         + (", or make the env with render_mode='rgb_array'" if render is not None else ""))
    return np.asarray(frames)
