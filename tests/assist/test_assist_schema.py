import json
from importlib import resources

import pytest

from mineclip.assist.generate import generate_pairs
from mineclip.assist.handwritten import load_handwritten
from mineclip.assist.schema import (
    SchemaError,
    check,
    load_schema,
    schema_version,
    validate,
)

MOVE = {"dialogue_type": "HUMAN_GIVE_COMMAND",
        "action": {"action_type": "MOVE", "location": {"location_type": "REFERENCE_OBJECT",
                                                       "reference_object": {"has_name": [0, [2, 2]]}}}}


def test_the_schema_is_a_versioned_json_schema_in_the_package():
    raw = resources.files("mineclip.assist").joinpath("action_dict.schema.json").read_text()
    schema = json.loads(raw)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert schema_version() == schema["version"] and schema_version().count(".") == 2
    assert load_schema() == schema


def test_generated_and_hand_written_dictionaries_are_valid():
    for p in generate_pairs(500, seed=3):
        assert check(p["action_dict"], len(p["words"])) == [], p
    for p in load_handwritten(None):
        assert check(p["action_dict"], len(p["words"])) == [], p


@pytest.mark.parametrize("bad, where", [
    ({"dialogue_type": "SHOUT"}, "dialogue_type"),
    ({"dialogue_type": "NOOP", "action": {}}, "unexpected key 'action'"),
    ({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "FLY"}}, "action_type"),
    ({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "BUILD"}}, "missing 'schematic'"),
    ({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "MOVE", "location": {
        "location_type": "DIRECTION", "direction": "NORTH"}}}, "action.location.direction"),
    ({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "COLLECT", "reference_object": {
        "has_name": [0, [1]]}}}, "has_name[1]"),
    ({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "LOOP", "action": {"action_type": "LOOP"},
                                                        "stop_condition": {"condition_type": "NIGHT"}}}, "action.action"),
    ({"dialogue_type": "GET_MEMORY", "filters": {"memory_type": "DREAMS"}}, "memory_type"),
    ([0, 1], "expected object"),
])
def test_invalid_dictionaries_are_refused_saying_where(bad, where):
    with pytest.raises(SchemaError) as e:
        validate(bad)
    assert where in str(e.value)


def test_spans_are_checked_against_the_message():
    assert validate(MOVE, num_words=3) is MOVE
    assert "outside the message's 2 words" in check(MOVE, num_words=2)[0]
    backwards = json.loads(json.dumps(MOVE).replace("[2, 2]", "[2, 1]"))
    assert check(backwards, num_words=5)
    other_sentence = json.loads(json.dumps(MOVE).replace("[0, [2, 2]]", "[1, [2, 2]]"))
    assert "sentence 1" in check(other_sentence, num_words=5)[0]


SUPPORTED = {"$schema", "$id", "$defs", "$ref", "title", "version", "description", "oneOf", "type", "const", "enum",
             "properties", "required", "additionalProperties", "prefixItems", "minItems", "maxItems", "minimum"}


def _keywords(node: dict) -> set[str]:
    """The JSON Schema keywords a schema node and its sub-schemas use."""
    found = set(node)
    for key in ("properties", "$defs"):
        for sub in node.get(key, {}).values():
            found |= _keywords(sub)
    for sub in node.get("oneOf", []) + node.get("prefixItems", []):
        found |= _keywords(sub)
    return found


def test_the_schema_uses_only_keywords_the_validator_implements():
    assert _keywords(load_schema()) <= SUPPORTED, _keywords(load_schema()) - SUPPORTED
