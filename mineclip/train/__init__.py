"""Contrastive training: loss, optimiser groups and schedule, the LightningModule, strategies, CLI.

Names are imported lazily so that `mineclip.train.loss` does not pull in Lightning.
"""

import importlib

_EXPORTS = {
    "ContrastiveLoss": "loss",
    "MineCLIPModule": "module",
    "build_config": "module",
    "OptimizerSettings": "optim",
    "build_optimizer": "optim",
    "build_scheduler": "optim",
    "cosine_with_warmup": "optim",
    "param_groups": "optim",
    "DeepSpeedStrategy": "strategies",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
