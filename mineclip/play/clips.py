"""Narrated training clips: play tasks on training worlds, cut 16-frame windows, caption each
with `narrate`, and write (clip, text) pairs with the data package's ClipShardWriter.

Windows where nothing happens ("just walking around") are kept only with probability
`idle_keep`: like the paper's keyword filter on transcripts, it spends the training budget on
clips whose text says what the picture shows, while a few idle clips remain as contrast. (Keeping
every idle window of the failure agents, as hard negatives, was tried on the default pipeline:
mean F1 on 30 + 30 held-out trajectories per task fell from 0.95 / 0.85 to 0.90 / 0.78.)"""

from __future__ import annotations

import os
from contextlib import closing
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from .narrate import completion, named_kinds, narrate_episode
from .record import play_map, run_episode
from mineclip.counts import require_counts
from mineclip.model.config import CLIP_FRAMES
from mineclip.sim.labels import encode_frames
from mineclip.sim.view import DEFAULT_VIEW, check_view
from mineclip.tasks.scenes import check_in_view
from mineclip.tasks.registry import list_tasks
from mineclip.tasks.world_seeds import world_seeds

AGENT_MIX = (("scripted", 0.6), ("noisy", 0.15), ("near_miss", 0.1), ("wrong_target", 0.1), ("random", 0.05))


def kept_windows(job: dict):
    """Play one planned episode (`plan_episodes`) and return it with the narrated windows the clips
    keep: (Episode, [Caption]); idle windows are kept with probability `idle_keep`."""
    ep = run_episode(job["task_id"], job["agent"], seed=job["seed"], world_seed=job["world_seed"],
                     noise=job["noise"], prelude=job["prelude"], tail=job["episode_len"], min_frames=job["clip_len"] + 1,
                     max_steps=job["episode_len"], spawn_jitter=job["spawn_jitter"], view=job["view"])
    keep = random.Random(job["seed"] + 1)
    kept = [c for c in narrate_episode(ep.states, ep.record["events"], job["clip_len"], job["stride"], job["misalign"],
                                       job["filler"], seed=job["seed"], scenery=job["scenery"],
                                       in_view=job["in_view"])
            if len(ep.frames[c.start:c.start + job["clip_len"]]) == job["clip_len"]
            and not (c.event is None and keep.random() >= job["idle_keep"])]
    return ep, kept


def episode_clips(job: dict) -> list[tuple[str, bytes, str, dict]]:
    """Play one planned episode (`plan_episodes`) and return its narrated clips, encoded:
    (member extension, bytes, caption, metadata) each."""
    from mineclip.data.shards import encode_clip
    from mineclip.data.video import encode_mp4

    ep, windows = kept_windows(job)
    rec = ep.record
    out = []
    for start, text, main, says, true in windows:
        frames = ep.frames[start:start + job["clip_len"]]
        last = ep.states[start + job["clip_len"] - 1]
        if job["encoding"] == "mp4":
            ext, payload = "mp4", encode_mp4(frames, fps=8, preset="superfast", threads=1)
        else:
            ext, payload = encode_clip(frames, job["encoding"], 8)
        meta = {"task_id": rec["task_id"], "agent": rec["agent"], "seed": rec["seed"], "world_seed": rec["world_seed"],
                "start": int(start), "event": main, "says": list(says), "holds": list(true),
                "label": rec["label"], "view": rec["view"], "fps": 8, "num_frames": len(frames), "source": f"crafter:{rec['id']}",
                "frame_labels": encode_frames(ep.states[start:start + job["clip_len"]]),  # what each frame shows
                "completion": completion(says, last)}
        if last.shares is not None:  # first person: what the caption names and how much of the frame each kind fills
            # (top-down clips get neither: their shards, capped by bytes, stay as they were, and so the default's draw)
            meta["named"] = list(named_kinds(says))
            meta["shares"] = {k: round(v, 5) for k, v in last.shares.items()}
        out.append((ext, payload, text, meta))
    return out


def task_schedule(task_ids: list[str], weights: dict[str, float] | None = None) -> Iterator[str]:
    """Task ids in a weighted round-robin without end: a task of weight 2 plays twice as often as one
    of weight 1, spread evenly (smooth weighted round-robin). `weights` keys are task ids or kinds
    ("creative", "programmatic"); an id outranks its kind; unnamed tasks weigh 1."""
    from mineclip.tasks.registry import get_task
    from mineclip.tasks.spec import KINDS

    weights = dict(weights or {})
    unknown = sorted(k for k in weights if k not in set(task_ids) | set(KINDS))
    if unknown:
        raise ValueError(f"task weights name {unknown}: neither a played task nor a kind {KINDS}")
    bad = {k: w for k, w in weights.items() if not w >= 0}
    if bad:
        raise ValueError(f"task weights must be >= 0, got {bad}")
    w = {t: float(weights.get(t, weights.get(get_task(t).kind, 1.0))) for t in task_ids}
    total = sum(w.values())
    if total <= 0:
        raise ValueError("task weights leave no task to play")
    credit = dict.fromkeys(task_ids, 0.0)
    while True:
        for t in task_ids:
            credit[t] += w[t]
        best = max(task_ids, key=lambda t: credit[t])  # first of the tied, in task order
        credit[best] -= total
        yield best


@dataclass
class ClipSettings:
    """How narrated clips are made (the defaults of `mineclip play clips`)."""

    num_clips: int = 8000
    clip_len: int = CLIP_FRAMES  # frames per clip
    stride: int = 4  # steps between the starts of consecutive windows of an episode
    episode_len: int = 48
    misalign: float = 0.2  # chance a caption describes a neighbouring window
    filler: float = 0.3  # amount of filler words and chatter
    idle_keep: float = 0.25  # chance of keeping a window in which nothing happens
    scenery: float = 0.0  # chance a kept window without an event is captioned by its whole scene
    in_view: str = "any"  # how captions name things in view: any distance, "ranged", "near" (tasks.scenes.IN_VIEW)
    tasks: list[str] | None = None  # None: every crafter task of the suite
    task_weights: dict[str, float] | None = None  # see task_schedule
    worlds: int = 64  # distinct worlds of the purpose's range
    purpose: str = "clips"  # world seed range (mineclip.tasks.world_seeds): "clips" or "val_clips"
    seed: int = 0
    encoding: str = "mp4"  # or "raw"
    prefix: str = "train"  # shard names <prefix>-000000.tar
    view: str = DEFAULT_VIEW  # what the clips show and the agents' controls (mineclip.sim.view)

    def __post_init__(self):
        check_view(self.view)
        check_in_view(self.in_view)
        for name in ("idle_keep", "scenery", "misalign", "filler"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} is a probability in [0, 1], got {getattr(self, name)}")
        if self.worlds < 1:  # episodes take the worlds in turn
            raise ValueError(f"worlds is the number of distinct worlds played, at least 1, got {self.worlds}")
        require_counts(self, "num_clips", "clip_len", "stride")  # zero or fewer clips was "wrote 0 clips", no reason given
        if self.episode_len < self.clip_len:
            raise ValueError(f"episode_len ({self.episode_len}) must be at least clip_len ({self.clip_len}): "
                             f"a clip is a window of one episode")


@dataclass
class ClipsResult:
    """What `make_clips` wrote."""

    out_dir: str
    clips: int
    shards: int
    urls: str  # brace pattern of the shards, relative to out_dir
    seconds: float


def plan_episodes(settings: ClipSettings, num_clips: int | None = None) -> list[dict]:
    """Enough episodes (tasks by `task_schedule`, agents by AGENT_MIX, the purpose's worlds) for
    ~num_clips clips (default: settings.num_clips)."""
    s = settings
    num_clips = s.num_clips if num_clips is None else num_clips
    tasks = s.tasks or [t.id for t in list_tasks()]
    schedule = task_schedule(tasks, s.task_weights)
    per_episode = max((s.episode_len + 1 - s.clip_len) // s.stride + 1, 1)
    # about half of all windows are idle; ask for enough episodes that the filtered ones suffice
    kept = 0.5 + 0.5 * s.idle_keep
    n_eps = max(1, int(np.ceil(num_clips / (0.8 * kept * per_episode))))
    rng = random.Random(s.seed)
    seeds = world_seeds(s.purpose, s.worlds)
    names, weights = zip(*AGENT_MIX)
    jobs = []
    for i in range(n_eps):
        agent = rng.choices(names, weights)[0]
        ws = seeds[i % len(seeds)]
        jobs.append(dict(task_id=next(schedule), agent=agent, seed=ws * 1000 + i // len(seeds), world_seed=ws,
                         noise=0.5 if agent == "noisy" else 0.0, prelude=rng.randint(0, 6), clip_len=s.clip_len,
                         stride=s.stride, episode_len=s.episode_len, misalign=s.misalign, filler=s.filler,
                         spawn_jitter=rng.choice([0, 0, 6]), encoding=s.encoding, idle_keep=s.idle_keep,
                         scenery=s.scenery, in_view=s.in_view, view=s.view))
    return jobs


def _jobs_until_enough(settings: ClipSettings, rounds: int = 6):
    """The estimated episode jobs, then more of the same sequence (plan_episodes is prefix-stable:
    asking for more episodes extends the list) for when the estimate fell short, e.g. for a few
    clips of tasks whose windows are mostly idle. The caller stops consuming once it has enough."""
    done = 0
    for r in range(rounds):
        jobs = plan_episodes(settings, settings.num_clips * 2 ** r)
        yield from jobs[done:]
        done = len(jobs)


def make_clips(out_dir: str | os.PathLike, settings: ClipSettings | None = None, workers: int | None = None,
               progress: bool = True) -> ClipsResult:
    """Generate ~settings.num_clips narrated clips into WebDataset shards with a manifest."""
    from tqdm import tqdm

    from mineclip.data.shards import ClipShardWriter

    settings = settings or ClipSettings()
    t0 = time.time()
    manifest_settings = {"generator": "mineclip play clips", **{k: v for k, v in asdict(settings).items()
                                                                  if k not in ("tasks", "prefix")}}
    plan_episodes(settings, 1)  # bad settings fail here, before the worker pool starts
    workers = workers or os.cpu_count() or 1
    written = 0
    with ClipShardWriter(out_dir, prefix=settings.prefix, encoding=settings.encoding, fps=8,
                         settings=manifest_settings) as w, \
            tqdm(total=settings.num_clips, desc="clips", disable=not progress) as bar, \
            closing(play_map(episode_clips, _jobs_until_enough(settings), workers,
                             name_of=lambda j: f"{j['task_id']} seed {j['seed']}")) as results:
        # in order (shards that do not depend on timing); enough clips: the workers still playing are ended
        for clips in results:
            for ext, payload, text, meta in clips:
                if written >= settings.num_clips:
                    break
                w.write_encoded(ext, payload, text, meta)
                written += 1
                bar.update(1)
            if written >= settings.num_clips:
                break
    manifest = w.manifest()
    return ClipsResult(str(Path(out_dir)), written, len(manifest["shards"]), manifest["urls"], time.time() - t0)
