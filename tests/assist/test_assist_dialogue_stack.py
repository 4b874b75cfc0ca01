"""The dialogue stack (issue 61, part 4): a request paused by a clarifying question and resumed by the
answer, a confirmation of an ambiguous reference, a new request pushed above a waiting one, and
'stop', 'undo' and 'resume' acting on the newest thing on the stack."""

from mineclip.assist.session import AssistSession

SEED = 1000
# facing up: two trees at the same distance, one on the agent's left, one on its right
TWO_TREES = {"place": [{"what": "tree", "at": [-1, 0]}, {"what": "tree", "at": [1, 0]}], "facing": [0, -1]}


def _faces(s, tile):
    return (s.ex.pos[0] + s.ex.facing[0], s.ex.pos[1] + s.ex.facing[1]) == tile


def test_a_confirmation_moves_on_to_the_next_candidate_when_the_answer_is_no():
    s = AssistSession(SEED, init=TWO_TREES)
    x, y = s.ex.pos
    ask = s.send("go to the tree")
    assert ask["reply"].startswith("Do you mean the tree on your left?") and ask["steps"] == 0
    nxt = s.send("no")
    assert nxt["reply"] == "Then the tree on your right?" and nxt["clarification"] and nxt["steps"] == 0
    out = s.send("yes")
    assert out["success"] is True and _faces(s, (x + 1, y)) and s.manager.stack == []
    s.send("go to the tree")
    s.send("no")
    assert s.send("no")["reply"] == "OK, I won't." and s.manager.stack == []


def test_a_new_request_is_pushed_above_a_waiting_question_which_is_asked_again():
    s = AssistSession(SEED, init=TWO_TREES)
    x, y = s.ex.pos
    s.send("go to the tree")
    other = s.send("how much wood do you have")
    assert other["reply"].startswith("I have 0 wood.") and "Still waiting about 'go to the tree'" in other["reply"]
    assert len(s.manager.stack) == 1 and other["stack"][0]["kind"] == "question"
    s.send("go to the water")  # a command carried out while the question waits below
    assert len(s.manager.stack) == 1
    out = s.send("the right one")
    assert out["success"] is True and _faces(s, (x + 1, y)) and s.manager.stack == []


def test_stop_undo_and_resume_act_on_the_newest_thing_on_the_stack():
    s = AssistSession(SEED, max_steps=15)
    long = s.send("keep chopping trees until it is night")
    assert long["pending"] and len(s.open) == 1
    ask = s.send("go to the lava")  # a question (none seen), newer than the running loop
    assert ask["clarification"] == "I don't see any lava: should I explore?"
    assert [e["kind"] for e in s.stack()] == ["question", "command"]
    again = s.send("resume")
    assert again["reply"].startswith("Back to 'go to the lava': I don't see any lava")
    undo = s.send("undo")  # withdraws the request not yet acted on, not the loop's work
    assert undo["reply"].startswith("OK, forget 'go to the lava'") and s.manager.stack == [] and len(s.open) == 1
    s.send("go to the lava")
    stop = s.send("stop")  # 'stop' is a 'no' to the waiting question: the newest thing
    assert s.manager.stack == [] and len(s.open) == 1 and stop["steps"] == 0
    stop = s.send("stop")  # then the loop
    assert stop["reply"].startswith("Stopped: cancelled") and s.open == [] and s.ex.stack == []
    assert "wasn't doing anything" in s.send("stop")["reply"]


def test_stop_cancels_the_newest_command_and_leaves_the_one_it_interrupted():
    s = AssistSession(SEED, max_steps=10)
    s.send("keep chopping trees until it is night")
    s.send("collect 5 stone")  # long: still running when the turn ends
    assert len(s.open) == 2
    out = s.send("stop")
    assert "cancelled 'collect 5 stone'" in out["reply"] and "Still on the stack" in out["reply"]
    assert [c.text for c in s.open] == ["keep chopping trees until it is night"]
    assert s.open[0].task.status == "running" and s.ex.stack[0] is s.open[0].task
    resumed = s.send("resume")
    assert resumed["steps"] > 0 and "Carrying on" in resumed["reply"]
    everything = s.send("stop everything")
    assert everything["reply"].startswith("Stopped everything") and s.open == [] and s.ex.stack == []
