"""The labelling app's HTTP surface: pages and assets of its own, files only from the set's folder,
labels and ratings stored, and every malformed request a 4xx with a message that changes nothing."""

import os
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mineclip.label.app import create_app
from mineclip.label.items import read_set
from mineclip.label.session import LabelSession
from mineclip.label.storage import LabelStore
from mineclip.tasks.ratings import load_ratings


@pytest.fixture
def session(fresh_set, tmp_path):
    s = read_set(fresh_set)
    return LabelSession(s, LabelStore(tmp_path / "labels.jsonl", s), None, tmp_path / "ratings.jsonl")


@pytest.fixture
def client(session):
    return TestClient(create_app(session), base_url="http://127.0.0.1")


def test_pages_and_their_assets_come_from_the_app_with_a_self_only_policy(client):
    for path in ("/", "/tasks", "/static/label.js", "/static/common.js", "/static/tasks.js", "/static/app.css"):
        r = client.get(path)
        assert r.status_code == 200, path
        assert r.headers["content-security-policy"].startswith("default-src 'self'")
    page = client.get("/").text
    for name in ("Success", "Failure", "Unsure", "Skip", "Keyboard shortcuts"):
        assert f">{name}<" in page
    assert "http://" not in page and "https://" not in page  # nothing from the internet


def test_requests_for_another_host_are_refused_when_bound_locally(client):
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"host": "localhost:8765"}).status_code == 200


def test_files_of_the_set_are_served_and_nothing_outside_it(client, session, tmp_path):
    media = session.set.items[0].media
    assert client.get(f"/files/{media}").content == (session.set.root / media).read_bytes()
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    os.symlink(secret, session.set.root / "videos" / "link.txt")
    os.symlink(tmp_path, session.set.root / "dirlink")
    for path in ("/files/..%2Fsecret.txt", "/files/videos%2F..%2F..%2Fsecret.txt", "/files/%2Fetc%2Fpasswd",
                 "/files//etc/passwd", f"/files/{secret}", "/files/videos/link.txt", "/files/dirlink/secret.txt",
                 "/files/..%5Csecret.txt",
                 "/files/videos%00.mp4"):
        r = client.get(path)
        assert r.status_code == 403, (path, r.status_code)
        assert "refused" in r.json()["detail"]
    assert client.get("/files/videos/none.mp4").status_code == 404
    assert client.get("/files/videos").status_code == 404


def test_items_and_frames(client, session):
    r = client.get("/api/items/0", params={"labeller": "ana"})
    item = r.json()
    assert r.status_code == 200 and item["frames"] > 16 and item["width"] == 256 and item["decision"] is None
    png = client.get(f"/api/items/0/frames/{item['frames'] - 1}.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"
    assert client.get(f"/api/items/0/frames/{item['frames']}.png").status_code == 404
    assert client.get("/api/items/99").status_code == 404
    assert client.get("/api/items/x").status_code == 422
    (session.set.root / session.set.items[1].media).write_bytes(b"broken")
    r = client.get("/api/items/1")
    assert r.status_code == 422 and "cannot show item 1" in r.json()["detail"]


def test_a_label_is_stored_and_shown_when_the_item_is_opened_again(client, session):
    first = session.set.items[0].id
    r = client.post("/api/labels", json={"id": first, "decision": "success", "labeller": "ana", "client": "tab1"})
    assert r.status_code == 200 and r.json()["progress"]["labelled"] == 1
    r = client.post("/api/labels", json={"id": first, "decision": "failure", "labeller": "ana"})
    item = client.get("/api/items/0", params={"labeller": "ana"}).json()
    assert item["decision"] == "failure" and item["history"] == ["success", "failure"]
    s = client.get("/api/session", params={"labeller": "ana"}).json()
    assert s["total"] == 8 and s["order"] == "set" and s["items"][0]["decision"] == "failure"
    assert s["progress"]["tasks"][0] == {"task": "harvest_wood", "prompt": "chop a tree", "total": 4, "labelled": 1,
                                         "unsure": 0, "skipped": 0, "people": 1, "successes": 0, "failures": 1}
    assert client.get("/api/session").json()["items"][0]["decision"] is None  # another (no) labeller


@pytest.mark.parametrize("kwargs", [
    {"content": b"not json", "headers": {"content-type": "application/json"}},
    {"content": b'{"id": "x"}', "headers": {"content-type": "text/plain"}},
    {"json": {"decision": "success", "labeller": "ana"}},
    {"json": {"id": "ID", "decision": "success", "labeller": "ana", "extra": 1}},
    {"json": {"id": 3, "decision": "success", "labeller": "ana"}},
    {"json": {"id": "ID", "decision": "great", "labeller": "ana"}},
    {"json": {"id": "no-such-id", "decision": "success", "labeller": "ana"}},
    {"json": {"id": "ID", "decision": "success", "labeller": "<script>"}},
    {"json": {"id": "ID", "decision": "success", "labeller": ""}},
    {"json": ["ID", "success", "ana"]},
])
def test_malformed_label_requests_get_a_4xx_with_a_message_and_change_nothing(client, session, kwargs):
    item = session.set.items[0].id
    client.post("/api/labels", json={"id": item, "decision": "success", "labeller": "bo"})
    before = (session.store.history.read_bytes(), session.store.out.read_bytes())
    if "json" in kwargs and isinstance(kwargs["json"], dict) and kwargs["json"].get("id") == "ID":
        kwargs = {"json": {**kwargs["json"], "id": item}}
    r = client.post("/api/labels", **kwargs)
    assert 400 <= r.status_code < 500 and r.json()["detail"]
    assert (session.store.history.read_bytes(), session.store.out.read_bytes()) == before


def test_ratings_are_appended_for_the_suite_to_read(client, session, tmp_path):
    body = {"task_id": "harvest_wood", "rater": "ana", "intricacy": 1, "creativity": 0.5, "novelty": 2}
    r = client.post("/api/ratings", json=body)
    assert r.status_code == 200
    client.post("/api/ratings", json={**body, "rater": "bo", "intricacy": 3})
    assert load_ratings(tmp_path / "ratings.jsonl") == {
        "harvest_wood": {"intricacy": 2.0, "creativity": 0.5, "novelty": 2.0}}
    tasks = {t["task"]: t for t in client.get("/api/tasks", params={"labeller": "ana"}).json()["tasks"]}
    assert tasks["harvest_wood"]["my_rating"] == {"intricacy": 1.0, "creativity": 0.5, "novelty": 2.0}
    assert tasks["harvest_wood"]["raters"] == 2 and tasks["lay_stone_row"]["rating"] is None
    before = (tmp_path / "ratings.jsonl").read_bytes()
    for bad in ({**body, "novelty": 6}, {**body, "novelty": -1}, {**body, "task_id": "hunt_cow"},
                {**body, "rater": ""}, {**body, "novelty": "high"}, {k: v for k, v in body.items() if k != "novelty"}):
        r = client.post("/api/ratings", json=bad)
        assert 400 <= r.status_code < 500 and r.json()["detail"], bad
    assert (tmp_path / "ratings.jsonl").read_bytes() == before


def test_ratings_go_beside_the_labels_never_into_the_package_and_any_task_of_the_set_is_rated(tmp_path, rng):
    import mineclip
    from mineclip.data.video import write_mp4

    write_mp4(tmp_path / "clips" / "a.mp4", rng.integers(0, 255, (3, 32, 48, 3), dtype="uint8"))
    s = read_set(tmp_path / "clips", prompt="build a house")
    session = LabelSession(s, LabelStore(tmp_path / "people" / "labels.jsonl", s))  # no --ratings
    c = TestClient(create_app(session), base_url="http://127.0.0.1")
    r = c.post("/api/ratings", json={"task_id": "build a house", "rater": "ana", "intricacy": 1, "creativity": 1,
                                     "novelty": 1})
    assert r.status_code == 200 and r.json()["tasks"]["tasks"][0]["raters"] == 1
    assert session.ratings_path == tmp_path / "people" / "labels.ratings.jsonl"
    assert load_ratings(session.ratings_path) == {"build a house": {"intricacy": 1.0, "creativity": 1.0,
                                                                    "novelty": 1.0}}
    package = Path(mineclip.__file__).resolve().parent
    assert not list(package.rglob("*ratings*.jsonl"))
    assert c.get("/api/tasks").json()["ratings_file"] == "<labels>/labels.ratings.jsonl"
