"""The assistant's memory on a file: opening it again keeps what it holds."""

from mineclip.assist.memory import Memory


def test_a_memory_file_opened_again_keeps_its_places_chats_tasks_and_tags(tmp_path):
    path = str(tmp_path / "memory.sqlite")
    m = Memory(path)
    m.name_place("home", (3, 4), 0)
    m.log_chat("user", "hi", 0)
    tid = m.add_task(1, "collect wood", {"dialogue_type": "NOOP"}, 0)
    m.end_task(tid, "done", 5)
    before = m.snapshot(include_chats=True)
    m.close()
    again = Memory(path)  # raised "table places already exists" before
    assert again.snapshot(include_chats=True) == before and again.place("home") == (3, 4)
    again.log_chat("agent", "hello", 6)
    assert again.chats() == [("user", "hi"), ("agent", "hello")]
    again.close()
