"""A labelling session: the set, the label store, the judge's view (optional), frames to show, the
progress per task and person, the judge's estimated F1, and task ratings. The web app
(`mineclip.label.app`) is a thin layer of routes over it."""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mineclip.evaluate.agreement import majority
from mineclip.evaluate.estimate import estimate_f1
from mineclip.data.video import DecodeLimits
from mineclip.evaluate.trajectories import load_media
from mineclip.tasks import ratings as task_ratings

from .active import JudgeView, random_order
from .items import LabelSet
from .storage import LABEL_OF, LabelError, LabelStore, NotFoundError, labeller_of

ORDERS = ("judge", "set", "random")  # the judge's least sure first; as in the set; shuffled (unbiased)
FRAME_CACHE = 12  # decoded trajectories kept in memory, at most
FRAME_CACHE_BYTES = 1 << 30  # and at most this many bytes of them (the latest one is always kept)
MAX_WIDTH = 512  # wider videos are shown scaled down, as they are decoded
# a trajectory over these is refused with the reason (422), before it can take the server's memory:
# 4,000 frames (8 minutes at 8 fps), 4K frames, 512 MiB as shown (1,000 frames of 512x320), 2 minutes
DISPLAY_LIMITS = DecodeLimits(max_frames=4000, max_pixels=3840 * 2160, max_bytes=512 << 20, timeout=120.0)


@dataclass
class LabelSettings:
    """What `mineclip label` serves (its defaults)."""

    set: str  # a trajectory JSON-lines file, or a folder of videos
    labels: str  # OUT.jsonl (its history goes beside it)
    port: int = 8765
    host: str | None = None  # None: 127.0.0.1 only
    model: str | None = None  # an exported artifact: order by the judge's uncertainty, estimate its F1
    order: str | None = None  # "judge" (default with a model), "set" (default without), "random"
    negatives: str | None = None  # the judge's settings; None: the artifact's (mineclip.model.artifact.JudgeSettings)
    mode: str | None = None
    prompt: str | None = None  # for a folder of videos without NAME.txt prompts
    ratings: str | None = None  # task ratings file (default: OUT.ratings.jsonl beside the labels)
    progress: bool = True


def shown_size(frames: np.ndarray) -> np.ndarray:
    """Frames [K, H, W, 3] as the page shows them: scaled to MAX_WIDTH where wider."""
    if frames.shape[2] <= MAX_WIDTH:
        return frames
    from PIL import Image

    h = max(1, round(frames.shape[1] * MAX_WIDTH / frames.shape[2]))
    return np.stack([np.asarray(Image.fromarray(f).resize((MAX_WIDTH, h))) for f in frames])


def ratings_path(labels: Path) -> Path:
    """The task ratings file beside a labels file: OUT.jsonl -> OUT.ratings.jsonl."""
    return labels.with_name(labels.stem + ".ratings.jsonl")


class LabelSession:
    """Everything the labelling pages show and change."""

    def __init__(self, label_set: LabelSet, store: LabelStore, judge: JudgeView | None = None,
                 ratings: str | Path | None = None, order: str | None = None):
        self.set, self.store, self.judge = label_set, store, judge
        # people's ratings are their data: beside their labels (never in the installed package)
        self.ratings_path = Path(ratings) if ratings else ratings_path(store.out)
        self._frames: OrderedDict[int, np.ndarray] = OrderedDict()
        self._frames_lock = threading.Lock()
        ids = [it.id for it in label_set.items]
        self.order_name = order or ("judge" if judge else "set")
        if self.order_name not in ORDERS or (self.order_name == "judge" and not judge):
            raise LabelError(f"expected an order in {ORDERS} ('judge' needs --model), got {self.order_name!r}")
        self.order = {"judge": lambda: judge.order(ids), "set": lambda: ids,
                      "random": lambda: random_order(ids)}[self.order_name]()

    # -- items ---------------------------------------------------------------------------------
    def item_index(self, index: int):
        if not 0 <= index < len(self.set.items):
            raise NotFoundError(f"no item {index}: the set has {len(self.set.items)}")
        return self.set.items[index]

    def items_for(self, name: str | None) -> list[dict]:
        """The items in showing order with this person's latest decision on each."""
        mine = self.store.decisions_of(labeller_of(name)) if name else {}
        by_id = self.set.by_id()
        return [{"index": by_id[i].index, "id": i, "task": by_id[i].task, "prompt": by_id[i].prompt,
                 "decision": mine[i]["decision"] if i in mine else None,
                 "error": (self.judge.failed.get(i) if self.judge else None)} for i in self.order]

    def item(self, index: int, name: str | None) -> dict:
        """One item to show: prompt, frame count, fps, media, this person's decision and its history."""
        it = self.item_index(index)
        frames = self.frames(index)
        mine = [e for e in self.store.entries() if e["id"] == it.id and name and e["labeller"] == labeller_of(name)]
        return {"index": it.index, "id": it.id, "task": it.task, "prompt": it.prompt, "media": it.media,
                "frames": int(len(frames)), "fps": it.fps, "width": int(frames.shape[2]),
                "height": int(frames.shape[1]),
                "decision": mine[-1]["decision"] if mine else None, "history": [e["decision"] for e in mine]}

    def frames(self, index: int) -> np.ndarray:
        """Decoded frames of an item (kept for the last few items), scaled to MAX_WIDTH at most as
        they are decoded; MediaError for an unreadable one or one over DISPLAY_LIMITS."""
        it = self.item_index(index)
        with self._frames_lock:
            if index in self._frames:
                self._frames.move_to_end(index)
                return self._frames[index]
        frames = load_media(self.set.root / it.media, DISPLAY_LIMITS, shown_size)
        with self._frames_lock:
            self._frames[index] = frames
            while len(self._frames) > 1 and (len(self._frames) > FRAME_CACHE or
                                             sum(f.nbytes for f in self._frames.values()) > FRAME_CACHE_BYTES):
                self._frames.popitem(last=False)
        return frames

    def frame_png(self, index: int, k: int) -> bytes:
        """Frame k of an item as PNG bytes."""
        from PIL import Image

        frames = self.frames(index)
        if not 0 <= k < len(frames):
            raise NotFoundError(f"no frame {k}: the trajectory has {len(frames)}")
        buf = io.BytesIO()
        Image.fromarray(frames[k]).save(buf, format="PNG", compress_level=1)
        return buf.getvalue()

    # -- labels and progress -------------------------------------------------------------------
    def label(self, item_id: str, decision: str, name: str, client: str = "") -> dict:
        """Store one decision; return it with the person's progress."""
        entry = self.store.add(item_id, decision, name, client)
        return {"saved": entry, "progress": self.progress(name)}

    def people_labels(self) -> dict[str, int | None]:
        """item id -> people's majority (None: no success/failure yet, or a tie)."""
        out = {}
        for item_id, by in self.store.latest().items():
            votes = [LABEL_OF[e["decision"]] for e in by.values() if e["decision"] in LABEL_OF]
            out[item_id] = majority(votes)
        return out

    def progress(self, name: str | None) -> dict:
        """Per task and in all: items, labelled / unsure / skipped by this person, labelled by anyone."""
        mine = self.store.decisions_of(labeller_of(name)) if name else {}
        people = self.people_labels()
        anyone = {i for i, by in self.store.latest().items() if any(e["decision"] in LABEL_OF for e in by.values())}
        tasks: dict[str, dict] = {}
        for it in self.set.items:
            row = tasks.setdefault(it.task, {"task": it.task, "prompt": it.prompt, "total": 0, "labelled": 0,
                                             "unsure": 0, "skipped": 0, "people": 0, "successes": 0, "failures": 0})
            row["total"] += 1
            d = mine.get(it.id, {}).get("decision")
            row["labelled"] += d in LABEL_OF
            row["unsure"] += d == "unsure"
            row["skipped"] += d == "skip"
            row["people"] += it.id in anyone
            row["successes"] += people.get(it.id) == 1
            row["failures"] += people.get(it.id) == 0
        total = {k: sum(r[k] for r in tasks.values()) for k in ("total", "labelled", "unsure", "skipped", "people")}
        return {**total, "tasks": list(tasks.values()), "estimate": self.estimate(people)}

    def estimate(self, people: dict[str, int | None] | None = None) -> dict | None:
        """The judge's mean F1 against people over the scored set, with its 95% interval (None without a judge)."""
        if not self.judge or not self.judge.preds:
            return None
        people = self.people_labels() if people is None else people
        ids = [it.id for it in self.set.items if it.id in self.judge.preds]
        tasks = [it.task for it in self.set.items if it.id in self.judge.preds]
        est = estimate_f1(tasks, [self.judge.preds[i] for i in ids], [people.get(i) for i in ids], draws=1000)
        return est.to_dict()

    # -- tasks and ratings ---------------------------------------------------------------------
    def tasks(self, name: str | None) -> dict:
        """The tasks of the set with their counts, mean ratings and this person's latest rating."""
        rows = self.progress(name)["tasks"]
        latest = task_ratings.latest_ratings(self.ratings_path)
        means = task_ratings.load_ratings(self.ratings_path)
        for r in rows:
            mine = latest.get(r["task"], {}).get(name.strip()) if name else None
            r.update(rating=means.get(r["task"]), raters=len(latest.get(r["task"], {})),
                     my_rating={d: mine[d] for d in task_ratings.RATING_DIMENSIONS} if mine else None)
        return {"tasks": rows, "dimensions": list(task_ratings.RATING_DIMENSIONS),
                "ratings_file": str(self.ratings_path)}

    def rate(self, task: str, rater: str, scores: dict) -> dict:
        """Append one person's difficulty rating of a task."""
        if task not in {it.task for it in self.set.items}:
            raise LabelError(f"unknown task {task!r}: not in this set")
        labeller_of(rater)  # the same name rules as labels
        try:
            scores = task_ratings.check_scores(scores)
        except ValueError as e:  # a score out of range: refused, as a bad label is
            raise LabelError(str(e)) from e
        return task_ratings.append_rating(self.ratings_path, task, rater.strip(), scores)
