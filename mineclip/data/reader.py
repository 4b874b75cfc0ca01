"""Read clip shards into training batches.

Two modes:
- resampled (training): every worker draws shards at random with replacement from each source,
  mixes the sources by weight, and stops after an explicit epoch length;
- exact (evaluation): one pass in which every sample is seen exactly once across all ranks and
  workers (shards split by node and worker; with fewer shards than readers, samples are split).

Batches are dicts: video uint8 [B, T, 3, H, W], tokens long [B, 77], text list[str], meta
list[ClipMeta] (`mineclip.data.clip_meta`), skipped dict[str, int] (bad samples this worker dropped since its previous batch).
"""

from __future__ import annotations

import json
import math
import random
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

from mineclip.data.augment import drop_words, random_resized_crop
from mineclip.data.clip_meta import ClipMeta
from mineclip.data.shards import TooFewFrames, decode_clip
from mineclip.data.video import VideoDecodeError, resize_frames
from mineclip.extras import require
from mineclip.model.config import CLIP_FRAMES

require("webdataset", "braceexpand", feature="reading clip shards (mineclip.data.reader)")

MAX_FRAMES = 32
SKIP_REASONS = (
    "shard_error",  # shard could not be opened or read (truncated tar, missing file, failed pipe/http)
    "missing_member",  # sample without a clip or without a caption
    "undecodable_video",  # truncated or corrupt mp4 / npy
    "too_few_frames",  # the clip holds fewer frames than asked
    "empty_text",
    "non_utf8_text",
)


class BadSample(Exception):
    """A sample that must be skipped; `reason` is one of SKIP_REASONS."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


def expand_urls(urls: str | Sequence[str]) -> list[str]:
    """Shard URLs from a brace pattern ('a-{000..009}.tar'), '::'-joined patterns, a shard folder with a
    manifest.json, or a list of any of these. Local paths, pipe: and http(s): URLs pass through."""
    import braceexpand

    if isinstance(urls, (str, Path)):
        urls = str(urls).split("::")
    out: list[str] = []
    for url in urls:
        url = str(url)
        path = Path(url)
        if "://" not in url and not url.startswith("pipe:") and path.is_dir():
            from mineclip.data.shards import manifest_urls

            url = manifest_urls(path)
        out.extend(braceexpand.braceexpand(url))
    if not out:
        raise ValueError(f"no shard URLs in {urls!r}")
    return out


def missing_local_shards(urls: Sequence[str]) -> list[str]:
    """The local paths among `urls` (not pipe:, not scheme://) that name no file: a typo, not a bad shard."""
    return [u for u in urls if "://" not in u and not u.startswith("pipe:") and not Path(u).is_file()]


class SkipCounter:
    """Counts skipped samples by reason in the process that reads them, and warns once per bad shard."""

    def __init__(self):
        self.counts: Counter = Counter()
        self._reported: Counter = Counter()
        self._warned: set[str] = set()

    def add(self, reason: str, n: int = 1) -> None:
        self.counts[reason] += n

    def handler(self, exn: Exception) -> bool:
        """WebDataset exception handler: count, warn with the shard URL (once per URL), continue."""
        self.add("shard_error")
        url = next((a for a in reversed(exn.args) if isinstance(a, str) and a != str(exn.args[0])), None)
        url = url or "<unknown shard>"
        if url not in self._warned:
            self._warned.add(url)
            warnings.warn(f"skipping unreadable shard {url}: {type(exn).__name__}: {exn}", stacklevel=2)
        return True

    def delta(self) -> dict[str, int]:
        """Counts added since the previous call."""
        out = {k: v - self._reported[k] for k, v in self.counts.items() if v - self._reported[k]}
        self._reported = Counter(self.counts)
        return out


def shard_samples(urls: Iterator[str], counter: SkipCounter) -> Iterator[dict]:
    """Raw samples ({__key__, __url__, mp4|npy, txt, json}) of the shards in order."""
    from webdataset.tariterators import group_by_keys, tar_file_expander, url_opener

    streams = url_opener(({"url": u} for u in urls), handler=counter.handler)
    files = tar_file_expander(streams, handler=counter.handler)
    return group_by_keys(files, handler=counter.handler)


def _resampled_shards(urls: list[str], rng: random.Random, counter: SkipCounter) -> Iterator[dict]:
    """Samples of shards drawn with replacement forever; fails if the shards yield nothing."""
    barren = 0
    while True:
        got = False
        for sample in shard_samples(iter([rng.choice(urls)]), counter):
            got = True
            yield sample
        barren = 0 if got else barren + 1
        if barren > 20 + 10 * len(urls):
            raise RuntimeError(f"no readable samples after {barren} shard draws from {urls[:3]}{'...' if len(urls) > 3 else ''}")


def _mix(sources: list[Iterator[dict]], weights: list[float], rng: random.Random) -> Iterator[dict]:
    cum = np.cumsum(np.asarray(weights, dtype=float) / float(sum(weights)))
    while True:
        i = min(int(np.searchsorted(cum, rng.random(), side="right")), len(sources) - 1)
        yield next(sources[i])


def _shuffle(samples: Iterator[dict], bufsize: int, rng: random.Random) -> Iterator[dict]:
    if bufsize <= 1:
        yield from samples
        return
    buf: list[dict] = []
    for sample in samples:
        if len(buf) < bufsize:
            buf.append(sample)
            if len(buf) < min(bufsize, 64):  # start yielding early; the buffer fills as we go
                continue
        else:
            j = rng.randrange(len(buf))
            buf[j], sample = sample, buf[j]
            yield sample
            continue
        j = rng.randrange(len(buf))
        buf[j], buf[-1] = buf[-1], buf[j]
        yield buf.pop()
    rng.shuffle(buf)
    yield from buf


@dataclass
class DecodeSettings:
    num_frames: int = CLIP_FRAMES
    resolution: tuple[int, int] = (160, 256)
    train: bool = True  # random resized crop (one box for all frames) vs plain resize
    crop_scale: tuple[float, float] = (0.8, 1.0)
    crop_ratio: tuple[float, float] | None = None  # None: target aspect x (3/4, 4/3) (see augment.py)
    aspect: str = "crop"  # eval resize of clips whose size differs from resolution
    text_dropout: float = 0.0  # training only: the chance that each caption word is dropped (augment.drop_words)


def decode_sample(sample: dict, settings: DecodeSettings, rng: random.Random) -> dict:
    """Raw WebDataset sample -> {video uint8 [T, 3, H, W], text, meta}; raises BadSample."""
    clip_ext = "mp4" if "mp4" in sample else "npy" if "npy" in sample else None
    if clip_ext is None or "txt" not in sample:
        raise BadSample("missing_member", f"{sample.get('__key__')} has {sorted(k for k in sample if not k.startswith('__'))}")
    try:
        text = sample["txt"].decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadSample("non_utf8_text", str(e)) from None
    text = " ".join(text.split())
    if not text:
        raise BadSample("empty_text", str(sample.get("__key__")))
    meta: dict = {}
    if "json" in sample:
        try:
            meta = json.loads(sample["json"].decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            meta = {}
    meta = dict(meta) if isinstance(meta, dict) else {}  # metadata that is not a JSON object is none
    meta.update(key=sample.get("__key__"), url=sample.get("__url__"))
    try:
        frames = decode_clip(sample, settings.num_frames, allow_fewer=False)
    except TooFewFrames as e:
        raise BadSample("too_few_frames", str(e)) from None
    except VideoDecodeError as e:
        raise BadSample("undecodable_video", str(e)) from None
    frames = np.ascontiguousarray(frames, dtype=np.uint8)
    out_h, out_w = settings.resolution
    if settings.train:
        frames = random_resized_crop(frames, (out_h, out_w), settings.crop_scale, settings.crop_ratio, rng)
        text = drop_words(text, settings.text_dropout, rng)
    else:
        frames = resize_frames(frames, (out_h, out_w), settings.aspect)
    # [T, 3, H, W] as a view of the [T, H, W, 3] frames: the model's float conversion transposes
    # them in the copy it makes anyway (a transposing copy here cost as much as decoding the clip)
    video = torch.from_numpy(frames).permute(0, 3, 1, 2)
    return {"video": video, "text": text, "meta": ClipMeta.from_dict(meta)}


def check_text_dropout(p: float) -> float:
    if not 0.0 <= float(p) < 1.0:
        raise ValueError(f"text_dropout is the chance of dropping each caption word, in [0, 1), got {p}")
    return float(p)


def resolve_tokenizer():
    """mineclip.model's tokenizer when present, else open_clip's (same ids for plain text)."""
    try:
        from mineclip.model.tokenizer import tokenize as _tokenize
    except ImportError:
        from open_clip import tokenize as _tokenize
    return _tokenize


def tokenize(texts: list[str]) -> torch.Tensor:
    """CLIP tokens [N, 77]."""
    return resolve_tokenizer()(texts)


def meta_groups(metas: Sequence[ClipMeta], field: str) -> list[str]:
    """Each clip's metadata field `field` as a group name: clips with the same value form a group (a
    null value, e.g. a window without an event, is one group); a clip without the field is its own."""
    metas = [ClipMeta.from_dict(m) for m in metas]
    return [str(m.value(field)) if m.has(field) else f"\0missing{i}" for i, m in enumerate(metas)]


def stack_videos(videos: list[torch.Tensor]) -> torch.Tensor:
    """The clips [T, 3, H, W] as one batch [B, T, 3, H, W], laid out as the first clip is (a view of
    [T, H, W, 3] frames stays one: the model's float conversion transposes it for free). In a loader
    worker the batch is built in shared memory, so passing it to the training process copies nothing
    (as torch's default_collate does)."""
    from torch.utils.data import get_worker_info

    first = videos[0]
    frames_last = not first.is_contiguous() and first.permute(0, 2, 3, 1).is_contiguous()
    shape = (len(videos), *(first.permute(0, 2, 3, 1).shape if frames_last else first.shape))
    if get_worker_info() is not None:
        storage = torch.UntypedStorage._new_shared(math.prod(shape) * first.element_size())
        out = torch.empty(0, dtype=first.dtype).set_(storage).view(shape)
    else:
        out = torch.empty(shape, dtype=first.dtype)
    for row, video in zip(out, videos):
        row.copy_(video.permute(0, 2, 3, 1) if frames_last else video)
    return out.permute(0, 1, 4, 2, 3) if frames_last else out


PYTHON_FIELDS = frozenset({"text", "meta", "skipped"})  # the fields of `collate`'s batches that hold no tensors


def collate(samples: list[dict], skipped: dict[str, int]) -> dict:
    texts = [s["text"] for s in samples]
    return {
        "video": stack_videos([s["video"] for s in samples]),
        "tokens": tokenize(texts),
        "text": texts,
        "meta": [s["meta"] for s in samples],
        "skipped": skipped,
    }


def _worker_info() -> tuple[int, int, int, int]:
    from webdataset.utils import pytorch_worker_info

    return pytorch_worker_info()


class ClipDataset(IterableDataset):
    """Batches of clips from one or more shard sources (see module docstring). Use with batch_size=None."""

    def __init__(
        self,
        sources: str | Sequence[str],
        batch_size: int = 32,
        num_frames: int = CLIP_FRAMES,
        resolution: Sequence[int] = (160, 256),
        mode: str = "resampled",
        weights: Sequence[float] | None = None,
        epoch_length: int | None = None,
        shuffle_buffer: int | None = None,
        train: bool | None = None,
        crop_scale: Sequence[float] = (0.8, 1.0),
        seed: int = 0,
        drop_last: bool | None = None,
        text_dropout: float = 0.0,
    ):
        if mode not in ("resampled", "exact"):
            raise ValueError(f"mode must be 'resampled' or 'exact', got {mode!r}")
        if not 1 <= num_frames <= MAX_FRAMES:
            raise ValueError(f"num_frames must be 1..{MAX_FRAMES}, got {num_frames}")
        if isinstance(sources, (str, Path)):
            sources = [str(sources)]
        self.sources = [expand_urls(s) for s in sources]
        if weights is None:
            weights = [1.0] * len(self.sources)
        if len(weights) != len(self.sources) or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"need one non-negative weight per source ({len(self.sources)}), got {list(weights)}")
        if mode == "resampled" and not epoch_length:
            raise ValueError("resampled mode is infinite: give epoch_length (samples per epoch over all ranks)")
        self.batch_size = int(batch_size)
        self.mode = mode
        self.weights = [float(w) for w in weights]
        self.epoch_length = epoch_length
        self.shuffle_buffer = (1000 if mode == "resampled" else 0) if shuffle_buffer is None else int(shuffle_buffer)
        self.seed = int(seed)
        self.drop_last = (mode == "resampled") if drop_last is None else drop_last
        self.decode = DecodeSettings(
            num_frames=int(num_frames),
            resolution=(int(resolution[0]), int(resolution[1])),
            train=(mode == "resampled") if train is None else bool(train),
            crop_scale=(float(crop_scale[0]), float(crop_scale[1])),
            text_dropout=check_text_dropout(text_dropout),
        )
        resolve_tokenizer()  # import it here, before DataLoader workers fork
        self.counter = SkipCounter()  # in the process that iterates (each worker has its own copy)
        self._epoch = 0

    def batches_per_worker(self) -> int:
        rank, world, _, _ = _worker_info()
        info = get_worker_info()
        workers = info.num_workers if info is not None else 1
        return math.ceil(self.batches_per_rank(world) / workers)

    def batches_per_rank(self, world_size: int | None = None) -> int:
        if world_size is None:
            world_size = _worker_info()[1]
        return math.ceil(self.epoch_length / (self.batch_size * world_size))

    def __len__(self) -> int:
        if self.mode != "resampled":
            raise TypeError("exact mode has no fixed length")
        return self.batches_per_rank()

    def _rng(self) -> random.Random:
        rank, _, worker, _ = _worker_info()
        info = get_worker_info()
        base = info.seed if info is not None else self.seed * 1_000_003 + self._epoch  # torch draws a new seed per epoch
        return random.Random(hash((self.seed, int(base), rank, worker)))

    def _samples(self, rng: random.Random) -> Iterator[dict]:
        if self.mode == "resampled":
            streams = [_resampled_shards(urls, random.Random(rng.random()), self.counter) for urls, w in zip(self.sources, self.weights)]
            live = [(s, w) for s, w in zip(streams, self.weights) if w > 0]
            return _mix([s for s, _ in live], [w for _, w in live], rng)
        return self._exact_samples()

    def _exact_samples(self) -> Iterator[dict]:
        """This reader's share: shards split over rank x worker, or samples split when shards are fewer."""
        rank, world, worker, workers = _worker_info()
        readers, me = world * workers, rank * workers + worker
        urls = [u for source in self.sources for u in source]
        if len(urls) >= readers:
            yield from shard_samples(iter(urls[me::readers]), self.counter)
            return
        for i, sample in enumerate(shard_samples(iter(urls), self.counter)):
            if i % readers == me:
                yield sample

    def __iter__(self) -> Iterator[dict]:
        rng = self._rng()
        self._epoch += 1
        limit = self.batches_per_worker() if self.mode == "resampled" else None
        samples = _shuffle(self._samples(rng), self.shuffle_buffer, rng)
        batch: list[dict] = []
        produced = 0
        for raw in samples:
            if limit is not None and produced >= limit:
                break
            try:
                batch.append(decode_sample(raw, self.decode, rng))
            except BadSample as e:
                self.counter.add(e.reason)
                continue
            if len(batch) == self.batch_size:
                yield collate(batch, self.counter.delta())
                produced += 1
                batch = []
        if batch and not self.drop_last and (limit is None or produced < limit):
            yield collate(batch, self.counter.delta())


def make_loader(dataset: ClipDataset, num_workers: int = 2, pin_memory: bool = False, persistent_workers: bool = False, prefetch_factor: int | None = 2):
    """A DataLoader over a ClipDataset (which batches itself)."""
    from torch.utils.data import DataLoader

    kwargs = dict(batch_size=None, num_workers=num_workers, pin_memory=pin_memory)
    if num_workers > 0:
        kwargs.update(persistent_workers=persistent_workers, prefetch_factor=prefetch_factor)
    return DataLoader(dataset, **kwargs)


class SkipTally:
    """Sums the per-batch `skipped` counts in the main process (for logging)."""

    def __init__(self):
        self.counts: Counter = Counter()

    def update(self, batch: dict) -> dict:
        self.counts.update(batch.get("skipped") or {})
        return dict(self.counts)
