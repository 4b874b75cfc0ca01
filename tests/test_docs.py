"""The documentation site (mkdocs.yml): the pages, the README as its home page and the API reference
built from the docstrings build with `mkdocs build --strict`, so a broken reference, link or anchor
fails here and in CI. Needs the `docs` extra (in `dev`) and no network."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner about its successor, not a build warning


def _build(site: Path, **overrides) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` of the repository's mkdocs.yml into `site`, with config overrides."""
    code = ("import logging\n"
            "logging.basicConfig(level=logging.WARNING)\n"
            "from mkdocs.commands.build import build\n"
            "from mkdocs.config import load_config\n"
            f"build(load_config({str(ROOT / 'mkdocs.yml')!r}, strict=True, site_dir={str(site)!r}, **{overrides!r}))\n")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=240)


@pytest.mark.timeout(300)
def test_the_site_and_the_api_reference_build_in_strict_mode(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                       cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr[-6000:]
    assert "WARNING" not in r.stderr, r.stderr[-6000:]
    home = (tmp_path / "site" / "index.html").read_text()
    assert "Quick start" in home and 'href="quality/' in home  # the README, its docs/ links made site links
    reward = (tmp_path / "site" / "api" / "reward" / "index.html").read_text()
    assert 'id="mineclip.reward.reward.RewardModel"' in reward  # rendered from the docstrings, once
    assert 'id="mineclip.reward.RewardModel"' not in reward


@pytest.mark.timeout(300)
def test_a_reference_to_a_name_that_does_not_exist_fails_the_build(tmp_path):
    docs = tmp_path / "docs"
    (docs / "api").mkdir(parents=True)
    (docs / "api" / "nope.md").write_text("::: mineclip.nope\n")
    r = _build(tmp_path / "site", docs_dir=str(docs), nav=["api/nope.md"])
    assert r.returncode != 0
    assert "mineclip.nope could not be found" in r.stderr, r.stderr[-6000:]
