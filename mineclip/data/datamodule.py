"""LightningDataModule over clip shards: resampled training batches and an exact single-pass validation."""

from __future__ import annotations

from mineclip.extras import require

require("pytorch_lightning", feature="the training data module (mineclip.data.datamodule)")

import os
from collections import Counter

import pytorch_lightning as pl
import torch

from mineclip.data.reader import PYTHON_FIELDS, ClipDataset, make_loader
from mineclip.model.config import CLIP_FRAMES


class ClipDataModule(pl.LightningDataModule):
    """Train/val loaders over WebDataset clip shards.

    train_urls / val_urls: a brace pattern, '::'-joined patterns, a shard folder (with manifest.json)
    or a list of these; with a list for train_urls, each entry is a source mixed by train_weights.
    epoch_length: training samples per epoch over all ranks (the resampled stream is infinite).
    Batches: {"video": uint8 [B, T, 3, H, W], "tokens": long [B, 77], "text", "meta", "skipped"}.
    `skipped_totals` sums the skipped-sample counts of all batches seen by the trainer.
    cache_train: decode the training clips once into RAM and draw batches from there
    (`mineclip.data.cache.CachedClips`), for datasets that fit in memory such as the built-in default.
    balance_by / balance_power (cached training only): draw clips with weight 1 / (clips with the same
    value of that meta field, e.g. "meta.event") ** power, so that rare events are seen more often.
    text_dropout: the chance that each word of a training caption is dropped, drawn afresh each time
    the clip is drawn (`mineclip.data.augment.drop_words`); validation captions stay whole.
    text_dropout_rare (cached training only): a word in fewer than this fraction of the training
    captions is never dropped, and more frequent ones are dropped with a chance rising to text_dropout
    (word2vec's subsampling, `mineclip.data.augment.word_dropout_rates`); None drops every word alike.
    seed: the seed of the clip order and the crops. None (the default) takes the seed given to
    `seed_everything` (the CLI's `--seed_everything`), read when a loader is made, so that one seed
    sets a run's initial weights and its data order alike; 0 if nothing was seeded.
    """

    def __init__(
        self,
        train_urls: str | list[str] | None = None,
        val_urls: str | list[str] | None = None,
        batch_size: int = 32,
        val_batch_size: int | None = None,
        num_workers: int = 2,
        num_frames: int = CLIP_FRAMES,
        epoch_length: int = 10_000,
        resolution: tuple[int, int] = (160, 256),
        shuffle_buffer: int = 1000,
        train_weights: list[float] | None = None,
        crop_scale: tuple[float, float] = (0.8, 1.0),
        seed: int | None = None,
        pin_memory: bool = False,
        prefetch_factor: int = 2,
        cache_train: bool = False,
        balance_by: str | None = None,
        balance_power: float = 0.5,
        text_dropout: float = 0.0,
        text_dropout_rare: float | None = None,
    ):
        super().__init__()
        self.save_hyperparameters()
        self.train_urls = train_urls
        self.val_urls = val_urls
        self.batch_size = batch_size
        self.val_batch_size = val_batch_size or batch_size
        self.num_workers = num_workers
        self.num_frames = num_frames
        self.epoch_length = epoch_length
        self.resolution = tuple(resolution)
        self.shuffle_buffer = shuffle_buffer
        self.train_weights = train_weights
        self.crop_scale = tuple(crop_scale)
        self._seed = seed
        self.pin_memory = pin_memory
        self.prefetch_factor = prefetch_factor
        self.skipped_totals: Counter = Counter()
        self.cache_train = cache_train
        if balance_by is not None and not cache_train:
            raise ValueError("balance_by needs cache_train: true (streamed shards are sampled uniformly)")
        if text_dropout_rare is not None and not cache_train:
            raise ValueError("text_dropout_rare needs cache_train: true (its word counts are of the cached captions)")
        if cache_train:  # the cache's checks, now rather than when the cache is made in setup
            from mineclip.data.cache import check_cache_settings

            check_cache_settings(balance_by, balance_power, text_dropout_rare)
        self.balance_by = balance_by
        self.balance_power = balance_power
        self.text_dropout = text_dropout
        self.text_dropout_rare = text_dropout_rare
        self._cached = None

    @property
    def seed(self) -> int:
        """The data seed in use: the one given, else Lightning's global seed (PL_GLOBAL_SEED), else 0."""
        if self._seed is not None:
            return int(self._seed)
        return int(os.environ.get("PL_GLOBAL_SEED", 0))

    def _sources(self, urls):
        if urls is None:
            return None
        return [urls] if isinstance(urls, str) else list(urls)

    def train_dataset(self) -> ClipDataset:
        if self.train_urls is None:
            raise ValueError("ClipDataModule: no train_urls given")
        return ClipDataset(
            self._sources(self.train_urls),
            batch_size=self.batch_size,
            num_frames=self.num_frames,
            resolution=self.resolution,
            mode="resampled",
            weights=self.train_weights,
            epoch_length=self.epoch_length,
            shuffle_buffer=self.shuffle_buffer,
            crop_scale=self.crop_scale,
            seed=self.seed,
            text_dropout=self.text_dropout,
        )

    def val_dataset(self) -> ClipDataset:
        if self.val_urls is None:
            raise ValueError("ClipDataModule: no val_urls given")
        # val sources are concatenated, not mixed: every sample exactly once
        return ClipDataset(
            [u for s in self._sources(self.val_urls) for u in ([s] if isinstance(s, str) else s)],
            batch_size=self.val_batch_size,
            num_frames=self.num_frames,
            resolution=self.resolution,
            mode="exact",
            shuffle_buffer=0,
            seed=self.seed,
        )

    def train_dataloader(self):
        if self.cache_train:
            from mineclip.data.cache import CachedClips

            if self._cached is None:
                if self.train_urls is None:
                    raise ValueError("ClipDataModule: no train_urls given")
                self._cached = CachedClips(
                    self._sources(self.train_urls), batch_size=self.batch_size, num_frames=self.num_frames,
                    resolution=self.resolution, epoch_length=self.epoch_length, weights=self.train_weights,
                    crop_scale=self.crop_scale, seed=self.seed, workers=self.num_workers,
                    balance_by=self.balance_by, balance_power=self.balance_power,
                    text_dropout=self.text_dropout, text_dropout_rare=self.text_dropout_rare)
                self.skipped_totals.update(self._cached.load_skipped)
            return make_loader(self._cached, 0, self.pin_memory)
        return make_loader(self.train_dataset(), self.num_workers, self.pin_memory, persistent_workers=self.num_workers > 0, prefetch_factor=self.prefetch_factor)

    def val_dataloader(self):
        if self.val_urls is None:
            return []
        return make_loader(self.val_dataset(), self.num_workers, self.pin_memory, prefetch_factor=self.prefetch_factor)

    def on_before_batch_transfer(self, batch, dataloader_idx: int):
        if isinstance(batch, dict) and batch.get("skipped"):
            self.skipped_totals.update(batch["skipped"])
        return batch

    def transfer_batch_to_device(self, batch, device, dataloader_idx: int):
        """The batch's tensors moved to `device`; its captions, meta and skip counts (Python lists and
        dicts, `mineclip.data.reader.collate`) pass as they are. Lightning's default walks every
        caption and every clip's meta record, 24-30 ms of a ~0.7 s CPU step for the default's 32 clips."""
        if not (isinstance(batch, dict) and PYTHON_FIELDS & batch.keys()):
            return super().transfer_batch_to_device(batch, device, dataloader_idx)
        blocking = torch.device(device).type in ("cpu", "mps")  # as Lightning's move_data_to_device
        return {k: v if k in PYTHON_FIELDS else
                v.to(device, non_blocking=not blocking) if isinstance(v, torch.Tensor) else
                super().transfer_batch_to_device(v, device, dataloader_idx) for k, v in batch.items()}
