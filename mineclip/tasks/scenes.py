"""How the suite's scenes are put in words when no task happens: idle talk, things in view from afar
and from close by, the time of day.

The narrator of the training clips (`mineclip.play.narrate`) speaks these phrases, and the `scene`
negatives of the reward and the judge (`mineclip.tasks.negatives`) are made of them.
"""

from __future__ import annotations

IDLE = ["just walking around", "roaming a bit", "looking around", "heading over this way",
        "not much going on", "let's keep moving", "wandering around the map"]
VIEW = {
    "cow": ["there's a cow over here", "cows around", "a cow nearby", "a cow near me"],
    "zombie": ["a zombie is coming", "zombie nearby", "watch out, zombie"],
    "skeleton": ["a skeleton in the tunnel", "skeleton over there"],
    "water": ["some water over there", "water in the distance"],
    "lava": ["lava over there", "lava in the distance"],
    "tree": ["some trees around", "trees here"],
    "sand": ["sand everywhere", "on the beach"],
    "stone": ["lots of stone", "the mountain is right here", "up in the mountains"],
    "diamond": ["is that a diamond"],
    "table": ["my crafting table is here"],
    "furnace": ["furnace is here"],
}
# Seen from close by (within the narrator's REACH tiles), water and lava are described as such, so
# that captions tell "at the lake" from "a lake in view": the find tasks are judged by that difference.
VIEW_NEAR = {"water": ["standing by the lake", "right at the water's edge"],
             "lava": ["right next to the lava, careful", "standing by the lava"]}
NIGHT = ["it's night", "so dark now", "night time"]
DAY = ["nice day out", "during the day, sun is up", "daytime"]


def scene_captions() -> list[str]:
    """What the narrator says when no event happens: idle talk and things in view from afar.

    As extra negative prompts of the reward they take the probability of windows that show a
    task's scene without its action (a cow in view, a lake in the distance, just walking), which
    the other task prompts alone leave to whichever prompt names that scene; the near-by views
    (`VIEW_NEAR`, "standing by the lake") are left out: they describe the find tasks' success."""
    return list(dict.fromkeys(IDLE + [c for captions in VIEW.values() for c in captions]))

