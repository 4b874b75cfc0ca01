"""A CraftAssist-style assistant on crafter: chat -> a neural semantic parser -> an action dictionary
(a versioned JSON Schema) -> a dialogue manager with a SQLite memory and a stack of interruptible
tasks, carried out by the scripted skills and checked by the simulator and by the learned judge.

Entry points: `AssistSession(world_seed, model=None).send(text) -> dict` (`session`), the parser
(`parser.infer.load_parser`, `parser.train.train_parser`), the schema (`schema.validate`), the
generator of (command, dictionary) pairs (`generate`) and the `mineclip assist` command (`cli`).
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "AssistSession": "mineclip.assist.session",
    "validate": "mineclip.assist.schema",
    "SchemaError": "mineclip.assist.schema",
    "load_parser": "mineclip.assist.parser.infer",
    "generate_pairs": "mineclip.assist.generate",
}

__all__ = ["AssistSession", "SchemaError", "generate_pairs", "load_parser", "validate"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'mineclip.assist' has no attribute {name!r}")
