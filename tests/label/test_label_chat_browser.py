"""The chat page in a real headless browser (Debian's chromium, driven by Playwright, as
test_label_browser.py): start a world, give a command and see the reply, the outcome and the scene,
ask something the world cannot do, leave a clarifying question waiting on the stack while asking
something else and then answer it, and find the command recorded as a labelled trajectory. The
screenshot in docs/img/assist_chat.png comes from here (MINECLIP_UPDATE_SCREENSHOTS=1)."""

import os
import re
import shutil
from pathlib import Path

from helpers.browser import launch
from helpers.labelling import label_server
from playwright import sync_api as playwright
from playwright.sync_api import expect

from mineclip.evaluate.trajectories import read_labels

WAIT_MS = 60_000  # a command runs up to a few hundred world steps on a busy CPU
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "assist_chat.png"


def test_chat_with_the_assistant_in_the_browser(fresh_set, tmp_path):
    out = tmp_path / "people" / "labels.jsonl"
    with playwright.sync_playwright() as pw:
        browser = launch(pw)
        with label_server([str(fresh_set), "--labels", str(out)]) as (_, url, _):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(url + "chat")
            expect(page.locator("body")).to_have_attribute("data-ready", "1", timeout=WAIT_MS)
            page.get_by_label("World seed").fill("1000")
            page.get_by_role("button", name="New world").click()
            expect(page.locator("#world-info")).to_have_text(
                re.compile(r"^world 1000, top view, empty inventory; judge off"), timeout=WAIT_MS)
            expect(page.locator("#scene")).to_have_attribute("data-loaded", "0", timeout=WAIT_MS)

            page.get_by_label("Message").fill("chop a tree")
            page.keyboard.press("Enter")
            expect(page.locator("body")).to_have_attribute("data-turn", "1", timeout=WAIT_MS)
            log = page.get_by_role("log")
            expect(log.locator("li.bot.ok")).to_have_count(1)
            assert log.locator("li.bot.ok").inner_text().startswith("Done: collect wood")
            expect(page.locator("#truth")).to_have_text(re.compile(r"^success: collected 1 wood"))
            expect(page.locator("#judge")).to_have_text("no model given (--model ARTIFACT)")
            expect(page.locator("#stack li")).to_have_text(["empty"])
            expect(page.locator("#scene")).to_have_attribute("data-loaded", "1", timeout=WAIT_MS)
            assert "wood 1" in page.locator("#view").inner_text()
            page.screenshot(path=str(tmp_path / "chat.png"))
            if os.environ.get("MINECLIP_UPDATE_SCREENSHOTS") == "1":
                shutil.copyfile(tmp_path / "chat.png", SCREENSHOT)

            page.get_by_label("Message").fill("fly to the moon")
            page.get_by_role("button", name="Send").click()
            expect(page.locator("body")).to_have_attribute("data-turn", "2", timeout=WAIT_MS)
            assert len(log.locator("li.bot").last.inner_text()) > 15
            expect(page.locator("#steps")).to_have_text("0")
            page.get_by_role("button", name="Send").click()  # an empty message: answered, not an error
            expect(page.locator("body")).to_have_attribute("data-turn", "3", timeout=WAIT_MS)
            assert "didn't say anything" in log.locator("li.bot").last.inner_text()

            # a clarifying question waits on the stack while another request is answered, then the answer
            page.get_by_label("Message").fill("go to the stone")
            page.keyboard.press("Enter")
            expect(page.locator("body")).to_have_attribute("data-turn", "4", timeout=WAIT_MS)
            expect(log.locator("li.bot.question").last).to_have_text("I don't see any stone: should I explore?")
            expect(page.locator("#stack li")).to_have_text(
                ["question about 'go to the stone': I don't see any stone: should I explore?"])
            page.get_by_label("Message").fill("how much wood do you have")
            page.keyboard.press("Enter")
            expect(page.locator("body")).to_have_attribute("data-turn", "5", timeout=WAIT_MS)
            assert log.locator("li.bot").last.inner_text().startswith("I have 1 wood. (Still waiting about 'go to")
            expect(page.locator("#stack li")).to_have_count(1)
            page.get_by_label("Message").fill("no")
            page.keyboard.press("Enter")
            expect(page.locator("body")).to_have_attribute("data-turn", "6", timeout=WAIT_MS)
            expect(log.locator("li.bot").last).to_have_text("OK, I won't.")
            expect(page.locator("#stack li")).to_have_text(["empty"])
            assert page.locator("#error").is_hidden()
        browser.close()
    assert errors == []
    trajs, problems, lines = read_labels(out.parent / "labels.chat" / "trajectories.jsonl")
    assert lines == 1 and problems == [] and trajs[0].prompt == "chop a tree" and trajs[0].label == 1
