from helpers.assist import task_labels

from mineclip.assist.session import AssistSession

SEED = 1000  # a 'play' world: trees, water and a cow in view at the start


def test_a_command_becomes_a_task_that_changes_the_world():
    s = AssistSession(SEED)
    out = s.send("chop a tree")
    assert out["dialogue_type"] == "HUMAN_GIVE_COMMAND" and out["action_dict"]["action"]["action_type"] == "COLLECT"
    assert out["success"] is True and out["steps"] > 0 and s.ex.state.inventory["wood"] == 1
    assert out["tasks"][0]["status"] == "done" and out["judge"]["score"] is None
    assert "Done" in out["reply"]


def test_missing_prerequisites_push_the_sub_tasks_that_obtain_them():
    s = AssistSession(SEED)
    assert all(v == 0 for k, v in s.ex.state.inventory.items() if k not in ("health", "food", "drink", "energy"))
    out = s.send("place a stone")
    labels = task_labels(out["tasks"][0])
    assert labels[1:5] == ["first collect 3 wood", "first place a table", "first craft a wood pickaxe",
                           "first collect 1 stone"]
    assert out["success"] is True and "First I had to" in out["reply"]


def test_undo_reverts_the_last_placement_and_then_has_nothing_left():
    s = AssistSession(SEED)
    s.send("place a stone")
    placed = s.memory.tasks()[-1]["effects"]["placed"]
    assert len(placed) == 1 and s.ex.env.world[tuple(placed[0][:2])][0] == "stone"
    out = s.send("undo that")
    assert out["success"] is True and s.ex.env.world[tuple(placed[0][:2])][0] != "stone"
    assert "nothing to undo" in s.send("undo")["reply"].lower()


def test_undo_says_so_when_crafter_cannot_revert():
    s = AssistSession(SEED)
    assert s.send("place a crafting table")["success"]
    out = s.send("undo")
    assert out["steps"] == 0 and "no way to remove a table" in out["reply"]


def test_a_loop_stops_the_step_its_condition_holds():
    s = AssistSession(SEED)
    out = s.send("keep chopping trees until you have 3 wood")
    assert out["action_dict"]["action"]["action_type"] == "LOOP"
    assert out["success"] is True and s.ex.state.inventory["wood"] == 3
    assert len(out["tasks"][0]["subtasks"]) == 3


def test_a_new_command_interrupts_a_long_one_which_resumes_until_stopped():
    s = AssistSession(SEED, max_steps=15)
    first = s.send("keep chopping trees until it is night")
    assert first["pending"] and first["steps"] == 15 and not first["success"]
    assert "chopping" in s.send("what are you doing")["reply"] or "collect" in s.send("what are you doing")["reply"]
    second = s.send("drink some water")
    assert second["success"] is True and second["steps"] <= 15
    assert len(s.open) == 1 and s.open[0].task.status == "running"  # the loop carries on below
    stop = s.send("stop")
    assert "Stopped" in stop["reply"] and s.ex.stack == [] and not s.open
    assert s.done[-1].task.status == "cancelled"


def test_an_ambiguous_reference_asks_to_confirm_one_and_the_answer_resolves_it():
    # facing up, the agent's left is the screen's left
    s = AssistSession(SEED, init={"place": [{"what": "tree", "at": [-1, 0]}, {"what": "tree", "at": [1, 0]}],
                                  "facing": [0, -1]})
    start = s.ex.pos
    ask = s.send("go to the tree")
    assert ask["clarification"] and "on your left" in ask["reply"] and "on your right" in ask["reply"]
    assert ask["steps"] == 0 and s.manager.stack
    out = s.send("the left one")
    assert out["success"] is True and not s.manager.stack
    assert (s.ex.pos[0] + s.ex.facing[0], s.ex.pos[1] + s.ex.facing[1]) == (start[0] - 1, start[1])


def test_a_thing_never_seen_asks_whether_to_explore():
    s = AssistSession(1001)  # no water in sight at the start
    ask = s.send("go to the water")
    assert ask["clarification"] == "I don't see any water: should I explore?"
    assert s.send("no")["reply"] == "OK, I won't." and s.ex.total_steps == 0
    s.send("go to the water")
    out = s.send("yes")
    assert out["success"] is True and out["steps"] > 0


def test_questions_are_answered_from_memory_and_naming_a_place_lets_you_go_back():
    s = AssistSession(SEED)
    assert s.send("how much wood do you have")["reply"] == "I have 0 wood."
    assert "tree" in s.send("what do you see")["reply"]
    assert "OK, this spot" in s.send("call this spot home")["reply"]
    home = s.ex.pos
    assert s.send("chop two trees")["success"]
    assert s.ex.pos != home and s.send("how many logs have you got")["reply"] == "I have 2 wood."
    assert "from me" in s.send("where is home")["reply"]
    back = s.send("go home")
    assert back["success"] is True and s.ex.pos == home
    assert "health" in s.send("how are you feeling")["reply"].lower()


def test_feedback_is_filed_on_the_last_task():
    s = AssistSession(SEED)
    s.send("chop a tree")
    assert "Thanks" in s.send("good job buddy")["reply"]
    assert ("task:1", "has_feedback", "POSITIVE") in s.memory.triples()


def test_ground_truth_says_no_when_the_world_did_not_change_as_asked():
    s = AssistSession(SEED, init={"place": [{"what": "stone", "at": [-1, 0]}]})
    out = s.send("walk 4 steps left")
    assert out["success"] is False and out["ground_truth"]["success"] is False
    assert "couldn't" in out["reply"] and "blocked by stone" in out["reply"]


def test_sleeping_is_refused_while_not_tired():
    out = AssistSession(SEED).send("go to sleep")
    assert out["steps"] == 0 and "not tired" in out["reply"]
