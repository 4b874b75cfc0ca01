"""The MineCLIP model: towers, temporal aggregator, adapter, configs and released-checkpoint I/O."""

from .config import ModelConfig, get_config, list_configs
from .mineclip import MineCLIP, build_model
from .tokenizer import count_tokens, tokenize

__all__ = ["MineCLIP", "ModelConfig", "build_model", "count_tokens", "get_config", "list_configs", "tokenize"]
