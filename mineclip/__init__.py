"""mineclip: train MineCLIP-style video-language models, export them as rewards and success judges.

Public API (imported lazily, so that `mineclip data ...` does not pay for torch/open_clip start-up):
`MineCLIP`, `ModelConfig`, `build_model`, `get_config`, `list_configs`, `tokenize`,
`load_official`, `save_official`, `RewardModel`.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_EXPORTS = {
    "MineCLIP": "mineclip.model",
    "ModelConfig": "mineclip.model",
    "build_model": "mineclip.model",
    "get_config": "mineclip.model",
    "list_configs": "mineclip.model",
    "tokenize": "mineclip.model",
    "load_official": "mineclip.model.official",
    "save_official": "mineclip.model.official",
    "RewardModel": "mineclip.reward",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'mineclip' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
