"""Fitting as a library function: a composed training config in, the trained run's checkpoints and
metrics out. `mineclip pipeline` calls it; `mineclip train fit` is the same run behind LightningCLI's
command line (`mineclip.train.cli`).

    result = fit(FitSettings("tiny", {"trainer": {"max_epochs": 1, "default_root_dir": "runs/x"}}))
    result.last      # runs/x/checkpoints/last.ckpt: the weights of the last step
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field

from .configs import ConfigError, load_config, merge


@dataclass
class FitSettings:
    """What to train: configs (packaged names, paths or mappings, composed left to right) and
    nested overrides merged on top, as `--key.sub value` would set them; `ckpt_path="last"`
    resumes from the run's last.ckpt when there is one."""

    config: str | dict | list = "tiny"
    overrides: dict = field(default_factory=dict)
    ckpt_path: str | None = None


@dataclass
class FitResult:
    """What a finished fit left behind."""

    checkpoint_dir: str
    last: str | None  # last.ckpt: the weights of the final step
    best: str | None  # the best checkpoint by validation R@1, when the run validated
    global_step: int
    epoch: int
    metrics: dict  # the module's best validation metrics ({} without validation)
    seconds: float


def training_config(settings: FitSettings) -> dict:
    """The composed config mapping a fit runs with."""
    return merge(load_config(settings.config), settings.overrides)


def fit(settings: FitSettings) -> FitResult:
    """Train as `mineclip train fit` would with the same config; raises NonFiniteLossError on a
    diverged run and jsonargparse/Lightning errors on a bad config."""
    from mineclip.allocator import keep_freed_memory

    from .cli import build_cli

    t0 = time.time()
    config = training_config(settings)
    keep_freed_memory()
    # LightningCLI warns when the process's own argv is non-empty besides the given config
    outer, sys.argv = sys.argv, sys.argv[:1]
    try:
        cli = build_cli(config, run=False)
    except SystemExit as e:  # jsonargparse reported the problem on stderr and exits
        raise ConfigError(f"the training config does not parse (exit {e.code}; the reason is printed above)") from None
    finally:
        sys.argv = outer
    trainer, module = cli.trainer, cli.model
    ckpt_path = settings.ckpt_path
    if ckpt_path == "last" and not os.path.isfile(os.path.join(trainer.checkpoint_callback.dirpath, "last.ckpt")):
        ckpt_path = None  # nothing to resume: start
    trainer.fit(module, datamodule=cli.datamodule, ckpt_path=ckpt_path)
    ckpts = trainer.checkpoint_callbacks
    last = next((c.last_model_path for c in ckpts if c.last_model_path), None)
    validated = trainer.limit_val_batches != 0 and bool(module.best_metrics)
    best = ckpts[0].best_model_path if ckpts and validated and ckpts[0].best_model_path else None
    return FitResult(str(trainer.checkpoint_callback.dirpath), last, best, int(trainer.global_step),
                     int(trainer.current_epoch), dict(module.best_metrics), time.time() - t0)
