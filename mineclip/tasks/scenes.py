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
# How captions name the things in view (the clips' `in_view`; issue 59, part 4): "any", at any
# distance with the same phrases (VIEW, the packaged presets); "ranged", by how far the nearest one
# the frame shows is (VIEW_CLOSE within CLOSE tiles, VIEW_FAR from FAR tiles on), naming too the ores
# and plants that "any" names only when they are mined or eaten (VIEW_UNNAMED); "near", only the
# ones within CLOSE tiles; "salient", with the default's phrases, but each kind in view only with a
# chance of 1 / the tiles to the nearest one the frame shows (`salience`), ores and plants too, so
# that how often a thing is named falls as it gets smaller in the view, as a person narrating
# mentions what fills the screen. Water and lava keep VIEW_NEAR for the narrator's reach.
IN_VIEW = ("any", "ranged", "near", "salient")
CLOSE, FAR = 2, 5
VIEW_UNNAMED = {"coal": ["some coal in the rock", "coal ore over there", "i can see coal"],
                "iron": ["iron ore in the rock", "there's iron over there"],
                "plant": ["a plant growing over there", "a little plant here"]}
VIEW_CLOSE = {"cow": ["a cow right in front of me", "right next to a cow"],
              "zombie": ["a zombie right in my face", "the zombie is right here"],
              "skeleton": ["a skeleton right next to me"],
              "tree": ["right up at a tree", "standing at the tree"],
              "sand": ["standing on the sand"],
              "stone": ["right up against the rock", "at the stone wall"],
              "coal": ["coal right in front of me", "right at the coal"],
              "iron": ["iron right in front of me"],
              "plant": ["a plant right in front of me", "right at the plant"]}
VIEW_FAR = {"cow": ["a cow far off", "a cow way over there"],
            "zombie": ["a zombie far away", "a zombie way over there"],
            "skeleton": ["a skeleton far off"],
            "water": ["a lake far away", "water way over there"],
            "lava": ["lava far off"],
            "tree": ["trees far away", "a forest in the distance"],
            "sand": ["a beach far off"],
            "stone": ["mountains far away", "rock way over there"],
            "coal": ["coal far off in the rock"],
            "iron": ["iron far off"],
            "plant": ["a plant far off"]}
NIGHT = ["it's night", "so dark now", "night time"]
DAY = ["nice day out", "during the day, sun is up", "daytime"]


def check_in_view(in_view: str) -> str:
    """`in_view` if it is one of IN_VIEW, else ValueError."""
    if in_view not in IN_VIEW:
        raise ValueError(f"in_view must be one of {list(IN_VIEW)}, got {in_view!r}")
    return in_view


def scene_captions() -> list[str]:
    """What the narrator says when no event happens: idle talk and things in view from afar.

    As extra negative prompts of the reward they take the probability of windows that show a
    task's scene without its action (a cow in view, a lake in the distance, just walking), which
    the other task prompts alone leave to whichever prompt names that scene; the near-by views
    (`VIEW_NEAR`, "standing by the lake") are left out: they describe the find tasks' success."""
    return list(dict.fromkeys(IDLE + [c for captions in VIEW.values() for c in captions]))

