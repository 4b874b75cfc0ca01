"""Contrastive training: loss, optimiser groups and schedule, the LightningModule, strategies, config
composition, `fit` and the Lightning CLI (the `train` extra).

Names are imported lazily: `import mineclip.train` does not load Lightning until a name needs it.
"""

from mineclip.extras import require

require("pytorch_lightning", "jsonargparse", feature="training (mineclip.train)")

import importlib

_EXPORTS = {
    "ContrastiveLoss": "loss",
    "MineCLIPModule": "module",
    "FitSettings": "fit",
    "FitResult": "fit",
    "fit": "fit",
    "load_config": "configs",
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
