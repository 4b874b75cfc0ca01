"""Minimal-pair captions: a clip's caption with one thing it says about the scene (or, `events`, what
happens) made false.

Contrastive training against other clips' captions never asks the model to tell "there's a cow over
here" from "a zombie is coming" on the same clip: in a batch, the captions that name a cow differ
from the others in their event too, and the event (shown in the inventory bar) is the easier cue.
NegCLIP (Yuksekgonul et al., 2023, "When and why vision-language models behave like bags-of-words")
adds, for each image, its caption with one part swapped as an extra negative of that image.
`minimal_pair` does that with the narrator's own phrases (a `Phrasebook`, `mineclip.train.supervision`;
the crafter narrator's is `mineclip.play.narrate.PHRASEBOOK`) and the facts it records per clip
(`ClipMeta.says`, what the caption states; `ClipMeta.holds`, what is true of the clip):

- a thing in view the caption names (`view:cow`, `near:water`) becomes a thing that is not in view
  ("there's a cow over here" -> "a zombie is coming" when no zombie is);
- a time it names becomes the other ("it's night" -> "nice day out");
- a caption that says nothing about the scene gets one false statement added ("chop a tree" ->
  "chop a tree, some water over there" when no water is in view; or the wrong time of day).

The result is false of its clip by construction (nothing is named that `holds` has), so it is a
negative of that clip alone (`ContrastiveLoss(hard_text=...)`); whether it is true of another
clip does not matter.

Which absent thing is named (`MODES`): `uniform`, any absent kind alike, or `balanced`, each in
proportion to how many clips of the batch have it in view. Drawn uniformly, the rare kinds (lava,
a skeleton) are named in most pairs, so "lava" becomes a phrase that is usually false, and the
model can meet the pairs by a prior over phrases instead of by looking (the first run lost
`find_lava` and the water tasks: docs/quality.md); balanced, a phrase is a negative about as
often as the thing is there.

The third mode, `events` (`event_pair`), leaves the scene alone and swaps what happens: the event
the caption states becomes the event of another clip of the batch that did not happen in this one
("crafting a wooden sword" -> "crafting a wooden pickaxe"; an event-free caption's idle talk
becomes another clip's event). Drawn from the batch, an event is named falsely about as often as
it happens, and the pair differs from the caption only where the judge's programmatic tasks
differ from each other.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from mineclip.data.clip_meta import ClipMeta

from .loss import clip_facts
from .supervision import Phrasebook

MODES = ("uniform", "balanced", "events")


def _time_phrases(book: Phrasebook, time: str) -> list[str]:
    return list(book.night if time == "night" else book.day)


def _longest_in(text: str, phrases: Sequence[str]) -> str | None:
    """The longest of `phrases` that occurs in `text`, or None."""
    found = [p for p in phrases if p in text]
    return max(found, key=len) if found else None


def _stated(book: Phrasebook, text: str, fact: str) -> str | None:
    """The narrator's phrase in `text` that states `fact` (the longest that occurs), or None."""
    aspect, _, subject = fact.partition(":")
    phrases = {"view": book.view.get(subject, []), "near": book.near.get(subject, []),
               "time": _time_phrases(book, subject) if subject in ("day", "night") else []}.get(aspect, [])
    return _longest_in(text, phrases)


def minimal_pair(book: Phrasebook, text: str, says: Sequence[str], holds: Sequence[str], rng: random.Random,
                 weights: dict[str, float] | None = None) -> str:
    """`text` with one statement about the scene made false (see the module), in the phrases of
    `book`; `says` and `holds` are the clip's facts as the narrator records them; `weights`: how
    likely each kind is to be the one named when it is absent (None, or all absent kinds at 0: alike)."""
    held = set(holds)
    view = book.view
    absent = [k for k in book.kinds if f"view:{k}" not in held]
    weighted = bool(weights) and any(weights.get(k, 0) > 0 for k in absent)
    if weighted:
        absent = [k for k in absent if weights.get(k, 0) > 0]
        pick = lambda: rng.choices(absent, [weights[k] for k in absent])[0]  # noqa: E731
    else:
        pick = lambda: rng.choice(absent)  # noqa: E731
    night = "time:night" in held
    swaps = [f for f in says if f.split(":", 1)[0] in ("view", "near", "time")]
    rng.shuffle(swaps)
    for fact in swaps:
        phrase = _stated(book, text, fact)
        if phrase is None:
            continue
        if fact.startswith("time:"):
            return text.replace(phrase, rng.choice(_time_phrases(book, "day" if fact == "time:night" else "night")), 1)
        if absent:
            return text.replace(phrase, rng.choice(view[pick()]), 1)
    # nothing about the scene said (or nothing to swap it for): add one false statement, each absent
    # kind (or, balanced, all of them together) as likely as the other time of day
    other_time = _time_phrases(book, "day" if night else "night")
    if not weighted:
        return f"{text}, {rng.choice(rng.choice([list(view[k]) for k in absent] + [other_time]))}"
    if absent and rng.random() < len(absent) / (len(absent) + 1):
        return f"{text}, {rng.choice(view[pick()])}"
    return f"{text}, {rng.choice(other_time)}"


def _events(facts: Sequence[str]) -> list[str]:
    return [f.split(":", 1)[1] for f in facts if f.startswith("event:") and f != "event:none"]


def event_pair(book: Phrasebook, text: str, says: Sequence[str], holds: Sequence[str],
               batch_events: Sequence[str], rng: random.Random) -> str:
    """`text` with the event it states swapped for one that did not happen in its clip, drawn from
    `batch_events` (the events the batch's captions state, one entry per caption, so a common event
    is drawn more often) or, when none of those is false here, from every narrated event; a caption
    that states no event has its idle talk (or, without any, its start) replaced by the event."""
    events = book.events
    held = set(_events(holds))
    false = [e for e in batch_events if e not in held and e in events] or [e for e in events if e not in held]
    new = rng.choice(events[rng.choice(false)])
    stated = [e for e in _events(says) if e in events]
    rng.shuffle(stated)
    for phrase in [_longest_in(text, events[e]) for e in stated] + [_longest_in(text, book.idle)]:
        if phrase:
            return text.replace(phrase, new, 1)
    return f"{new}, {text}"


def minimal_pairs(book: Phrasebook, texts: Sequence[str], metas: Sequence[ClipMeta], rng: random.Random,
                  draw: str = "uniform") -> list[str]:
    """One minimal pair per clip of a batch (`draw`, one of `MODES`: see the module) in the phrases of
    `book`; every clip's metadata must carry the narrator's `says` and `holds`."""
    if draw not in MODES:
        raise ValueError(f"minimal pairs are {', '.join(MODES)}, got {draw!r}")
    says, holds = clip_facts(metas, "minimal_pairs")
    if draw == "events":
        batch_events = [e for s in says for e in _events(s)]
        return [event_pair(book, t, s, h, batch_events, rng) for t, s, h in zip(texts, says, holds)]
    weights = None
    if draw == "balanced":  # how many clips of the batch have each kind in view
        weights = {k: sum(f"view:{k}" in h for h in holds) for k in book.kinds}
    return [minimal_pair(book, t, s, h, rng, weights) for t, s, h in zip(texts, says, holds)]
