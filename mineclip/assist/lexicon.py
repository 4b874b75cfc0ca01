"""What the words of a span mean in crafter: the interpreter's lookup from span text to the
simulator's things (kinds to walk to, items to collect, blocks to place, recipes, numbers).

The parser only marks spans; this table resolves them, as CraftAssist's interpreter resolved block
names. It knows more words than the generator's templates use (`generate.py` draws from
`TEMPLATE_WORDS`), so a command can name a thing in words the parser never saw.
"""

from __future__ import annotations

# kind in the world -> the words that name it
KIND_WORDS: dict[str, tuple[str, ...]] = {
    "tree": ("tree", "oak", "forest", "woods", "log", "trunk", "birch", "pine", "wood"),
    "water": ("water", "lake", "pond", "river", "sea", "ocean", "shore", "puddle", "pool", "stream"),
    "stone": ("stone", "rock", "boulder", "cobblestone", "cobble", "mountain", "cliff"),
    "coal": ("coal", "coal ore"),
    "iron": ("iron", "iron ore", "ore"),
    "diamond": ("diamond", "gem"),
    "sand": ("sand", "beach", "desert"),
    "lava": ("lava", "magma"),
    "grass": ("grass", "meadow", "field", "lawn"),
    "table": ("table", "crafting table", "craft table", "workbench", "work bench", "bench"),
    "furnace": ("furnace", "oven", "smelter", "kiln"),
    "plant": ("plant", "sapling", "crop", "bush", "seedling"),
    "cow": ("cow", "cattle", "calf", "bull", "animal", "beef", "meat", "steak"),
    "zombie": ("zombie", "monster", "undead", "enemy"),
    "skeleton": ("skeleton", "archer"),
    "path": ("hole", "path", "tunnel", "pit", "gap"),
}
CREATURES = ("cow", "zombie", "skeleton")
# what collecting a kind puts in the inventory
COLLECT_ITEM = {"tree": "wood", "stone": "stone", "coal": "coal", "iron": "iron", "diamond": "diamond",
                "grass": "sapling", "plant": "sapling", "water": "drink"}
ITEM_WORDS = {"wood": ("wood", "log", "timber", "lumber", "plank"), "sapling": ("sapling", "seed", "seedling"),
              "drink": ("drink",)}
# what can be placed (crafter's place_* actions) -> the words for it
PLACE_WORDS = {"stone": ("stone", "rock", "cobblestone", "cobble", "block", "brick"),
               "table": KIND_WORDS["table"], "furnace": KIND_WORDS["furnace"],
               "plant": ("sapling", "plant", "tree", "seed", "seedling", "bush")}
# a shape of blocks (the schema's has_shape) -> the words that name it
SHAPE_WORDS = {"ROW": ("row", "line", "strip"), "WALL": ("wall", "barrier", "fence"),
               "PILLAR": ("pillar", "tower", "column"), "HOUSE": ("house", "hut", "shelter"), "BRIDGE": ("bridge",)}
TOOLS = ("pickaxe", "sword")
TOOL_WORDS = {"pickaxe": ("pickaxe", "pick", "pickax", "axe"), "sword": ("sword", "blade")}
TOOL_MATERIALS = {"wood": ("wood", "wooden", "oak"), "stone": ("stone", "rock", "cobblestone", "cobble"),
                  "iron": ("iron", "metal", "steel")}
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "once": 1, "single": 1, "two": 2, "twice": 2, "pair": 2, "couple": 2,
                "three": 3, "thrice": 3, "few": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "several": 3, "dozen": 12}
MAX_COUNT = 20  # more than this in one command is refused (a sanity limit, not the game's)

# the subset of words the generator's templates draw from (the rest reach the parser only as
# unknown words, through spans)
TEMPLATE_WORDS: dict[str, tuple[str, ...]] = {
    "tree": ("tree", "trees"), "water": ("water", "lake"), "stone": ("stone", "rock", "rocks"),
    "coal": ("coal",), "iron": ("iron",), "diamond": ("diamond", "diamonds"), "sand": ("sand", "beach"),
    "lava": ("lava",), "grass": ("grass",), "table": ("table", "crafting table"), "furnace": ("furnace",),
    "plant": ("plant", "sapling"), "cow": ("cow", "cows"), "zombie": ("zombie", "zombies"),
    "skeleton": ("skeleton", "skeletons"), "path": ("hole", "tunnel"),
}


def singular(word: str) -> str:
    """A plural noun's singular form (trees -> tree, zombies -> zombie, cattle stays)."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _forms(word: str) -> list[str]:
    """The word and the singular forms it may have (zombies -> zombie, berries -> berry)."""
    out = [word, singular(word)]
    if word.endswith("s") and len(word) > 3:
        out.append(word[:-1])
    return list(dict.fromkeys(out))


def _lookup(text: str, table: dict[str, tuple[str, ...]]) -> str | None:
    words = text.lower().split()
    phrases = {" ".join(words), " ".join(singular(w) for w in words), " ".join(words[:-1] + _forms(words[-1])[-1:])} \
        if words else set()
    for key, names in table.items():
        if phrases & set(names):
            return key
    for w in reversed(words):  # the head noun comes last in English noun phrases
        for form in _forms(w):
            for key, names in table.items():
                if form in names:
                    return key
    return None


def kind_of(text: str) -> str | None:
    """The world kind a phrase names ('the big oak' -> 'tree'), or None."""
    return _lookup(text, KIND_WORDS)


def item_of(text: str) -> str | None:
    """The inventory item a phrase asks to collect ('logs' -> 'wood', 'rocks' -> 'stone'), or None."""
    item = _lookup(text, ITEM_WORDS)
    if item is not None:
        return item
    tool = tool_of(text)
    if tool is not None and any(t in text.lower() for words in TOOL_WORDS.values() for t in words):
        return tool
    kind = kind_of(text)
    return COLLECT_ITEM.get(kind) if kind else None


def placeable_of(text: str) -> str | None:
    """The crafter block a phrase asks to place (stone, table, furnace, plant), or None."""
    return _lookup(text, PLACE_WORDS)


# materials and things crafter has none of, which a block's name may say ("a glass block", "gold bricks")
NOT_IN_CRAFTER = ("glass", "gold", "golden", "wool", "dirt", "obsidian", "emerald", "marble", "concrete", "clay",
                  "ice", "snow", "metal", "steel", "copper", "silver", "quartz", "granite")
# words that may stand beside a block's name without naming another thing
PLAIN_MODIFIERS = ("a", "an", "the", "one", "single", "of", "block", "blocks", "new", "another", "small", "big",
                   "little", "large", "nice", "single", "piece", "some", "your", "my", "crafting", "craft", "work")


def names_other(text: str, placeable: str) -> str | None:
    """A word of a block's name that names something other than `placeable` ('diamond' of 'diamond block'
    for stone), so that the name is not carried out as that block; None when every word fits."""
    own = set(PLACE_WORDS[placeable]) | set(KIND_WORDS.get(placeable, ())) | \
        (set(KIND_WORDS["tree"]) if placeable == "plant" else set())
    for w in text.lower().split():
        s = singular(w)
        if w in own or s in own or w in PLAIN_MODIFIERS:
            continue
        if w in NOT_IN_CRAFTER or s in NOT_IN_CRAFTER or kind_of(s) is not None or item_of(s) is not None:
            return w
    return None


def tool_of(text: str) -> str | None:
    """The tool a phrase names ('a stone pick' -> 'stone_pickaxe'; no material: wood), or None."""
    words = [singular(w) for w in text.lower().split()]
    tool = next((t for t, names in TOOL_WORDS.items() if any(w in names for w in words)), None)
    if tool is None:
        return None
    material = next((m for m, names in TOOL_MATERIALS.items() if any(w in names for w in words)), "wood")
    return f"{material}_{tool}"


def shape_of(text: str) -> str | None:
    """The shape a phrase's head noun names ('a stone wall' -> 'WALL', 'towers' -> 'PILLAR'), or None."""
    words = text.lower().split()
    head = singular(words[-1]) if words else ""
    return next((shape for shape, names in SHAPE_WORDS.items() if head in names), None)


def number_of(text: str) -> int | None:
    """The number a span says ('3', 'three', 'a couple') or None."""
    for w in text.lower().split():
        if w.isdigit():
            return int(w)
        if w in NUMBER_WORDS:
            return NUMBER_WORDS[w]
    return None


def display(thing: str) -> str:
    """A game name for replies ('wood_pickaxe' -> 'wood pickaxe', 'plant' -> 'sapling')."""
    return {"plant": "sapling", "path": "hole", "drink": "water"}.get(thing, thing.replace("_", " "))
