"""A callback that slows training down so a test can kill it mid-run (used through the CLI)."""

import time

import pytorch_lightning as pl


class SlowSteps(pl.Callback):
    def __init__(self, seconds: float = 0.5):
        self.seconds = seconds

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        time.sleep(self.seconds)
