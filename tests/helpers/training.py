"""Small shards with learnable captions for the training tests: each caption has its own colour."""

from __future__ import annotations

import numpy as np

from .models import MICRO_RES

CAPTIONS = ["chop a tree", "drink water", "fight a zombie", "collect a sapling", "place a table", "eat a cow"]
RESOLUTION = MICRO_RES
NUM_FRAMES = 4


def clip_for(caption_index: int, rng: np.random.Generator, frames: int = NUM_FRAMES) -> np.ndarray:
    """Frames whose colour says the caption (so a model can learn the pairing), plus noise."""
    h, w = RESOLUTION
    base = np.zeros((frames, h, w, 3), np.uint8)
    colour = np.array([(caption_index * 40) % 256, (caption_index * 90 + 30) % 256, (255 - caption_index * 35) % 256], np.uint8)
    base[:] = colour
    base[:, : h // 2, (caption_index * 8) % w : (caption_index * 8) % w + 8] = 255
    noise = rng.integers(0, 24, base.shape, dtype=np.uint8)
    return base + noise


def write_shards(folder, prefix: str, n: int, seed: int, captions=CAPTIONS) -> str:
    from mineclip.data.shards import ClipShardWriter

    rng = np.random.default_rng(seed)
    with ClipShardWriter(folder, prefix=prefix, encoding="raw", max_shard_samples=max(n // 2, 1)) as w:
        for i in range(n):
            c = i % len(captions)
            w.write(clip_for(c, rng), captions[c], {"i": i})
    return str(folder)


def data_args(shards: dict, batch_size: int = 4, epoch_length: int = 16, **extra) -> dict:
    return {
        "train_urls": shards["train"],
        "val_urls": shards["val"],
        "batch_size": batch_size,
        "num_workers": 0,
        "num_frames": NUM_FRAMES,
        "epoch_length": epoch_length,
        "resolution": list(RESOLUTION),
        "shuffle_buffer": 8,
        **extra,
    }
