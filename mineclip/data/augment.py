"""Augmentation of training clips: one random resized crop box for all frames of a clip, and word
dropout for their captions."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Iterable, Mapping

import numpy as np

from .video import crop_resize


def random_resized_crop_box(
    height: int, width: int, scale: tuple[float, float], ratio: tuple[float, float], rng: random.Random
) -> tuple[int, int, int, int]:
    """One (top, left, h, w) box as torchvision's RandomResizedCrop draws it (10 tries, then centre crop)."""
    area = height * width
    log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
    for _ in range(10):
        target = area * rng.uniform(*scale)
        aspect = math.exp(rng.uniform(*log_ratio))
        w = int(round(math.sqrt(target * aspect)))
        h = int(round(math.sqrt(target / aspect)))
        if 0 < w <= width and 0 < h <= height:
            return rng.randint(0, height - h), rng.randint(0, width - w), h, w
    in_ratio = width / height
    if in_ratio < ratio[0]:
        w, h = width, int(round(width / ratio[0]))
    elif in_ratio > ratio[1]:
        h, w = height, int(round(height * ratio[1]))
    else:
        w, h = width, height
    return (height - h) // 2, (width - w) // 2, h, w


def training_crop_box(height: int, width: int, size: tuple[int, int], scale: tuple[float, float],
                      ratio: tuple[float, float] | None, rng: random.Random) -> tuple[int, int, int, int]:
    """The crop box of a training clip of height x width frames resized to size (height, width);
    `ratio` defaults to the target's aspect x (3/4, 4/3)."""
    out_h, out_w = size
    ratio = ratio or (out_w / out_h * 3 / 4, out_w / out_h * 4 / 3)
    return random_resized_crop_box(height, width, scale, ratio, rng)


def random_resized_crop(frames: np.ndarray, size: tuple[int, int], scale: tuple[float, float],
                        ratio: tuple[float, float] | None, rng: random.Random) -> np.ndarray:
    """uint8 frames [T, H, W, 3] cropped to one random box (temporally consistent, as in the paper)
    and resized to size (height, width) (box: `training_crop_box`)."""
    box = training_crop_box(frames.shape[1], frames.shape[2], size, scale, ratio, rng)
    return crop_resize(frames, box, size)


def word_key(word: str) -> str:
    """A caption word as the dropout rates count it: lower case, punctuation off ("Cow," -> "cow")."""
    return re.sub(r"[^\w']", "", word.lower())


def check_text_dropout_rare(rare: float) -> float:
    if not 0.0 < float(rare) < 1.0:
        raise ValueError(f"text_dropout_rare is a fraction of the captions, in (0, 1), got {rare}")
    return float(rare)


def word_dropout_rates(captions: Iterable[str], rate: float, rare: float) -> dict[str, float]:
    """Per word (`word_key`), the chance that `drop_words` drops it: word2vec's subsampling of
    frequent words (Mikolov et al., 2013) capped at `rate`, min(rate, 1 - sqrt(rare / f)) with f the
    fraction of the captions holding the word. A word in fewer than `rare` of the captions is never
    dropped, so the rare words that tell events apart ("lava", "hunt", "combat") stay in every caption
    that has them, and the common ones ("cow", "found", "the") are dropped at about `rate`."""
    rare = check_text_dropout_rare(rare)
    counts: Counter = Counter()
    n = 0
    for caption in captions:
        counts.update({word_key(w) for w in caption.split()})
        n += 1
    return {k: min(rate, max(0.0, 1.0 - math.sqrt(rare * n / c))) for k, c in counts.items()}


def drop_words(text: str, p: float, rng: random.Random, rates: Mapping[str, float] | None = None) -> str:
    """The caption with each word dropped with probability p (at least one word kept). A text
    encoder trained from scratch on templated narration leans on the commonest word of a caption
    ("cow" in "hunt a cow for food, done"); without it now and then, the rarer words that tell
    events apart ("hunt", "combat") must carry the caption too. With `rates` (`word_dropout_rates`),
    each word is dropped with its own chance instead (0 for a word not in them)."""
    words = text.split()
    if not p or len(words) < 2:
        return text
    if rates is None:
        kept = [w for w in words if rng.random() >= p]
    else:
        kept = [w for w in words if rng.random() >= rates.get(word_key(w), 0.0)]
    return " ".join(kept) if kept else rng.choice(words)
