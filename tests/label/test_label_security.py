"""What a hostile web page or a careless request cannot do to the labelling app: post without JSON's
Content-Type or from another site, send a huge body, reach it under another host name when it
listens on a loopback address, read files of the set's folder that are not its media, learn
absolute paths of the machine, or have a fault of the server passed off as its own mistake."""

import json
import shutil

import pytest
from fastapi.testclient import TestClient

from mineclip.label.app import MAX_BODY, allowed_hosts, create_app, host_name
from mineclip.label.items import read_set
from mineclip.label.session import LabelSession
from mineclip.label.storage import LabelStore


@pytest.fixture
def session(fresh_set):
    # the labels beside the set, as `mineclip label evalset.jsonl --labels labels.jsonl` in its folder
    s = read_set(fresh_set)
    return LabelSession(s, LabelStore(fresh_set.parent / "labels.jsonl", s), None, fresh_set.parent / "ratings.jsonl")


@pytest.fixture
def client(session):
    return TestClient(create_app(session), base_url="http://127.0.0.1:8765")


def _label(session) -> bytes:
    return json.dumps({"id": session.set.items[0].id, "decision": "success", "labeller": "ana"}).encode()


def _state(session) -> tuple:
    return session.store.history.read_bytes(), session.store.out.read_bytes()


@pytest.mark.parametrize("content_type", [None, "text/plain", "text/plain;charset=UTF-8",
                                          "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
def test_a_post_that_is_not_json_is_refused_whatever_fastapi_would_parse(client, session, content_type):
    # what fetch(url, {method: "POST", mode: "no-cors", body: new Blob([json])}) sends: no preflight
    before = _state(session)
    headers = {"content-type": content_type} if content_type else {}
    for path, body in (("/api/labels", _label(session)), ("/api/chat", b"{}"),
                       ("/api/ratings", json.dumps({"task_id": "harvest_wood", "rater": "ana", "intricacy": 1,
                                                    "creativity": 1, "novelty": 1}).encode())):
        r = client.post(path, content=body, headers=headers)
        assert r.status_code == 415 and "application/json" in r.json()["detail"], (path, r.status_code)
    assert _state(session) == before and not (session.set.root / "ratings.jsonl").exists()
    assert client.post("/api/labels", content=_label(session),
                       headers={"content-type": "application/json; charset=utf-8"}).status_code == 200


@pytest.mark.parametrize("headers", [{"origin": "http://evil.example"}, {"origin": "null"},
                                     {"origin": "http://127.0.0.1:9999"}, {"sec-fetch-site": "cross-site"},
                                     {"sec-fetch-site": "same-site"},
                                     {"origin": "http://127.0.0.1:8765", "sec-fetch-site": "cross-site"}])
def test_a_post_from_another_site_is_refused(client, session, headers):
    before = _state(session)
    r = client.post("/api/labels", content=_label(session), headers={"content-type": "application/json", **headers})
    assert r.status_code == 403 and "another" in r.json()["detail"]
    assert _state(session) == before
    same = {"content-type": "application/json", "origin": "http://127.0.0.1:8765", "sec-fetch-site": "same-origin"}
    assert client.post("/api/labels", content=_label(session), headers=same).status_code == 200


def test_a_body_over_the_cap_is_refused_with_413(client, session):
    before = _state(session)
    huge = json.dumps({"text": "x" * (MAX_BODY + 10)}).encode()
    r = client.post("/api/chat/none/messages", content=huge, headers={"content-type": "application/json"})
    assert r.status_code == 413 and f"at most {MAX_BODY} bytes" in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(MAX_BODY // 65536 + 2):
            yield b" " * 65536

    r = client.post("/api/labels", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and _state(session) == before


def test_host_names_follow_the_address_the_server_listens_on():
    for bound in ("127.0.0.1", "127.0.0.2", "::1", "localhost"):
        assert {"127.0.0.1", "localhost", "::1"} <= set(allowed_hosts(bound)), bound
    assert allowed_hosts("0.0.0.0") is None and allowed_hosts("::") is None and allowed_hosts("192.168.1.5") is None
    assert [host_name(h) for h in ("localhost:8765", "[::1]:80", "[::1]", "127.0.0.1", "Example.COM:1")] == [
        "localhost", "::1", "::1", "127.0.0.1", "example.com"]


def test_a_loopback_server_answers_only_loopback_names_and_another_one_any(session):
    ipv6 = TestClient(create_app(session, bound="::1"), base_url="http://127.0.0.1:8765")  # Starlette 0.40's
    assert ipv6.get("/api/progress", headers={"host": "[::1]:8765"}).status_code == 200  # client reads no [::1]
    assert ipv6.get("/api/progress", headers={"host": "localhost:8765"}).status_code == 200
    r = ipv6.get("/api/progress", headers={"host": "attacker.example:8765"})
    assert r.status_code == 400 and "attacker.example" in r.json()["detail"]
    anywhere = TestClient(create_app(session, bound="0.0.0.0"), base_url="http://192.168.1.5:8765")
    assert anywhere.get("/api/progress", headers={"host": "labels.lan:8765"}).status_code == 200


def test_files_serves_the_set_s_media_and_nothing_else_of_its_folder(client, session):
    client.post("/api/labels", content=_label(session), headers={"content-type": "application/json"})
    media = session.set.items[0].media
    assert client.get(f"/files/{media}").content == (session.set.root / media).read_bytes()
    shutil.copy(session.set.root / media, session.set.root / "videos" / "unlisted.mp4")
    (session.set.root / "notes.txt").write_text("private")
    for path in ("labels.history.jsonl", "labels.jsonl", session.set.source.name, "videos/unlisted.mp4",
                 "notes.txt"):
        assert (session.set.root / path).is_file(), path
        r = client.get(f"/files/{path}")
        assert r.status_code == 404 and "not a media file of the set" in r.json()["detail"], path


def test_frames_of_a_frame_folder_are_served_but_not_other_files_in_it(tmp_path, rng):
    from PIL import Image

    folder = tmp_path / "set" / "ep0"
    folder.mkdir(parents=True)
    for i in range(3):
        Image.fromarray(rng.integers(0, 255, (16, 24, 3), dtype="uint8")).save(folder / f"{i:03d}.png")
    (folder / "notes.txt").write_text("private")
    (tmp_path / "set" / "set.jsonl").write_text(json.dumps({"id": "a", "prompt": "chop a tree", "frames": "ep0"}))
    s = read_set(tmp_path / "set" / "set.jsonl")
    c = TestClient(create_app(LabelSession(s, LabelStore(tmp_path / "labels.jsonl", s))), base_url="http://127.0.0.1")
    assert c.get("/files/ep0/001.png").status_code == 200
    assert c.get("/files/ep0/notes.txt").status_code == 404 and c.get("/files/ep0").status_code == 404


def test_the_api_returns_no_absolute_path_of_the_machine(client, session, fresh_set):
    lines = fresh_set.read_text().splitlines()
    fresh_set.write_text("\n".join(lines + [json.dumps({"id": "gone", "prompt": "chop a tree",
                                                        "video": "videos/gone.mp4"})]) + "\n")
    s = read_set(fresh_set)
    assert s.problems and str(s.root) in str(s.problems[0])  # the command line says where; the page does not
    session = LabelSession(s, session.store, None, fresh_set.parent / "ratings.jsonl")
    c = TestClient(create_app(session), base_url="http://127.0.0.1")
    (s.root / s.items[1].media).write_bytes(b"broken")
    root = str(fresh_set.parent.parent)
    replies = [c.get("/api/session"), c.get("/api/tasks"), c.get("/api/items/1"), c.post("/api/chat", json={}),
               c.get("/api/items/99")]
    assert [r.status_code for r in replies] == [200, 200, 422, 200, 404]
    for r in replies:
        assert root not in r.text, r.text
    assert replies[0].json()["set"] == fresh_set.name and replies[0].json()["labels"] == "labels.jsonl"
    assert "<set>/videos/gone.mp4" in replies[0].json()["problems"][0]


def test_a_fault_of_the_server_is_a_500_that_says_so_not_a_4xx(session, monkeypatch):
    c = TestClient(create_app(session), base_url="http://127.0.0.1", raise_server_exceptions=False)
    for error in (ValueError("a bug"), KeyError("a bug"), RuntimeError("a bug")):
        def broken(name, error=error):
            raise error

        monkeypatch.setattr(session, "progress", broken)
        r = c.get("/api/progress")
        assert r.status_code == 500, (error, r.status_code)
        assert r.json()["detail"].startswith("internal error of the labelling server") and "a bug" in r.json()["detail"]
    monkeypatch.undo()
    r = c.post("/api/labels", json={"id": "no-such-id", "decision": "success", "labeller": "ana"})
    assert r.status_code == 400 and "unknown trajectory id" in r.json()["detail"]  # a deliberate refusal stays 4xx
    assert c.get("/api/items/99").status_code == 404
