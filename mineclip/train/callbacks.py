"""Training callbacks and I/O: atomic checkpoint files, last.ckpt at the final step, and the non-finite
loss stop (throughput is Lightning's `ThroughputMonitor`, see MineCLIPModule.configure_callbacks)."""

from __future__ import annotations

import os
from typing import Any

import pytorch_lightning as pl
import torch
from lightning_fabric.plugins.io.torch_io import TorchCheckpointIO
from pytorch_lightning.callbacks import ModelCheckpoint


class NonFiniteLossError(RuntimeError):
    """The training loss became NaN or infinite; the run stops before any update or checkpoint."""


class AtomicCheckpointIO(TorchCheckpointIO):
    """torch.save to `<path>.tmp-<pid>`, fsync, then os.replace: a checkpoint file is never half written."""

    def save_checkpoint(self, checkpoint: dict[str, Any], path, storage_options: Any | None = None) -> None:
        if storage_options is not None:
            raise TypeError(f"{type(self).__name__} takes no storage_options, got {storage_options!r}")
        path = os.fspath(path)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = f"{path}.tmp-{os.getpid()}"
        try:
            with open(tmp, "wb") as f:
                torch.save(checkpoint, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)


def make_checkpoints_atomic(trainer: pl.Trainer) -> None:
    """Swap the trainer's plain TorchCheckpointIO for AtomicCheckpointIO (DeepSpeed saves its own way)."""
    if type(trainer.strategy.checkpoint_io) is TorchCheckpointIO:
        trainer.strategy.checkpoint_io = AtomicCheckpointIO()


class LastCheckpoint(ModelCheckpoint):
    """ModelCheckpoint for last.ckpt that also writes it at the end of every training epoch.

    Lightning refreshes `save_last` only when this callback saved a top-k checkpoint at that step,
    so with `save_top_k=0` and `every_n_train_steps=100` a 678-step run left last.ckpt at step 600,
    and whatever read last.ckpt as "the final weights" got those. Here last.ckpt always ends at the
    run's last step (a resumed run starts from an epoch boundary when it was killed between epochs).
    """

    def on_train_epoch_end(self, trainer: pl.Trainer, pl_module: pl.LightningModule) -> None:
        super().on_train_epoch_end(trainer, pl_module)
        if self.save_last and not self._should_skip_saving_checkpoint(trainer):
            self._save_last_checkpoint(trainer, self._monitor_candidates(trainer))
