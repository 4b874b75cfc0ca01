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
