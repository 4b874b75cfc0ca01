"""mineclip: train MineCLIP-style video-language models, export them as rewards and success judges."""

from .model import MineCLIP, ModelConfig, build_model, get_config, list_configs, tokenize

__version__ = "0.1.0"


def load_official(path, **kwargs) -> MineCLIP:
    """Load a released MineCLIP checkpoint (`attn.pth` / `avg.pth`) without running code from it."""
    from .model.official import load_official as _load

    return _load(path, **kwargs)


def save_official(model: MineCLIP, path) -> None:
    """Write a model in the released checkpoint layout (aliases included)."""
    from .model.official import save_official as _save

    _save(model, path)


__all__ = [
    "MineCLIP",
    "ModelConfig",
    "build_model",
    "get_config",
    "list_configs",
    "load_official",
    "save_official",
    "tokenize",
]
