"""References people use (issue 61, part 3): relative to the agent's body in either view, selectors,
coreference, and the objects the agent built; schema 1.2.0 and the rule-based layer that adds them
(`references.py`)."""

import pytest

from mineclip.assist.intent import Target, interpret, on_side, side_of, turned
from mineclip.assist.memory import Memory, shape_of_tiles
from mineclip.assist.parser.infer import cached_parser
from mineclip.assist.references import resolve
from mineclip.assist.schema import check
from mineclip.assist.session import AssistSession
from mineclip.assist.tokens import tokenize

SEED = 1000


def _parse(text):
    d = resolve(cached_parser(None), text).action_dict
    assert check(d, len(tokenize(text))) == [], d
    return d


def _ref(d):
    a = d["action"]
    return a.get("reference_object") or a["location"]["reference_object"]


@pytest.mark.parametrize("text, key, value", [
    ("go to the tree in front of you", "relative_to_agent", "FRONT"),
    ("chop the tree to your left", "relative_to_agent", "LEFT"),
    ("chop the tree on your right", "relative_to_agent", "RIGHT"),
    ("go to the cow behind you", "relative_to_agent", "BEHIND"),
    ("go to the nearest cow", "selector", {"order": "NEAREST", "rank": 1}),
    ("go to the farthest tree", "selector", {"order": "FARTHEST", "rank": 1}),
    ("fight the second cow", "selector", {"order": "NEAREST", "rank": 2}),
    ("go to the biggest lake", "selector", {"order": "BIGGEST", "rank": 1}),
    ("destroy it", "coref", "LAST"),
    ("go to that one", "coref", "LAST"),
    ("destroy that", "coref", "LAST"),
    ("destroy the wall you built", "built_by_agent", True),
    ("destroy the one you just placed", "built_by_agent", True),
])
def test_the_rules_add_the_reference_keys_the_words_say(text, key, value):
    ref = _ref(_parse(text))
    assert ref[key] == value
    assert set(ref) - {"has_name", key} == set()  # nothing else made up


def test_turns_directions_of_the_body_and_naming_a_built_object_are_read():
    assert _parse("turn around") == {"dialogue_type": "HUMAN_GIVE_COMMAND",
                                     "action": {"action_type": "TURN", "direction": "AROUND"}}
    d = _parse("turn around and chop the tree")
    words = tokenize("turn around and chop the tree")
    assert d["turn"] == "AROUND" and d["action"]["action_type"] == "COLLECT"
    assert words[d["action"]["reference_object"]["has_name"][1][0]] == "tree"  # spans moved past the turn
    loc = _parse("walk 3 steps to your left")["action"]["location"]
    assert loc == {"location_type": "DIRECTION", "direction": "LEFT", "relative_to": "AGENT", "steps": [0, [1, 1]]}
    up = _parse("call that wall home")["upsert"]
    assert up["reference_object"]["built_by_agent"] is True and up["has_name"] == [0, [3, 3]]
    assert "reference_object" not in _parse("call this spot home")["upsert"]


def test_the_schema_holds_the_new_keys_and_refuses_wrong_values():
    ref = {"has_name": [0, [2, 2]], "relative_to_agent": "LEFT", "selector": {"order": "FARTHEST", "rank": 2},
           "coref": "LAST", "built_by_agent": True}
    cmd = {"dialogue_type": "HUMAN_GIVE_COMMAND", "turn": "LEFT", "action": {"action_type": "FIGHT",
                                                                          "reference_object": ref}}
    assert check(cmd, 3) == []
    for bad, where in ((dict(ref, relative_to_agent="UP"), "relative_to_agent"),
                       (dict(ref, selector={"order": "NEAREST", "rank": 0}), "rank"),
                       (dict(ref, selector={"order": "NEAREST"}), "missing 'rank'"),
                       (dict(ref, built_by_agent=False), "built_by_agent"),
                       (dict(ref, colour="red"), "unexpected key 'colour'")):
        errors = check({**cmd, "action": {"action_type": "FIGHT", "reference_object": bad}}, 3)
        assert any(where in e for e in errors), (bad, errors)
    assert check({**cmd, "turn": "UP"}, 3)
    assert check({"dialogue_type": "HUMAN_GIVE_COMMAND", "action": {"action_type": "TURN"}}) != []


def test_sides_are_the_agents_not_the_screens():
    # facing down the screen, the agent's left is the screen's right
    assert side_of(1, 0, (0, 1)) == "LEFT" and side_of(-1, 0, (0, 1)) == "RIGHT" and side_of(1, 3, (0, 1)) == "LEFT"
    assert on_side(1, 3, (0, 1), "FRONT") and on_side(1, 3, (0, 1), "LEFT") and not on_side(1, 3, (0, 1), "RIGHT")
    assert not on_side(1, -3, (0, 1), "LEFT") and on_side(1, -3, (0, 1), "BEHIND")
    assert side_of(-1, 0, (0, -1)) == "LEFT" and side_of(0, 2, (0, 1)) == "FRONT" and side_of(0, -3, (0, 1)) == "BEHIND"
    assert side_of(0, -1, (1, 0)) == "LEFT" and side_of(0, 0, (1, 0)) is None
    assert turned((0, 1), "AROUND") == (0, -1) and turned((0, 1), "LEFT") == (1, 0) and turned((0, 1), None) == (0, 1)


def _target(s, text):
    d = _parse(text)
    out = interpret(d, tokenize(text), s.ex)
    return out.target if hasattr(out, "target") else out


@pytest.mark.parametrize("view", ["top", "first_person"])
def test_to_your_left_follows_the_facing_in_either_view(view):
    # two trees ahead, one each side of the line of sight (in view in first person too)
    init = {"place": [{"what": "tree", "at": [1, 2]}, {"what": "tree", "at": [-1, 2]}], "facing": [0, 1]}
    s = AssistSession(SEED, init=init, view=view)  # facing down the screen: the agent's left is the screen's right
    x, y = s.ex.pos
    assert {(x + 1, y + 2), (x - 1, y + 2)} <= {(x + dx, y + dy) for dx, dy in s.ex.state.view["tree"]}
    assert _target(s, "go to the tree on your left").pos == (x + 1, y + 2)
    assert _target(s, "go to the tree on your right").pos == (x - 1, y + 2)
    out = s.send("go to the tree on your left")
    assert out["success"] is True and out["steps"] > 0
    assert (s.ex.pos[0] + s.ex.facing[0], s.ex.pos[1] + s.ex.facing[1]) == (x + 1, y + 2)


def test_turn_around_and_what_is_in_front_is_after_the_turn_in_first_person():
    s = AssistSession(SEED, init={"place": [{"what": "tree", "at": [0, -2]}], "facing": [0, 1]}, view="first_person")
    x, y = s.ex.pos
    out = s.send("turn around")
    assert out["success"] is True and s.ex.facing == (0, -1) and s.ex.pos == (x, y)  # turned on the spot
    s.send("turn around")
    assert s.ex.facing == (0, 1)
    assert _target(s, "turn around and go to the tree in front of you").pos == (x, y - 2)
    out = s.send("turn around and go to the tree in front of you")
    assert out["success"] is True and s.ex.pos == (x, y - 1) and s.ex.facing == (0, -1)


def test_behind_you_in_first_person_says_to_turn_around():
    s = AssistSession(SEED, init={"facing": [0, 1]}, view="first_person")
    out = s.send("go to the cow behind you")
    assert out["steps"] == 0 and "turn around" in out["reply"]


def test_selectors_pick_by_distance_and_by_size():
    s = AssistSession(SEED)
    trees = sorted(s.ex.memory.seen("tree"), key=lambda p: (abs(p[0] - s.ex.pos[0]) + abs(p[1] - s.ex.pos[1]), p))
    assert len(trees) >= 3
    assert _target(s, "go to the nearest tree").pos == trees[0]
    assert _target(s, "go to the second tree").pos == trees[1]
    assert _target(s, "go to the farthest tree").pos == trees[-1]
    lake = _target(s, "go to the biggest lake")
    puddle = _target(s, "go to the smallest pond")
    assert lake.kind == puddle.kind == "water" and lake.pos != puddle.pos
    assert "only know of" in _target(s, "go to the fifth cow").reply
    assert "same size" in _target(s, "go to the biggest cow").reply


def test_it_is_what_the_last_command_was_about():
    s = AssistSession(SEED)
    assert "haven't talked about anything" in s.send("go to it")["reply"]
    far = _target(s, "go to the farthest tree").pos
    assert s.send("go to the farthest tree")["success"]
    assert _target(s, "go to it") == Target(kind="tree", pos=far, side="(the one we talked about)")


def test_built_objects_are_remembered_with_their_shape_and_merge_when_they_touch():
    m = Memory()
    a = m.add_built([(3, 3), (4, 3)], "stone", 1, 10)
    assert m.built()[0]["shape"] == "row"
    m.name_built(a, "home")
    b = m.add_built([(5, 3)], "stone", 2, 20)  # touches the row: one object, the name kept
    assert [o["id"] for o in m.built()] == [b] and m.built_named("home")["tiles"] == [(3, 3), (4, 3), (5, 3)]
    m.add_built([(9, 9)], "stone", 3, 30)
    assert len(m.built()) == 2
    m.prune_built(lambda t, block: t != (9, 9))
    assert len(m.built()) == 1
    assert [shape_of_tiles(t) for t in ([(0, 0)], [(0, 0), (0, 1)], [(0, 0), (1, 0)], [(0, 0), (1, 0), (1, 1)])] == \
        ["block", "wall", "row", "structure"]


def test_a_built_wall_can_be_named_gone_to_and_destroyed():
    s = AssistSession(SEED)
    assert s.send("build a row of 3 stones")["success"]
    [row] = s.memory.built()
    assert row["shape"] == "row" and row["block"] == "stone" and len(row["tiles"]) == 3
    assert "is now 'home'" in s.send("call that row home")["reply"]
    assert s.memory.built_named("home")["id"] == row["id"]
    s.send("walk 5 steps right")
    out = s.send("go to home")
    assert out["success"] is True and min(abs(s.ex.pos[0] - x) + abs(s.ex.pos[1] - y) for x, y in row["tiles"]) <= 1
    out = s.send("destroy the row you built")
    assert out["success"] is True and all(s.ex.env.world[t][0] != "stone" for t in row["tiles"])
    assert s.memory.built() == []
    assert "haven't built any" in s.send("destroy the wall you built")["reply"]
