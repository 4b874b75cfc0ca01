"""The action-dictionary schema (`action_dict.schema.json`, a versioned JSON Schema, draft 2020-12)
and its validator, used wherever a dictionary is read: generated pairs, the hand-written set, the
crowd's converted dictionaries, the parser's output, the dialogue manager's input.

Validation is `jsonschema`'s (every keyword of the draft; the schema itself is checked against the
draft's meta-schema when it loads). Its errors are reported in the user's terms: where in the
dictionary, and what was expected. Spans are also checked against the message's words when they are
given (start <= end < number of words), which JSON Schema cannot say.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import lru_cache
from importlib import resources
from typing import Any

SCHEMA_FILE = "action_dict.schema.json"


class SchemaError(ValueError):
    """A dictionary that does not follow the action-dictionary schema; says where and what."""


@lru_cache(maxsize=1)
def load_schema() -> dict:
    """The packaged JSON Schema of action dictionaries."""
    return json.loads(resources.files("mineclip.assist").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def schema_version() -> str:
    """The schema's version string (semantic versioning)."""
    return load_schema()["version"]


@lru_cache(maxsize=1)
def validator():
    """A `jsonschema` validator of the packaged schema (the schema checked against its meta-schema)."""
    try:
        from jsonschema import Draft202012Validator
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError("the action-dictionary schema needs jsonschema, which is not installed: "
                                  "pip install 'mineclip[sim]'", name="jsonschema") from e
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _where(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the dictionary"


def _alternatives(error) -> list[list]:
    """The errors of each alternative of a failed oneOf, nested oneOfs at the same place flattened."""
    groups: dict[int, list] = defaultdict(list)
    for sub in error.context:
        groups[sub.relative_schema_path[0]].append(sub)
    out = []
    for _, errs in sorted(groups.items()):
        nested = [e for e in errs if e.validator == "oneOf" and list(e.absolute_path) == list(error.absolute_path)]
        if len(errs) == 1 and nested:
            out += _alternatives(nested[0])
        else:
            out.append(errs)
    return out


def _discriminated_away(errs: list, depth: int) -> list:
    """The const errors one level below the oneOf (dialogue_type, action_type, ...): an alternative with
    one is not the one the dictionary meant."""
    return [e for e in errs if e.validator == "const" and len(e.absolute_path) == depth + 1]


def _describe(error) -> list[str]:
    """An error in the user's terms: where, what was expected, what came."""
    where, value, kind = _where(error.absolute_path), error.instance, error.validator
    if kind == "oneOf":
        if not error.context:  # more than one alternative matched
            return [f"{where}: matches several alternatives of the schema, expected exactly one"]
        depth = len(error.absolute_path)
        alts = _alternatives(error)
        left = [errs for errs in alts if not _discriminated_away(errs, depth)]
        if not left and isinstance(value, dict):
            consts = [e for errs in alts for e in _discriminated_away(errs, depth)]
            key = consts[0].absolute_path[-1]
            allowed = sorted({str(e.validator_value) for e in consts if e.absolute_path[-1] == key})
            return [f"{where}: expected {key} in {allowed}, got {value.get(key)!r}"]
        best = min(left or alts, key=len)
        return [m for e in best for m in _describe(e)]
    if kind == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(value) - set(allowed))
        return [f"{where}: unexpected key {k!r} (allowed: {allowed})" for k in extra]
    if kind == "required":
        return [f"{where}: missing {k!r}" for k in error.validator_value if k not in value]
    if kind == "type":
        return [f"{where}: expected {error.validator_value}, got {type(value).__name__} {value!r}"]
    if kind == "const":
        return [f"{where}: expected {error.validator_value!r}, got {value!r}"]
    if kind == "enum":
        return [f"{where}: expected one of {error.validator_value}, got {value!r}"]
    if kind in ("minItems", "maxItems"):
        bound = "at least" if kind == "minItems" else "at most"
        return [f"{where}: expected {bound} {error.validator_value} items, got {len(value)}"]
    if kind == "minimum":
        return [f"{where}: expected at least {error.validator_value}, got {value!r}"]
    return [f"{where}: {error.message}"]  # any other keyword: jsonschema's own words


def _span_errors(value: Any, num_words: int, path: str = "") -> list[str]:
    errors = []
    if isinstance(value, dict):
        for k, v in value.items():
            errors += _span_errors(v, num_words, f"{path}.{k}" if path else k)
    elif isinstance(value, list) and len(value) == 2 and isinstance(value[1], list) and len(value[1]) == 2:
        sentence, (start, end) = value
        if sentence != 0:
            errors.append(f"{path}: span of sentence {sentence}, but a message is one sentence (index 0)")
        if not start <= end < num_words:
            errors.append(f"{path}: span words {start}..{end} outside the message's {num_words} words")
    return errors


def _plain(d: Any) -> bool:
    """Made of JSON's own types only (so that its canonical JSON stands for it exactly)."""
    if isinstance(d, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in d.items())
    if isinstance(d, list):
        return all(_plain(v) for v in d)
    return d is None or isinstance(d, (str, int, float, bool))


def _errors_of(d: Any) -> list[str]:
    return [m for e in sorted(validator().iter_errors(d), key=lambda e: list(map(str, e.absolute_path)))
            for m in _describe(e)]


@lru_cache(maxsize=65536)
def _schema_errors(key: str) -> tuple[str, ...]:
    """The schema errors of a dictionary given as canonical JSON (dictionaries repeat: generated pairs,
    parses; jsonschema takes about 2 ms per oneOf-heavy dictionary)."""
    return tuple(_errors_of(json.loads(key)))


def check(d: Any, num_words: int | None = None) -> list[str]:
    """The problems of an action dictionary (empty when valid); spans checked against `num_words`."""
    key = json.dumps(d, sort_keys=True) if _plain(d) else None  # tuples and the like: validated as they are
    errors = list(_schema_errors(key)) if key is not None else _errors_of(d)
    if not errors and num_words is not None:
        errors = _span_errors(d, num_words)
    return errors


def validate(d: Any, num_words: int | None = None) -> dict:
    """`d` when it is a valid action dictionary (spans within `num_words` words when given); else SchemaError."""
    errors = check(d, num_words)
    if errors:
        raise SchemaError("invalid action dictionary: " + "; ".join(errors[:5]))
    return d
