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


# annotations of the 2020-12 vocabularies the schema uses, and one of its own at the root
ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "$comment"}


def _keywords(node: dict, root: bool = False) -> set[str]:
    """The keywords a schema node and its sub-schemas use (`version` only counts below the root)."""
    found = set(node) - ({"version"} if root else set())
    for key in ("properties", "$defs"):
        for sub in node.get(key, {}).values():
            found |= _keywords(sub)
    for sub in node.get("oneOf", []) + node.get("prefixItems", []):
        found |= _keywords(sub)
    return found


def test_every_keyword_of_the_schema_is_one_the_validator_implements():
    from jsonschema import Draft202012Validator

    used = _keywords(load_schema(), root=True)
    unknown = used - set(Draft202012Validator.VALIDATORS) - ANNOTATIONS
    assert unknown == set(), f"keywords jsonschema would ignore: {unknown}"
    Draft202012Validator.check_schema(load_schema())


def test_a_keyword_the_hand_written_validator_ignored_is_enforced():
    # the old validator knew no `maxLength`, `pattern` or `uniqueItems`; jsonschema knows every keyword
    from jsonschema import Draft202012Validator

    strict = Draft202012Validator({"type": "array", "uniqueItems": True, "maxItems": 3})
    assert not strict.is_valid([1, 1])
    assert check({"dialogue_type": "NOOP", "extra": 1}) == [("the dictionary: unexpected key 'extra' (allowed: "
                                                            "['dialogue_type'])")]


def test_requests_crafter_cannot_serve_are_valid_dictionaries_of_what_they_ask():
    span = [0, [2, 2]]
    for action in ({"action_type": "BUILD", "schematic": {"has_name": span}},
                   {"action_type": "SPAWN", "reference_object": {"has_name": span}},
                   {"action_type": "OTHER", "reference_object": {"has_name": span}},
                   {"action_type": "RESUME"}, {"action_type": "COMPOSITE"},
                   {"action_type": "MOVE", "location": {"location_type": "SPEAKER"}},
                   {"action_type": "MOVE", "location": {"location_type": "REFERENCE_OBJECT", "relative_direction": "LEFT",
                                                        "reference_object": {"has_name": span}}}):
        assert check({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": action}, 3) == [], action
    assert check({"dialogue_type": "GET_MEMORY", "filters": {"memory_type": "OTHER"}}) == []
    assert check({"dialogue_type": "PUT_MEMORY", "upsert": {"memory_type": "NAME", "has_name": [0, [3, 3]],
                                                            "reference_object": {"has_name": span}}}) == []
    bad = {"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "MOVE", "location": {
        "location_type": "REFERENCE_OBJECT", "relative_direction": "SIDEWAYS", "reference_object": {"has_name": span}}}}
    assert "relative_direction" in check(bad)[0]
