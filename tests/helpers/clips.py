"""Comparing clips that were encoded twice."""

from __future__ import annotations

import json

import numpy as np


def assert_same_clip(x: dict, y: dict) -> None:
    """Two shard samples of the same clip built twice: text and metadata exactly, the frames to a few
    levels. On a quiet machine the bytes are identical, but under CPU contention (a full CI run, or
    a busy loop beside it) libx264 sometimes encodes identical input frames with other
    per-macroblock QP offsets, so a clip decodes a few levels off (the frames before encoding were
    identical in every such case; `build_shards`' docstring). Any clip off by more fails."""
    from mineclip.data.shards import decode_clip

    assert (x["__key__"], x["txt"], json.loads(x["json"])) == (y["__key__"], y["txt"], json.loads(y["json"]))
    fx, fy = decode_clip(x).astype(int), decode_clip(y).astype(int)
    assert fx.shape == fy.shape and np.abs(fx - fy).max() <= 24 and np.abs(fx - fy).mean() < 1.0, x["__key__"]
