"""Every kind of bad input gets a clear reply, and the world and the memory stay as they were."""

import pytest
from helpers.assist import memory_fingerprint, world_fingerprint

from mineclip.assist.session import AssistSession

BAD = {
    "empty": ("", "didn't say anything"),
    "whitespace": ("   \n\t  ", "didn't say anything"),
    "10,000 characters": ("a" * 10_000, "10,000 characters"),
    "10,000 characters of commands": ("chop a tree " * 834, "characters long"),
    "non-English (accents)": ("ve al árbol y corta la madera, por favor señor", "only understand English"),
    "non-English (Cyrillic)": ("иди к дереву", "only understand English"),
    "non-English (Latin script)": ("geh zum Baum und hol Holz", ""),
    "nonsense": ("blorp zizzle fnord wug", "didn't understand"),
    "offensive": ("you stupid piece of shit", "friendly"),
    "fly to the moon": ("fly to the moon", ""),
    "build a diamond house": ("build a diamond house", "flat"),
    "diamond blocks": ("place a diamond block next to the tree", "can't place"),
    "never seen": ("go to the zorblax", "don't know what 'zorblax' is"),
    "unknown recipe": ("craft a golden crown", ""),
    "undo with nothing done": ("undo", "nothing to undo"),  # chopping a tree cannot be undone
    "too many": ("collect 50 wood", "at most 9"),
    "not text": (None, "expected a text message"),
}


@pytest.fixture(scope="module")
def session():
    s = AssistSession(1000)
    assert s.send("chop a tree")["success"]  # a world and a memory with something in them
    return s


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_gets_a_clear_reply_and_changes_nothing(session, case):
    text, phrase = BAD[case]
    world, memory = world_fingerprint(session), memory_fingerprint(session)
    out = session.send(text)
    assert len(out["reply"]) > 15 and phrase.lower() in out["reply"].lower(), out["reply"]
    assert out["success"] is False and out["steps"] == 0 and out["tasks"] == []
    assert world_fingerprint(session) == world and memory_fingerprint(session) == memory


def test_refused_messages_are_not_logged_but_understood_ones_are(session):
    n = len(session.memory.chats())
    session.send("")
    assert len(session.memory.chats()) == n
    session.send("blorp zizzle fnord wug")
    assert session.memory.chats()[-2:][0] == ("user", "blorp zizzle fnord wug")
