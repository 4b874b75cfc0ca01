from mineclip.assist.memory import Memory
from mineclip.sim.state import WorldState


def _state(view, pos=(10, 10), step=0, inventory=None):
    return WorldState(step=step, inventory=inventory or {"wood": 2, "health": 9}, achievements={}, pos=pos,
                      facing=(0, 1), facing_kind="grass", sleeping=False, daylight=1.0, view=view)


def test_things_seen_are_remembered_and_forgotten_when_they_change():
    m = Memory()
    m.observe(_state({"tree": [(2, 0), (-3, 1)], "cow": [(1, 1)], "grass": [(0, 1)]}))
    assert sorted(m.seen("tree")) == [(7, 11), (12, 10)] and m.seen("grass") == []
    assert m.nearest("tree", (11, 10)) == (12, 10)
    m.observe(_state({"path": [(2, 0)], "cow": [(2, 2)], "grass": [(-3, 1)]}, step=1))  # trees chopped
    assert m.seen("tree") == [] and m.seen("cow") == [(12, 12)]
    m.observe(_state({"grass": [(0, 1)]}, pos=(40, 40), step=2))  # far away: old sightings stay
    assert m.seen("path") == [(12, 10)] and m.inventory() == {"wood": 2, "health": 9}


def test_places_chats_tasks_and_tags_live_in_sqlite():
    m = Memory()
    m.name_place("home", (3, 4), 0)
    assert m.place("home") == (3, 4) and m.place("base") is None and m.places() == {"home": (3, 4)}
    m.log_chat("user", "hi", 0)
    tid = m.add_task(1, "collect wood", {"dialogue_type": "NOOP"}, 0)
    m.end_task(tid, "done", 5, {"moved_from": [1, 2]})
    m.tag(f"task:{tid}", "has_feedback", "POSITIVE")
    assert m.tasks()[0]["effects"] == {"moved_from": [1, 2]} and m.tasks()[0]["status"] == "done"
    assert ("task:1", "has_feedback", "POSITIVE") in m.triples()
    snap = m.snapshot()
    assert "chats" not in snap and m.snapshot(include_chats=True)["chats"]
    assert type(m.db).__module__ == "sqlite3"
