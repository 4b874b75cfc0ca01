"""In-memory training clips for datasets that fit in RAM (the built-in crafter default).

Streaming from shards decodes every clip again each epoch; on a 2-core CPU that decoding costs as
much as the tiny model's training step. `CachedClips` decodes each clip once (the T frames the
model sees, at the model's resolution) and then serves shuffled batches from memory, with the same
temporally consistent random resized crop as the streaming reader.

`balance_by="meta.event"` draws clips with weight 1 / (clips sharing that meta value) ** `balance_power`:
0.5 (square-root balancing) shows a rare event, narrated in 1.5% of the clips, about three times
as often as uniform sampling would, and a common one less, without repeating the rare clips as
often as full balancing (power 1) would.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections import Counter
from typing import Iterator, Sequence

import torch
from torch.utils.data import DataLoader, IterableDataset

from mineclip.model.config import CLIP_FRAMES

from .augment import check_text_dropout_rare, drop_words, training_crop_box, word_dropout_rates
from .reader import ClipDataset, DecodeSettings, check_text_dropout, collate, meta_groups
from .video import crop_resize


def check_cache_settings(balance_by: str | None, balance_power: float, text_dropout_rare: float | None) -> None:
    """A clear error for a setting `CachedClips` cannot draw by, before any clip is decoded."""
    if balance_by is not None and not balance_by.startswith("meta."):
        raise ValueError(f"balance_by names a meta field as 'meta.<field>', got {balance_by!r}")
    if not balance_power >= 0:
        raise ValueError(f"balance_power must be >= 0, got {balance_power}")
    if text_dropout_rare is not None:
        check_text_dropout_rare(text_dropout_rare)


class NoClipsError(ValueError):
    """A training source (shards, a folder, a pattern) that yields no readable clip: a path that names
    nothing, or shards whose every clip failed to decode."""


class CachedClips(IterableDataset):
    """Batches drawn from clips decoded once; each epoch is `epoch_length` samples (per rank share)."""

    def __init__(
        self,
        sources: Sequence[str],
        batch_size: int = 32,
        num_frames: int = CLIP_FRAMES,
        resolution: Sequence[int] = (160, 256),
        epoch_length: int = 10_000,
        weights: Sequence[float] | None = None,
        crop_scale: Sequence[float] = (0.8, 1.0),
        seed: int = 0,
        progress: bool = True,
        workers: int = 0,
        balance_by: str | None = None,
        balance_power: float = 0.5,
        text_dropout: float = 0.0,
        text_dropout_rare: float | None = None,
        prefetch: int = 2,
    ):
        self.batch_size = int(batch_size)
        self.prefetch = int(prefetch)  # batches drawn ahead in a background thread (0: none)
        self.epoch_length = int(epoch_length)
        self.seed = int(seed)
        self.settings = DecodeSettings(num_frames=int(num_frames), resolution=(int(resolution[0]), int(resolution[1])),
                                       train=True, crop_scale=(float(crop_scale[0]), float(crop_scale[1])),
                                       text_dropout=check_text_dropout(text_dropout))
        weights = list(weights) if weights is not None else [1.0] * len(sources)
        if len(weights) != len(sources) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"need one non-negative weight per source ({len(sources)}), got {weights}")
        self.weights = [float(w) for w in weights]
        check_cache_settings(balance_by, balance_power, text_dropout_rare)  # before minutes of decoding, not after
        self.load_skipped: dict[str, int] = {}
        self.clips: list[list[dict]] = [self._load(src, progress, workers) for src in sources]
        empty = [str(s) for s, c in zip(sources, self.clips) if not c]
        if empty:
            raise NoClipsError(f"no readable clips in training source(s): {', '.join(empty)}")
        self.balance_by = balance_by
        # per source: cumulative sampling weights of its clips (None: uniform)
        self._cum = [None if balance_by is None else _balanced_cum_weights(c, balance_by[5:], balance_power)
                     for c in self.clips]
        # per word, its own chance of being dropped (None: text_dropout for every word)
        self.word_rates = (None if text_dropout_rare is None else word_dropout_rates(
            (c["text"] for clips in self.clips for c in clips), self.settings.text_dropout, text_dropout_rare))
        self._epoch = 0

    def _load(self, source: str, progress: bool, workers: int) -> list[dict]:
        """Decode every clip of a source once; `workers` > 0 decodes in that many processes (shards,
        or samples when shards are fewer, split between them), about workers x faster."""
        from tqdm import tqdm

        reader = ClipDataset(source, batch_size=64, num_frames=self.settings.num_frames,
                             resolution=self.settings.resolution, mode="exact", train=False, shuffle_buffer=0)
        batches = DataLoader(reader, batch_size=None, num_workers=workers) if workers > 0 else reader
        clips: list[dict] = []
        with tqdm(desc=f"caching clips of {source}", unit="clip", disable=not progress) as bar:
            for batch in batches:
                for video, text, meta in zip(batch["video"], batch["text"], batch["meta"]):
                    # [T, 3, H, W] as the model takes it: an uncropped draw is then served without a copy
                    clips.append({"video": video.clone(), "text": text, "meta": meta})
                for reason, n in batch["skipped"].items():
                    self.load_skipped[reason] = self.load_skipped.get(reason, 0) + n
                bar.update(len(batch["video"]))
        for reason, n in reader.counter.delta().items():  # skips after the last batch (in-process reading)
            self.load_skipped[reason] = self.load_skipped.get(reason, 0) + n
        return clips

    def __len__(self) -> int:
        return -(-self.epoch_length // (self.batch_size * _world_size()))

    def _sample(self, rng: random.Random) -> dict:
        i = rng.choices(range(len(self.clips)), self.weights)[0] if len(self.clips) > 1 else 0
        clips, cum = self.clips[i], self._cum[i]
        clip = clips[rng.randrange(len(clips)) if cum is None else bisect.bisect(cum, rng.random() * cum[-1])]
        video = clip["video"]
        h, w = video.shape[2:]
        box = training_crop_box(h, w, self.settings.resolution, self.settings.crop_scale, None, rng)
        if box != (0, 0, *self.settings.resolution):  # a crop: resized as the streaming reader does
            frames = crop_resize(video.permute(0, 2, 3, 1).numpy(), box, self.settings.resolution)
            video = torch.from_numpy(frames).permute(0, 3, 1, 2)  # a view, as decode_sample returns
        text = drop_words(clip["text"], self.settings.text_dropout, rng, self.word_rates)
        return {"video": video, "text": text, "meta": clip["meta"]}

    def __iter__(self) -> Iterator[dict]:
        rank = torch.distributed.get_rank() if torch.distributed.is_available() and torch.distributed.is_initialized() else 0
        rng = random.Random(hash((self.seed, self._epoch, rank)))
        self._epoch += 1
        batches = (collate([self._sample(rng) for _ in range(self.batch_size)], {}) for _ in range(len(self)))
        return prefetched(batches, self.prefetch) if self.prefetch else batches


def prefetched(items: Iterator, depth: int) -> Iterator:
    """`items`, made up to `depth` ahead in a background thread.

    The cached clips are served in the training process (a loader worker would hold its own copy of
    the epoch counter); drawing a batch (crops resized, stacked) takes ~37 ms of one core for the
    default's 32 x 8 frames, 5% of its 0.68 s step, and the resize and copies release the GIL, so a
    thread makes the next batch while the step runs. Order and content are those of `items` (one
    thread draws, in turn); an exception in it is raised here, where the batch would have come.
    Closing the iterator early (the epoch stopped) stops the thread."""
    import queue
    import threading

    buffer: queue.Queue = queue.Queue(maxsize=max(1, int(depth)))
    stop = threading.Event()
    end = object()

    def fill():
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        buffer.put((item, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            buffer.put((end, None))
        except BaseException as e:  # handed to the consumer
            buffer.put((end, e))

    thread = threading.Thread(target=fill, name="cached-clips-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item, error = buffer.get()
            if error is not None:
                raise error
            if item is end:
                return
            yield item
    finally:
        stop.set()
        thread.join(timeout=5)


def _balanced_cum_weights(clips: list[dict], field: str, power: float) -> list[float]:
    """Cumulative weights 1 / (clips of the same group) ** power (groups as in `meta_groups`)."""
    groups = meta_groups([c["meta"] for c in clips], field)
    counts = Counter(groups)
    return list(itertools.accumulate(counts[g] ** -power for g in groups))


def _world_size() -> int:
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_world_size()
    return 1
