"""The chat page of the labelling app: talk to the assistant in a fresh world over the JSON API, see
the scene, get a clear reply to bad input, and find each carried-out command recorded as a labelled
trajectory beside the labels."""

import pytest
from fastapi.testclient import TestClient

from mineclip.evaluate.trajectories import read_labels
from mineclip.label.app import create_app
from mineclip.label.items import read_set
from mineclip.label.session import LabelSession
from mineclip.label.storage import LabelStore


@pytest.fixture
def client(fresh_set, tmp_path):
    s = read_set(fresh_set)
    session = LabelSession(s, LabelStore(tmp_path / "labels.jsonl", s), None, tmp_path / "ratings.jsonl")
    return TestClient(create_app(session), base_url="http://127.0.0.1")


def test_the_chat_page_and_its_assets_come_from_the_app(client):
    for path in ("/chat", "/static/chat.js", "/static/chat.css"):
        r = client.get(path)
        assert r.status_code == 200 and r.headers["content-security-policy"].startswith("default-src 'self'"), path
    page = client.get("/chat").text
    assert "http://" not in page and "https://" not in page and "<script>" not in page


def test_a_command_is_carried_out_shown_and_recorded(client, tmp_path):
    chat = client.post("/api/chat", json={"world_seed": 1000}).json()
    assert chat["world_seed"] == 1000 and chat["judge"] is False and "|" in chat["view"]
    out = client.post(f"/api/chat/{chat['chat']}/messages", json={"text": "chop a tree"}).json()
    assert out["success"] is True and out["steps"] > 0 and out["reply"].startswith("Done")
    png = client.get(f"/api/chat/{chat['chat']}/scene.png")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    trajs, problems, lines = read_labels(tmp_path / "labels.chat" / "trajectories.jsonl")
    assert lines == 1 and problems == [] and trajs[0].prompt == "chop a tree" and trajs[0].label == 1


def test_bad_input_gets_a_reply_and_bad_requests_a_4xx(client, tmp_path):
    chat = client.post("/api/chat", json={}).json()["chat"]
    for text in ["", "x" * 10_000, "fly to the moon"]:
        out = client.post(f"/api/chat/{chat}/messages", json={"text": text}).json()
        assert out["reply"] and out["steps"] == 0 and out["success"] is False
    assert not (tmp_path / "labels.chat" / "trajectories.jsonl").exists()
    assert client.post("/api/chat/nosuchchat/messages", json={"text": "hi"}).status_code == 404
    assert client.post(f"/api/chat/{chat}/messages", json={"text": 3}).status_code == 422
    assert client.post(f"/api/chat/{chat}/messages", json={"text": "hi", "x": 1}).status_code == 422
    assert client.post("/api/chat", json={"world_seed": -1}).status_code == 422


def test_a_first_person_chat_keeps_a_question_on_the_stack_until_it_is_answered(client):
    chat = client.post("/api/chat", json={"world_seed": 1000, "view": "first_person"}).json()
    assert chat["world_view"] == "first_person" and "|" in chat["view"]
    url = f"/api/chat/{chat['chat']}/messages"
    ask = client.post(url, json={"text": "go to the stone"}).json()  # two stones in view, as far
    assert ask["clarification"] == "Do you mean the stone in front of you? (There is one on your right too.)"
    assert ask["steps"] == 0 and [e["kind"] for e in ask["stack"]] == ["question"]
    other = client.post(url, json={"text": "how much wood do you have"}).json()
    assert "Still waiting about 'go to the stone'" in other["reply"] and len(other["stack"]) == 1
    assert client.post(url, json={"text": "no"}).json()["reply"] == "Then the stone on your right?"
    done = client.post(url, json={"text": "no"}).json()
    assert done["reply"] == "OK, I won't." and done["stack"] == []
    assert client.post("/api/chat", json={"view": "sideways"}).status_code == 422


def test_the_page_shows_the_judge_as_the_score_the_server_reports(client):
    # the server reports {"score", "threshold", ...} and no verdict (mineclip.assist.judge); the page
    # once read judge.verdict, which never came, and showed "-" for every judged command
    js = client.get("/static/chat.js").text
    assert "j.verdict" not in js and "j.score" in js and "a score, not a verdict" in js
