"""The action-dictionary schema (`action_dict.schema.json`, a versioned JSON Schema) and its
validator, used wherever a dictionary is read: generated pairs, the hand-written set, the parser's
output, the dialogue manager's input.

The validator implements the part of JSON Schema (draft 2020-12) the schema uses: `$ref` to
`$defs`, `oneOf`, `type`, `const`, `enum`, `properties`, `required`, `additionalProperties: false`,
`prefixItems`, `minItems`, `maxItems`, `minimum`. Spans are also checked against the message's
words when they are given (start <= end < number of words).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

SCHEMA_FILE = "action_dict.schema.json"
TYPES = {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float), "boolean": bool}


class SchemaError(ValueError):
    """A dictionary that does not follow the action-dictionary schema; says where and what."""


@lru_cache(maxsize=1)
def load_schema() -> dict:
    """The packaged JSON Schema of action dictionaries."""
    return json.loads(resources.files("mineclip.assist").joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def schema_version() -> str:
    """The schema's version string (semantic versioning)."""
    return load_schema()["version"]


def _where(path: str) -> str:
    return path or "the dictionary"


def _resolve(ref: str, root: dict) -> dict:
    if not ref.startswith("#/"):
        raise SchemaError(f"only local $ref are supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def _errors(value: Any, schema: dict, root: dict, path: str) -> list[str]:
    """Every way `value` breaks `schema` (empty when it conforms)."""
    if "$ref" in schema:
        return _errors(value, _resolve(schema["$ref"], root), root, path)
    if "oneOf" in schema:
        return _one_of(value, schema["oneOf"], root, path)
    errors: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, TYPES[kind]) and not (kind in ("integer", "number") and isinstance(value, bool))
        if not ok:
            return [f"{_where(path)}: expected {kind}, got {type(value).__name__} {value!r}"]
    if "const" in schema and value != schema["const"]:
        errors.append(f"{_where(path)}: expected {schema['const']!r}, got {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{_where(path)}: expected one of {schema['enum']}, got {value!r}")
    if "minimum" in schema and isinstance(value, (int, float)) and value < schema["minimum"]:
        errors.append(f"{_where(path)}: expected at least {schema['minimum']}, got {value!r}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{_where(path)}: missing {key!r}")
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            if key in props:
                errors += _errors(item, props[key], root, sub)
            elif schema.get("additionalProperties", True) is False:
                errors.append(f"{_where(path)}: unexpected key {key!r} (allowed: {sorted(props)})")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append(f"{_where(path)}: expected at least {schema['minItems']} items, got {len(value)}")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{_where(path)}: expected at most {schema['maxItems']} items, got {len(value)}")
        for i, (item, sub) in enumerate(zip(value, schema.get("prefixItems", []))):
            errors += _errors(item, sub, root, f"{path}[{i}]")
    return errors


def _consts(schema: dict, root: dict) -> dict:
    schema = _resolve(schema["$ref"], root) if "$ref" in schema else schema
    return {k: v["const"] for k, v in schema.get("properties", {}).items() if "const" in v}


def _flatten(options: list[dict], root: dict) -> list[dict]:
    """Nested oneOf alternatives as one list (so that constants deep inside can discriminate)."""
    out = []
    for option in options:
        resolved = _resolve(option["$ref"], root) if "$ref" in option else option
        out += _flatten(resolved["oneOf"], root) if "oneOf" in resolved else [resolved]
    return out


def _one_of(value: Any, options: list[dict], root: dict, path: str) -> list[str]:
    options = _flatten(options, root)
    results = [_errors(value, option, root, path) for option in options]
    passing = sum(not r for r in results)
    if passing == 1:
        return []
    if passing > 1:
        return [f"{_where(path)}: matches {passing} alternatives of the schema, expected exactly one"]
    # report the alternative whose discriminating constants (dialogue_type, action_type, ...) match
    if isinstance(value, dict):
        chosen = [r for o, r in zip(options, results)
                  if (c := _consts(o, root)) and all(value.get(k) == v for k, v in c.items())]
        if len(chosen) == 1:
            return chosen[0]
        keys = sorted({k for o in options for k in _consts(o, root)})
        for key in keys:
            allowed = sorted({str(_consts(o, root)[key]) for o in options if key in _consts(o, root)})
            if value.get(key) not in allowed and allowed:
                return [f"{_where(path)}: expected {key} in {allowed}, got {value.get(key)!r}"]
    return min(results, key=len)


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


def check(d: Any, num_words: int | None = None) -> list[str]:
    """The problems of an action dictionary (empty when valid); spans checked against `num_words`."""
    errors = _errors(d, load_schema(), load_schema(), "")
    if not errors and num_words is not None:
        errors = _span_errors(d, num_words)
    return errors


def validate(d: Any, num_words: int | None = None) -> dict:
    """`d` when it is a valid action dictionary (spans within `num_words` words when given); else SchemaError."""
    errors = check(d, num_words)
    if errors:
        raise SchemaError("invalid action dictionary: " + "; ".join(errors[:5]))
    return d
