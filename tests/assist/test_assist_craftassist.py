import pytest

from mineclip.assist.craftassist import (
    KINDS,
    ConversionError,
    align,
    convert,
    detokenize,
    question_type,
)
from mineclip.assist.tokens import span_text, tokenize

CMD = "HUMAN_GIVE_COMMAND"


def _said(c, d=None) -> dict:
    """A converted dictionary with its spans as the words they cover (for readable expectations)."""
    d = c.action_dict if d is None else d
    if isinstance(d, dict):
        return {k: _said(c, v) for k, v in d.items()}
    if isinstance(d, list) and len(d) == 2 and isinstance(d[1], list):
        return span_text(c.words, d)
    return d


# one command of every top-level kind of CraftAssist's 2019 format, as the crowd files hold them
EXAMPLES = [
    ("build a house to the right of the forest .",
     {"Build": {"location": {"location_type": "BlockObject", "relative_direction": "RIGHT",
                             "location_reference_object": {"has_name_": [8, 8]}}, "schematic": {"has_name_": [2, 2]}}},
     {"action_type": "BUILD", "schematic": {"has_shape": "HOUSE"},
      "location": {"location_type": "REFERENCE_OBJECT", "reference_object": {"has_name": "forest"},
                   "relative_direction": "RIGHT"}}),
    ("help me build a mansion .", {"FreeBuild": {"schematic": {"has_name_": [4, 4]}}},
     {"action_type": "BUILD", "schematic": {"has_name": "mansion"}}),
    ("come to my location", {"Move": {"location": {"location_type": "SpeakerPos"}}},
     {"action_type": "MOVE", "location": {"location_type": "SPEAKER"}}),
    ("destroy the 11 red towers by the castle .",
     {"Destroy": {"action_reference_object": {"has_colour_": [3, 3], "has_name_": [4, 4],
                                              "repeat": {"repeat_key": "FOR", "repeat_count": [2, 2]}}}},
     {"action_type": "DESTROY", "reference_object": {"has_name": "towers"}, "repeat": {"repeat_count": "11"}}),
    ("dig down 30 spaces .", {"Dig": {"has_depth_": [2, 3]}},
     {"action_type": "DIG", "schematic": {"has_size": "30"}}),
    ("fill the hole with sand .", {"Fill": {"action_reference_object": {"has_block_type_": [4, 4]}}},
     {"action_type": "FILL", "reference_object": {"has_name": "hole"}, "schematic": {"has_block_type": "sand"}}),
    ("spawn three horses", {"Spawn": {"has_name_": [2, 2]}, "repeat": {"repeat_key": "FOR", "repeat_count": [1, 1]}},
     {"action_type": "SPAWN", "reference_object": {"has_name": "horses"}, "repeat": {"repeat_count": "three"}}),
    ("stop building the wall .", {"Stop": {}}, {"action_type": "STOP"}),
    ("resume my pattern i 'm making for the floor .", {"Resume": {}}, {"action_type": "RESUME"}),
    ("undo my last action", {"Undo": {}}, {"action_type": "UNDO"}),
    ("tag the right tree as an apple tree .",
     {"Tag": {"action_reference_object": {"has_name_": [3, 3]}, "tag": [6, 7]}},
     {"memory_type": "NAME", "has_name": "apple tree", "reference_object": {"has_name": "tree"}}),
    ("where is the main entrance of the temple ?", {"Answer": {}}, {"memory_type": "PLACE"}),
    ("a boy is waiting", {"Noop": {}}, None),
    ("answer the door .", {"OtherAction": {"action_reference_object": {"has_name_": [2, 2]}}},
     {"action_type": "OTHER", "reference_object": {"has_name": "door"}}),
    ("move into the hole and build a fort .", {"CompositeAction": {}}, {"action_type": "COMPOSITE"}),
]


@pytest.mark.parametrize("crowd_text, old, expected", EXAMPLES, ids=[next(iter(e[1])) for e in EXAMPLES])
def test_every_kind_of_craftassist_dictionary_converts_to_what_it_asks(crowd_text, old, expected):
    c = convert(old, crowd_text)
    d = c.action_dict
    said = _said(c)
    if expected is None:
        assert d == {"dialogue_type": "NOOP"}
    elif "memory_type" in expected and "NAME" == expected["memory_type"]:
        assert d["dialogue_type"] == "PUT_MEMORY" and said["upsert"] == expected
    elif "memory_type" in expected:
        assert d["dialogue_type"] == "GET_MEMORY" and said["filters"] == expected
    else:
        assert d["dialogue_type"] == CMD and said["action"] == expected
    assert c.words == tokenize(c.text)


def test_the_examples_cover_every_kind_of_the_2019_format():
    assert {next(iter(e[1])) for e in EXAMPLES} == set(KINDS)


@pytest.mark.parametrize("crowd_text, old, kind, thing", [
    # the leading verb of an OtherAction (or a Destroy) is one of our actions: that action
    ("can you go mine some steel for our forge ?",
     {"OtherAction": {"action_reference_object": {"has_name_": [5, 5]}}}, "COLLECT", "steel"),
    ("fill the bunker with sandbags .",
     {"OtherAction": {"action_reference_object": {"has_name_": [2, 2], "has_block_type_": [4, 4]}}}, "FILL", "bunker"),
    ("spawn a tree .", {"OtherAction": {"action_reference_object": {"has_name_": [2, 2]}}}, "SPAWN", "tree"),
    ("go find water and bring some back .", {"OtherAction": {"action_reference_object": {"has_name_": [2, 2]}}},
     "MOVE", "water"),
    ("make 20 iron pickaxes", {"OtherAction": {"action_reference_object": {"has_block_type_": [2, 2],
                                                                           "has_name_": [3, 3]}}}, "OTHER", "iron pickaxes"),
    ("go kill the zombie", {"Destroy": {"action_reference_object": {"has_name_": [3, 3]}}}, "FIGHT", "zombie"),
    ("chop down the oak tree", {"Destroy": {"action_reference_object": {"has_name_": [3, 4]}}}, "COLLECT", "oak tree"),
    ("bot can you forge a cast iron kettle ?", {"Build": {"schematic": {"has_block_type_": [5, 6],
                                                                        "has_name_": [7, 7]}}}, "CRAFT", "cast iron kettle"),
    ("build a sword", {"Build": {"schematic": {"has_name_": [2, 2]}}}, "CRAFT", "sword"),
])
def test_a_verb_of_ours_decides_the_action(crowd_text, old, kind, thing):
    c = convert(old, crowd_text)
    a = c.action_dict["action"]
    assert a["action_type"] == kind
    ref = a.get("reference_object") or a.get("recipe") or a.get("location", {}).get("reference_object")
    assert span_text(c.words, ref["has_name"]) == thing


def test_reference_objects_are_named_without_their_determiners():
    # annotators mark "the hill" or "hill" for the same command; ours, like the hand-written set, names "hill"
    hill = convert({"Move": {"location": {"location_type": "BlockObject",
                                          "location_reference_object": {"has_name_": [2, 3]}}}}, "climb up the hill")
    assert _said(hill)["action"]["location"]["reference_object"] == {"has_name": "hill"}
    rooms = convert({"Destroy": {"action_reference_object": {"has_name_": [1, 4]}}}, "destroy these two old rooms")
    assert _said(rooms)["action"]["reference_object"] == {"has_name": "two old rooms"}
    this = convert({"Destroy": {"action_reference_object": {"has_name_": [1, 1]}}}, "destroy this")
    assert _said(this)["action"]["reference_object"] == {"has_name": "this"}  # a determiner alone stays


def test_build_keeps_shapes_blocks_and_names_apart():
    plant = convert({"OtherAction": {"action_reference_object": {"has_name_": [2, 2]}}}, "plant two trees")
    assert _said(plant)["action"] == {"action_type": "BUILD", "schematic": {"has_block_type": "trees",
                                                                             "has_shape": "BLOCK"}}
    wall = convert({"Build": {"schematic": {"has_block_type_": [2, 2], "has_name_": [3, 3], "has_height_": [5, 5]}}},
                   "build a brick wall , 4 high")
    assert _said(wall)["action"]["schematic"] == {"has_shape": "WALL", "has_block_type": "brick", "has_size": "4"}
    fort = convert({"Build": {"schematic": {"has_block_type_": [4, 4], "has_name_": [2, 2], "has_size_": [1, 1]}}},
                   "build small fort from wood")
    assert _said(fort)["action"]["schematic"] == {"has_name": "fort", "has_block_type": "wood"}  # 'small': no number


def test_moves_relative_to_the_agent_become_directions_with_their_steps():
    c = convert({"Move": {"location": {"location_type": "AgentPos", "relative_direction": "FRONT"}}},
                "move forward 10 blocks .")
    assert _said(c)["action"]["location"] == {"location_type": "DIRECTION", "direction": "FORWARD", "steps": "10"}
    other = convert({"Move": {"location": {"location_type": "Other"}}}, "jump up and down .")
    assert other.action_dict["action"] == {"action_type": "OTHER"}


def test_the_text_is_joined_as_people_type_it_and_spans_follow_the_words():
    text, ranges = detokenize("answer the man 's question , do n't wait  now .")
    assert text == "answer the man's question, don't wait now."
    assert ranges[9] is None  # the empty word of the double space still counts
    _, words, index = align("answer the man 's question , do n't wait  now .")
    assert words == ["answer", "the", "man's", "question", "don't", "wait", "now"]
    assert index[2] == index[3] == (2, 2) and index[5] is None and index[6] == index[7] == (4, 4)
    assert index[10] == (6, 6)
    c = convert({"OtherAction": {"action_reference_object": {"has_name_": [4, 4]}}}, "come  build a house .")
    assert span_text(c.words, c.action_dict["action"]["reference_object"]["has_name"]) == "house"


def test_questions_get_the_kind_their_words_say():
    assert question_type(tokenize("are there any monsters nearby")) == "SCENE"
    assert question_type(tokenize("how many diamonds do you have")) == "INVENTORY"
    assert question_type(tokenize("what is 2 + 2")) == "OTHER"
    assert question_type(tokenize("are you hungry")) == "VITALS"


def test_what_is_not_the_2019_format_is_refused():
    with pytest.raises(ConversionError, match="one top-level key"):
        convert({"Fly": {}}, "fly away")
    with pytest.raises(ConversionError, match="span"):
        convert({"Destroy": {"action_reference_object": {"has_name_": "house"}}}, "destroy the house")
