"""MkDocs hooks (mkdocs.yml): the README is the site's home page.

On GitHub the README links to the pages as `docs/X.md` and the pages link back to `../README.md`;
in the site the README is `index.md` beside the pages, so both kinds of link are rewritten here and
then checked by MkDocs like any other (a broken one fails `mkdocs build --strict`).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
_TO_DOCS = re.compile(r"\]\(docs/")
_TO_README = re.compile(r"\]\(\.\./README\.md")


def on_files(files, config):
    """Add the README, its links into docs/ made relative to the site's root, as the home page."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=_TO_DOCS.sub("](", readme)))
    return files


def on_page_markdown(markdown, page, config, files):
    """Point a page's links to ../README.md at the home page."""
    home = posixpath.relpath("index.md", posixpath.dirname(page.file.src_uri) or ".")
    return _TO_README.sub(f"]({home}", markdown)
