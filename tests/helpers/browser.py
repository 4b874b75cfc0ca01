"""A headless Chromium (Debian's `chromium`) driven by Playwright, and the documentation screenshot."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run"]
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "img" / "label.png"


def chromium_path() -> str:
    """The Chromium binary: $MINECLIP_CHROMIUM, or `chromium` on PATH; a readable error if neither."""
    path = os.environ.get("MINECLIP_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise RuntimeError("the browser tests need Chromium: apt-get install -y chromium "
                           "(or set MINECLIP_CHROMIUM to its path)")
    return path


def launch(playwright):
    """A headless Chromium browser (no network use of its own)."""
    return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)


def save_screenshot(page, tmp: Path) -> Path:
    """Screenshot the page into tmp; with MINECLIP_UPDATE_SCREENSHOTS=1 also into docs/img/label.png."""
    shot = tmp / "label.png"
    page.screenshot(path=str(shot))
    if os.environ.get("MINECLIP_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
    return shot
