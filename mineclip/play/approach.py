"""What the training narration says about a thing as the player comes near it (issue 59, part 4).

A contrastive reward can only rise along an approach if the captions it was trained on tell the
approach apart from being far away. This replays the clip plan of `mineclip play clips`
(`plan_episodes`: the same tasks, agents, worlds and seeds), narrates every window as the clips
do, keeps the windows the clips keep, and counts, for each kind of target, how often a kept
window's caption names it, by the distance of the nearest one *in view* at the window's last frame
(what the frame shows: the 16 x 9 window from above, the rendered tiles in first person). A caption
names a kind when it states a fact about it: seen (`view:cow`), near (`near:water`), far (`far:cow`,
the clips' `in_view: ranged`) or an event of it (`event:hit_cow`, `event:collect_coal`, ...). No video is encoded.

    python bench/narration.py --view first_person --episodes 400
"""

from __future__ import annotations

import math
from dataclasses import replace

from .clips import ClipSettings, kept_windows, plan_episodes

# the narrator's events about each kind of target (mineclip.play.narrate.EVENTS)
KIND_EVENTS = {
    "cow": ("reach_cow", "hit_cow", "eat_cow"),
    "water": ("reach_water", "collect_drink", "build_bridge"),
    "tree": ("collect_wood",),
    "stone": ("collect_stone", "dig_tunnel"),
    "coal": ("collect_coal",),
    "zombie": ("reach_zombie", "hit_zombie", "defeat_zombie"),
    "plant": ("eat_plant",),
}
BUCKETS = ("1", "2", "3-4", "5-8", "out of view")


def bucket(distance: float) -> str:
    """The distance bucket of the nearest one in view (inf: none in view)."""
    if math.isinf(distance):
        return "out of view"
    return "1" if distance <= 1 else "2" if distance <= 2 else "3-4" if distance <= 4 else "5-8" if distance <= 8 \
        else "out of view"


def names(says: tuple[str, ...], kind: str) -> bool:
    """Whether a caption's facts state something about `kind`."""
    events = {f"event:{e}" for e in KIND_EVENTS[kind]}
    return any(f in (f"view:{kind}", f"near:{kind}", f"far:{kind}") or f in events for f in says)


def approach_narration(view: str, episodes: int = 400, settings: ClipSettings | None = None,
                       kinds: tuple[str, ...] = tuple(KIND_EVENTS), progress: bool = True) -> dict:
    """{kind: {bucket: [windows, windows whose caption names the kind]}} over the first `episodes`
    episodes of the clip plan in `view`, the kept windows only (as `episode_clips` keeps them)."""
    from tqdm import tqdm

    unknown = sorted(set(kinds) - set(KIND_EVENTS))
    if unknown:
        raise ValueError(f"unknown kind(s) {unknown}; expected some of {sorted(KIND_EVENTS)}")
    s = replace(settings or ClipSettings(), view=view)
    jobs = plan_episodes(s)[:episodes]
    counts = {k: {b: [0, 0] for b in BUCKETS} for k in kinds}
    for job in tqdm(jobs, desc=f"narration ({view})", unit="episode", disable=not progress):
        ep, windows = kept_windows(job)
        for caption in windows:
            last = ep.states[caption.start + job["clip_len"] - 1]
            for k in kinds:
                cell = counts[k][bucket(last.view_distance(k))]
                cell[0] += 1
                cell[1] += int(names(caption.says, k))
    return counts
