"""End to end in a real headless browser (Debian's chromium, driven by Playwright): label a small
recorded set by click and by keyboard, go back and change a label, label in a second browser as
another person, kill the server and restart it, find every label there, rate a task, and judge the
result with `mineclip eval`. The screenshot in docs/img/label.png comes from here
(MINECLIP_UPDATE_SCREENSHOTS=1)."""

import http.client
import json
import re
from urllib.parse import urlparse

from playwright import sync_api as playwright
from playwright.sync_api import expect

from mineclip.evaluate.cli import main as eval_main

from helpers.browser import launch, save_screenshot
from helpers.labelling import label_server

PROGRESS = "labelled 4 of 8 by you (1 unsure, 1 skipped)"


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def current(page) -> str:
    return page.locator("body").get_attribute("data-ready")


# Waiting goes through Playwright's assertions, not wait_for_function: the page's Content Security
# Policy forbids evaluating strings, and older Playwright releases evaluate wait_for_function's.
WAIT_MS = 30_000


def wait_moved(page, previous: str) -> str:
    another_id = re.compile(rf"^(?!{re.escape(previous)}$).+")
    expect(page.locator("body")).to_have_attribute("data-ready", another_id, timeout=WAIT_MS)
    return current(page)


def open_as(browser, url: str, name: str):
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start labelling").click()
    page.wait_for_selector("body[data-ready]")
    return page, errors


def counter(page) -> int:
    return int(page.locator("#frame-counter").inner_text().split()[1])


def raw_get(url: str, path: str) -> int:
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", path)  # sent as it is: no client-side normalisation of '..'
    status = conn.getresponse().status
    conn.close()
    return status


def test_label_in_the_browser_kill_restart_and_evaluate(fresh_set, micro_artifact, tmp_path):
    out = tmp_path / "people" / "labels.jsonl"
    ratings = tmp_path / "ratings.jsonl"
    # direct-naive: the judge's score is the mean P of the prompt (a random model's `direct` reward is 0)
    args = [str(fresh_set), "--labels", str(out), "--model", str(micro_artifact), "--mode", "direct-naive",
            "--ratings", str(ratings)]
    given = {}  # trajectory id -> ana's latest decision
    with playwright.sync_playwright() as pw:
        browser = launch(pw)
        with label_server(args) as (proc, url, _):
            assert url.startswith("http://127.0.0.1:")
            page, errors = open_as(browser, url, "ana")
            assert page.get_by_text("the judge is least sure about come first").is_visible()
            assert page.locator("#shortcuts").get_by_text("Unsure").is_visible()

            # the player: speed, pause, frame steps, scrub
            page.locator("#speed").select_option("4")
            expect(page.locator("#frame-counter")).to_have_text(re.compile(r"^frame ([4-9]|[1-9]\d+) /"), timeout=WAIT_MS)
            page.keyboard.press("Space")
            assert page.get_by_role("button", name="Play", exact=True).is_visible()
            k = counter(page)
            page.keyboard.press("ArrowRight")
            assert counter(page) == k + 1
            page.get_by_role("button", name="Previous frame").click()
            assert counter(page) == k
            page.get_by_label("Scrub through the episode").fill("2")
            assert counter(page) == 3
            page.keyboard.press("[")
            assert page.locator("#speed").input_value() == "2"

            # labels by click and by keyboard
            first = current(page)
            plan = [("click", "Success"), ("key", "f"), ("click", "Failure"), ("key", "1"), ("key", "u"),
                    ("click", "Skip")]
            for how, what in plan:
                item = current(page)
                if how == "click":
                    page.get_by_role("button", name=what, exact=True).click()
                else:
                    page.keyboard.press(what)
                given[item] = {"Success": "success", "Failure": "failure", "Skip": "skip", "f": "failure",
                               "1": "success", "u": "unsure"}[what]
                wait_moved(page, item)
            assert page.locator("#progress-total").inner_text().startswith(PROGRESS)
            assert "Judge's mean F1 against people" in page.locator("#estimate-text").inner_text()

            # back to the first one (by button, then by key): its label is shown and can be changed
            for key in [None] * 6 + ["p"] * 6:
                before = current(page)
                if key:
                    page.keyboard.press(key)
                else:
                    page.get_by_role("button", name="Previous trajectory").click()
                wait_moved(page, before)
                if current(page) == first:
                    assert page.locator("#current-decision").inner_text() == ("Success" if key is None else "Failure")
                    if key is None:
                        page.get_by_role("button", name="Failure", exact=True).click()  # moves on to an open one
                        given[first] = "failure"
                        wait_moved(page, first)
            assert current(page) == first
            assert page.locator("#current-decision").inner_text() == "Failure"
            assert "2 decisions given" in page.locator("#changed").inner_text()
            save_screenshot(page, tmp_path)

            # a second labeller in another browser at the same time
            other, other_errors = open_as(browser, url, "bo")  # a page of its own context: its own name
            bo_item = current(other)
            other.keyboard.press("s")
            wait_moved(other, bo_item)

            # files outside the set are refused by the running server, sent raw
            for path in ("/files/../../../etc/passwd", "/files/%2e%2e/%2e%2e/etc/passwd", "/files//etc/passwd"):
                assert 400 <= raw_get(url, path) < 500, path
            assert raw_get(url, "/files/" + json.loads(fresh_set.read_text().splitlines()[0])["video"]) == 200

            proc.kill()  # mid-session, no goodbye
            assert proc.wait() != 0

        # restarted: every label is there, and the page resumes with the undecided ones
        with label_server(args) as (proc, url, _):
            page, errors2 = open_as(browser, url, "ana")
            assert page.locator("#progress-total").inner_text().startswith(PROGRESS)
            resumed = current(page)
            assert resumed not in given
            state = json.loads(page.evaluate("() => fetch('/api/session?labeller=ana').then(r => r.text())"))
            assert {i["id"]: i["decision"] for i in state["items"] if i["decision"]} == given
            page.keyboard.press("2")
            given[resumed] = "failure"
            last = wait_moved(page, resumed)
            page.get_by_role("button", name="Success", exact=True).click()
            given[last] = "success"
            page.wait_for_selector("#done:not([hidden])")
            assert "Every trajectory has a decision from you" in page.locator("#done").inner_text()

            # the tasks page: counts, and a rating that the task suite can read
            page.get_by_role("link", name="Tasks and ratings").click()
            page.wait_for_selector("#rating-rows tr")
            page.get_by_label("intricacy of lay_stone_row").select_option("2")
            page.get_by_label("creativity of lay_stone_row").select_option("3")
            page.get_by_label("novelty of lay_stone_row").select_option("1")
            page.get_by_role("button", name="Save rating for lay_stone_row").click()
            expect(page.locator("#rating-rows")).to_contain_text("2.0 / 3.0 / 1", timeout=WAIT_MS)
        browser.close()
    assert errors == [] and other_errors == [] and errors2 == []

    # every decision in the history (the change included); the labels file holds the latest labels
    history = _lines(out.with_name("labels.history.jsonl"))
    ana = [h for h in history if h["labeller"] == "human:ana"]
    assert len(ana) == 9 and [h["decision"] for h in ana if h["id"] == first] == ["success", "failure"]
    assert [h["labeller"] for h in history if h["labeller"] != "human:ana"] == ["human:bo"]
    labels = {(r["id"], r["labeller"]): r["label"] for r in _lines(out)}
    expected = {(i, "human:ana"): {"success": 1, "failure": 0}[d] for i, d in given.items()
                if d in ("success", "failure")}
    assert labels == {**expected, (bo_item, "human:bo"): 1}
    from mineclip.tasks.ratings import load_ratings

    assert load_ratings(ratings) == {"lay_stone_row": {"intricacy": 2.0, "creativity": 3.0, "novelty": 1.0}}

    # mineclip eval reads the result as it is, beside the set
    report_dir = tmp_path / "report"
    assert eval_main(["--model", str(micro_artifact), "--labels", str(out), "--out", str(report_dir),
                      "--mode", "direct-naive", "--no-untrained", "--quiet"]) == 0
    metrics = json.loads((report_dir / "metrics.json").read_text())
    people_labelled = {i for i, _ in labels}
    assert metrics["counts"]["judged"] == len(people_labelled)
    assert metrics["people"]["labellers"]["human:ana"] == len(expected)
    report = (report_dir / "report.md").read_text()
    assert "## The judge against people" in report and "`human:ana`" in report
    assert eval_main(["--model", str(micro_artifact), "--labels", str(fresh_set), "--labels", str(out),
                      "--out", str(tmp_path / "report2"), "--no-untrained", "--quiet"]) == 0
    both = json.loads((tmp_path / "report2" / "metrics.json").read_text())
    assert both["counts"]["judged"] == 8 and both["people"]["estimate"]["total"] == 8
