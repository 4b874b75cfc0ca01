"""Data modules used only by training: a fixed set of batches replayed every epoch (overfit debugging)."""

from __future__ import annotations

import itertools

from mineclip.data.datamodule import ClipDataModule


class CachedBatchesDataModule(ClipDataModule):
    """ClipDataModule whose training epoch replays the same first `num_batches` batches.

    The resampled training stream draws new clips every epoch, so `trainer.overfit_batches` alone
    does not show a model memorising; this does (`--config overfit`, mineclip/configs/overfit.yaml).
    """

    def __init__(self, num_batches: int = 2, **kwargs):
        kwargs.setdefault("num_workers", 0)
        super().__init__(**kwargs)
        self.num_batches = num_batches
        self._batches: list[dict] | None = None

    def train_dataloader(self):
        if self._batches is None:
            self._batches = list(itertools.islice(iter(super().train_dataloader()), self.num_batches))
            if len(self._batches) < self.num_batches:
                raise ValueError(f"wanted {self.num_batches} batches to replay, the shards gave {len(self._batches)}")
        return ReplayBatches(self._batches)


class ReplayBatches:
    """An iterable over stored batches (a plain list would read to Lightning as several loaders)."""

    def __init__(self, batches: list[dict]):
        self.batches = batches

    def __iter__(self):
        return iter(self.batches)

    def __len__(self) -> int:
        return len(self.batches)
