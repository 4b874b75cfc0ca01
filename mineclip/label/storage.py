"""Where labels live: an append-only history and the labels file it implies.

- `OUT.history.jsonl` (beside `OUT.jsonl`): one line per decision as it is given (success, failure,
  unsure, skip), with the trajectory id, `labeller` = `human:<name>`, the time and the browser tab;
  each line is one write on a file opened for appending, flushed and synced before the request
  returns, under an exclusive lock (so two tabs, two labellers or two servers on the same file
  never interleave or lose a line: `mineclip.journal`). Nothing is ever removed from it.
- `OUT.jsonl`: the labelled trajectories in the format `eval.py` reads, one line per trajectory and
  person whose latest decision is success (1) or failure (0); rewritten from the whole history
  (temporary file, then an atomic rename) after every decision, so it is always complete. A later
  decision of the same person supersedes the earlier one here; unsure and skipped stay out of it.
"""

from __future__ import annotations

import json
import os
import re
import threading
import warnings
from pathlib import Path

from mineclip.journal import append_to, locked
from mineclip.tasks.ratings import now_iso

from .items import Item, LabelSet

DECISIONS = ("success", "failure", "unsure", "skip")
LABEL_OF = {"success": 1, "failure": 0}
NAME_PATTERN = re.compile(r"^[\w][\w .@'-]{0,63}$")


class LabelError(ValueError):
    """A label that cannot be stored (unknown trajectory, decision or labeller name)."""


class NotFoundError(KeyError):
    """An item, frame or chat the request names does not exist (the app answers 404)."""


def history_path(out: Path) -> Path:
    """The append-only history beside a labels file: OUT.jsonl -> OUT.history.jsonl."""
    return out.with_name(out.stem + ".history.jsonl")


def labeller_of(name: str) -> str:
    """`human:<name>` for a valid labeller name (letters, digits, space, . @ ' -; up to 64)."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name.strip()):
        raise LabelError(f"expected a labeller name of 1-64 letters, digits, spaces or . @ ' -, got {name!r}")
    return f"human:{name.strip()}"


class LabelStore:
    """People's decisions on the items of one set, kept in OUT.history.jsonl and OUT.jsonl."""

    def __init__(self, out: str | Path, label_set: LabelSet):
        self.out = Path(out).resolve()
        self.history = history_path(self.out)
        self.set = label_set
        self.items = label_set.by_id()
        if self.out == label_set.source or self.history == label_set.source:
            raise LabelError(f"the labels file would overwrite the set itself: {self.out}")
        if self.out.exists() and self.out.stat().st_size and not self.history.exists():
            raise LabelError(f"{self.out} exists without its history {self.history.name}: it was not written by "
                             "`mineclip label`; pass another --labels file (nothing was changed)")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.history.touch()
        self._lock = threading.Lock()
        self._entries: list[dict] = []
        self._stamp: tuple[int, int] | None = None
        self.broken_lines: list[int] = []
        with self._lock, locked(self.history):
            self._reload()
            self._write_view()

    # -- writing -------------------------------------------------------------------------------
    def add(self, item_id: str, decision: str, name: str, client: str = "") -> dict:
        """Record one decision now (appended and synced before returning); return the history line."""
        if item_id not in self.items:
            raise LabelError(f"unknown trajectory id {item_id!r}")
        if decision not in DECISIONS:
            raise LabelError(f"expected a decision in {list(DECISIONS)}, got {decision!r}")
        if not isinstance(client, str) or len(client) > 64:
            raise LabelError("expected a client id of at most 64 characters")
        item = self.items[item_id]
        entry = {"id": item_id, "task_id": item.task, "decision": decision, "label": LABEL_OF.get(decision),
                 "labeller": labeller_of(name), "time": now_iso(), "client": client}
        with self._lock, locked(self.history) as fd:
            append_to(fd, entry)
            self._reload()
            self._write_view()
        return entry

    def _reload(self) -> None:
        st = self.history.stat()
        stamp = (st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        entries, broken = [], []
        for n, line in enumerate(self.history.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                e = json.loads(line)
                if not isinstance(e, dict) or e.get("decision") not in DECISIONS or not e.get("id"):
                    raise ValueError("not a decision")
            except ValueError:
                broken.append(n)
                continue
            entries.append(e)
        if broken and broken != self.broken_lines:
            warnings.warn(f"{self.history}: skipped broken lines {broken}", stacklevel=2)
        self._entries, self.broken_lines, self._stamp = entries, broken, stamp

    def _write_view(self) -> None:
        lines = [json.dumps(self.output_line(self.items[item_id], e))
                 for item_id, by in self._latest().items() if item_id in self.items
                 for e in by.values() if e["decision"] in LABEL_OF]
        tmp = self.out.with_name(self.out.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.out)

    def output_line(self, item: Item, entry: dict) -> dict:
        """The line of OUT.jsonl for one person's label of an item: the set's line with the person's
        label, `labeller`, time, the media path relative to OUT's folder and the set's own label kept
        as `reference_label`."""
        rec = {k: v for k, v in item.record.items() if k not in ("label", "labeller", "video", "frames")}
        key = "frames" if "frames" in item.record and "video" not in item.record else "video"
        rec["id"] = item.id
        rec.setdefault("prompt", item.prompt)
        rec[key] = Path(os.path.relpath(self.set.root / item.media, self.out.parent)).as_posix()
        rec.update(label=entry["label"], labeller=entry["labeller"], time=entry["time"])
        if item.reference is not None:
            rec.update(reference_label=item.reference, reference_labeller=item.reference_labeller)
        return rec

    # -- reading -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Pick up lines other processes appended."""
        with self._lock, locked(self.history, shared=True):
            self._reload()

    def _latest(self) -> dict[str, dict[str, dict]]:
        """item id -> labeller -> latest decision (history order), in the set's order."""
        latest: dict[str, dict[str, dict]] = {}
        for e in self._entries:
            latest.setdefault(e["id"], {})[e["labeller"]] = e
        order = {it.id: it.index for it in self.set.items}
        return dict(sorted(latest.items(), key=lambda kv: order.get(kv[0], len(order))))

    def latest(self) -> dict[str, dict[str, dict]]:
        """item id -> labeller -> that person's latest decision."""
        self.refresh()
        with self._lock:
            return self._latest()

    def decisions_of(self, labeller: str) -> dict[str, dict]:
        """item id -> this labeller's latest decision entry."""
        return {item_id: by[labeller] for item_id, by in self.latest().items() if labeller in by}

    def entries(self) -> list[dict]:
        """The whole history, oldest first."""
        self.refresh()
        with self._lock:
            return list(self._entries)
