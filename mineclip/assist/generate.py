"""(command, action dictionary) pairs from templates over the suite's vocabulary: CraftAssist's
"generations". The parser trains on these only; the hand-written set (`data/handwritten.json`)
measures it on other wordings.

Each template writes a sentence piece by piece; pieces that fill a slot become spans, so every
pair's dictionary is exact by construction (`semantic_frame.assemble`) and valid (`schema.validate`).
A share of slot words are made-up words, so that the parser learns to carry words it never saw.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from .lexicon import TEMPLATE_WORDS
from .schema import validate
from .semantic_frame import Frame, assemble
from .tokens import tokenize

PREFIX = ["", "", "", "", "", "please", "can you", "could you", "would you", "hey", "hey bot", "ok", "okay", "now",
          "i want you to", "go ahead and", "try to", "bot", "i need you to", "you should", "now please",
          "alright", "can you please", "will you", "quick", "hey there", "please go and"]
SUFFIX = ["", "", "", "", "", "please", "now", "for me", "right now", "quickly", "thanks", "thank you",
          "when you can", "ok", "if you can", "again"]
NUMBERS = ["2", "3", "4", "5", "6", "two", "three", "four", "five", "six", "seven", "ten", "a couple of", "a few",
           "8", "9", "12"]
DIRECTIONS = {"LEFT": ["left", "west", "to the left", "leftwards"], "RIGHT": ["right", "east", "to the right"],
              "UP": ["up", "north", "upwards"], "DOWN": ["down", "south", "downwards"],
              "FORWARD": ["forward", "ahead", "straight ahead", "forwards", "straight"],
              "BACK": ["back", "backwards", "backward"]}
QPREFIX = ["", "", "", "", "hey", "so", "bot", "ok", "hey bot", "quick question", "um", "and", "tell me"]
QSUFFIX = ["", "", "", "", "now", "right now", "then", "at the moment", "currently", "bot", "by the way"]
PLACE_NAMES = ["home", "base", "camp", "the farm", "the mine", "my house", "spawn", "the cave", "the village",
               "the garden", "the lake house", "point a", "the hideout", "the spot"]
SYLLABLES = ["zor", "bla", "ka", "mi", "tu", "rex", "fen", "dal", "qui", "po", "nar", "vel", "gru", "shi", "lo", "wib"]


def number(rng: random.Random, up_to: int = 60) -> str:
    """A count as people type it: a word, a small number, or any number in digits."""
    return str(rng.randint(1, up_to)) if rng.random() < 0.3 else rng.choice(NUMBERS)


def made_up_word(rng: random.Random) -> str:
    """A pronounceable word no template uses (for slots the parser must carry by position)."""
    if rng.random() < 0.5:
        return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))
    consonants, vowels = "bcdfghjklmnprstvwz", "aeiou"
    word = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(2, 4)))
    return word + (rng.choice(consonants + "s") if rng.random() < 0.5 else "")


VERB_OOV = 0.12  # share of verbs replaced by a made-up word (particles kept: "zorbla over to the tree")


def _verb(rng: random.Random, options: list[str]) -> str:
    """A verb phrase of a template; sometimes with a made-up verb, so that the parser learns to read a verb it
    never saw from the rest of the sentence (a crafter thing: one of our actions; else OTHER)."""
    verb = rng.choice(options)
    if rng.random() < VERB_OOV:
        return " ".join([made_up_word(rng)] + verb.split()[1:])
    return verb


class Sentence:
    """Words added piece by piece; a piece added for a slot becomes that slot's span."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.pieces: list[str] = []
        self.spans: dict[str, tuple[int, int]] = {}

    def add(self, text: str, slot: str | None = None) -> Sentence:
        words = tokenize(text)
        if slot and words:
            # a count like "a couple of" keeps only its number word in the span
            core = [i for i, w in enumerate(words) if w not in ("a", "of", "an")] if slot.endswith("COUNT") else None
            lo, hi = (core[0], core[-1]) if core else (0, len(words) - 1)
            self.spans[slot] = (len(self.words) + lo, len(self.words) + hi)
        self.words += words
        if text:
            self.pieces.append(text)
        return self


def _name(rng: random.Random, kind: str, oov: float) -> str:
    return made_up_word(rng) if rng.random() < oov else rng.choice(TEMPLATE_WORDS[kind])


def _det(rng: random.Random) -> str:
    return rng.choice(["the", "a", "the", "that", "some", "the nearest", "the closest", "this", "", "any"])


# -- templates: each returns (sentence, frame classes) ---------------------------------------------
SIDES = {"LEFT": ["to the left of", "left of", "on the left side of"],
         "RIGHT": ["to the right of", "right of", "on the right side of"], "FRONT": ["in front of"],
         "BEHIND": ["behind", "in back of", "at the back of"], "ABOVE": ["on top of", "above", "onto"],
         "BELOW": ["under", "below", "underneath", "beneath"], "AWAY": ["away from", "far from"]}


def t_move_ref(rng, oov):
    if rng.random() < 0.15:  # a side of the thing: "walk to the left of the tree", "run away from the zombie"
        side = rng.choice(list(SIDES))
        verb = rng.choice(["run", "get", "move", "go", "walk"] if side == "AWAY" else
                          ["go", "walk", "move", "stand", "run", "head", "go stand", "go to the spot"])
        kind = rng.choice([k for k in TEMPLATE_WORDS if k != "path"])
        s = Sentence().add(verb).add(rng.choice(SIDES[side])).add(_det(rng)).add(_name(rng, kind, oov), "LOC")
        return s, {"action_type": "MOVE", "side": side}
    verb = _verb(rng, ["go to", "walk to", "move to", "head to", "run to", "get to", "go over to", "walk over to",
                       "find", "look for", "approach", "go near", "walk up to", "come to", "head over to",
                       "navigate to", "stand next to", "go next to", "search for", "locate"])
    kind = rng.choice([k for k in TEMPLATE_WORDS if k != "path"])
    s = Sentence().add(verb).add(_det(rng)).add(_name(rng, kind, oov), "LOC")
    if rng.random() < 0.2:
        s.add(rng.choice(["over there", "near you", "you can see", "nearby"]))
    return s, {"action_type": "MOVE"}


def t_move_place(rng, oov):
    if rng.random() < 0.25:  # "home" as an adverb: head home, walk back home
        s = Sentence().add(rng.choice(["head", "walk", "run", "hurry", "come", "go back", "head back", "walk back",
                                       "run back", "hurry back", "come back", "get back", "return"]))
        return s.add("home", "LOC"), {"action_type": "MOVE"}
    place = made_up_word(rng) if rng.random() < oov else rng.choice(PLACE_NAMES)
    words = tokenize(place)
    s = Sentence().add(rng.choice(["go to", "go back to", "return to", "walk to", "head back to", "take me to",
                                   "run back to", "head to"]))
    if words[0] == "the" or words[0] == "my":
        s.add(words[0]).add(" ".join(words[1:]), "LOC")
    else:
        s.add(place, "LOC")
    return s, {"action_type": "MOVE"}


def t_move_dir(rng, oov):
    direction = rng.choice(list(DIRECTIONS))
    verb = rng.choice(["go", "walk", "move", "head", "run", "step", "go on", "take"])
    word = rng.choice(DIRECTIONS[direction])
    s = Sentence()
    r = rng.random()
    if r < 0.4:
        s.add(verb).add(word)
        if rng.random() < 0.3:
            s.add(rng.choice(["a bit", "a little", "a little bit", "some more", "for a while", "slightly"]))
    elif r < 0.7:
        s.add(verb).add(number(rng), "STEPS").add(rng.choice(["steps", "tiles", "blocks", "squares"])).add(word)
    else:
        s.add(verb).add(word).add(number(rng), "STEPS").add(rng.choice(["steps", "tiles", "blocks", "times"]))
    return s, {"action_type": "MOVE", "direction": direction}


COLLECT_VERBS = {"tree": ["chop", "cut", "cut down", "chop down", "punch", "harvest", "get wood from"],
                 "stone": ["mine", "dig up", "quarry"], "coal": ["mine", "dig up"], "iron": ["mine", "dig up"],
                 "diamond": ["mine", "dig up"], "plant": ["gather", "pick"], "grass": ["gather", "cut"]}
GENERIC_COLLECT = ["get", "collect", "gather", "grab", "obtain", "fetch", "pick up", "go get", "bring me",
                   "get me", "acquire"]
ITEMS = {"tree": ["wood", "logs", "wood logs"], "stone": ["stone", "stones", "rocks", "cobblestone"],
         "coal": ["coal"], "iron": ["iron", "iron ore"], "diamond": ["diamond", "diamonds"],
         "plant": ["sapling", "saplings"], "grass": ["sapling", "saplings"]}


def t_collect(rng, oov):
    kind = rng.choice(list(COLLECT_VERBS))
    s = Sentence()
    if rng.random() < 0.5:
        verb = _verb(rng, COLLECT_VERBS[kind])
        noun = _name(rng, kind, oov) if kind != "grass" or rng.random() < 0.5 else "grass"
    else:
        verb = _verb(rng, GENERIC_COLLECT)
        noun = made_up_word(rng) if rng.random() < oov else rng.choice(ITEMS[kind])
    s.add(verb)
    if rng.random() < 0.35:
        s.add(number(rng), "COUNT")
        if rng.random() < 0.3:
            s.add(rng.choice(["pieces of", "blocks of", "bits of", "units of"]))
    else:
        s.add(rng.choice(["some", "a", "the", "", "a piece of", "more", "a block of"]))
    s.add(noun, "OBJ")
    return s, {"action_type": "COLLECT"}


def t_destroy(rng, oov):
    kind = rng.choice(["tree", "stone", "table", "furnace", "plant", "coal", "iron"])
    s = Sentence().add(_verb(rng, ["destroy", "break", "smash", "demolish", "knock down", "tear down", "remove",
                                   "wreck", "get rid of"]))
    if rng.random() < 0.2:
        s.add(number(rng), "COUNT")
    else:
        s.add(_det(rng))
    s.add(_name(rng, kind, oov), "OBJ")
    return s, {"action_type": "DESTROY"}


BLOCK_NAMES = {"stone": ["stone", "stone block", "rock", "block of stone"], "table": ["table", "crafting table"],
               "furnace": ["furnace"], "plant": ["sapling", "plant", "tree"]}


def t_build_block(rng, oov):
    block = rng.choice(list(BLOCK_NAMES))
    verbs = {"plant": ["plant", "place", "put down", "put"], "table": ["place", "put down", "build", "set up", "make",
                                                                         "put", "craft", "build me"],
             "furnace": ["place", "build", "put down", "set up", "make", "put", "craft"],
             "stone": ["place", "put down", "put", "drop", "lay", "set down"]}
    s = Sentence().add(_verb(rng, verbs[block])).add(rng.choice(["a", "the", "one", "a", "", "another", "your"]))
    name = made_up_word(rng) if rng.random() < oov else rng.choice(BLOCK_NAMES[block])
    s.add(name, "BLOCK")
    if block == "stone" and rng.random() < 0.3:
        s.add(rng.choice(["block", "blocks"])) if name in ("stone", "rock") and rng.random() < 0.5 else None
    return s, {"action_type": "BUILD", **_maybe_location(s, rng, oov)}


def _maybe_location(s: Sentence, rng, oov, p: float = 0.3) -> dict:
    """Maybe a place after the sentence: next to a thing (or a side of it), or at a named place; the
    classes it adds (a side)."""
    r = rng.random()
    if r < p:
        kind = rng.choice(["tree", "water", "stone", "sand", "table", "furnace", "grass", "lava"])
        side = rng.choice(list(SIDES)) if rng.random() < 0.3 else None
        s.add(rng.choice(SIDES[side]) if side else rng.choice(["next to", "near", "beside", "by", "close to", "at"]))
        s.add(rng.choice(["the", "a", "that"])).add(_name(rng, kind, oov), "LOC")
        return {"side": side} if side else {}
    elif r < p + 0.08:
        place = rng.choice(["home", "base", "camp"])
        s.add(rng.choice(["at", "near"])).add(place, "LOC")
    return {}


def t_build_shape(rng, oov):
    shape = rng.choice(["ROW", "ROW", "WALL", "WALL", "PILLAR", "HOUSE", "BRIDGE"])
    s = Sentence().add(_verb(rng, ["build", "make", "lay", "create", "put up", "construct", "lay down", "place"]))
    if shape == "BRIDGE":
        s.add(rng.choice(["a", "a stone", "a small"])).add("bridge")
        if rng.random() < 0.7:
            s.add(rng.choice(["over", "across"])).add(rng.choice(["the", "that", "this"])).add(
                _name(rng, "water", oov), "LOC")
        return s, {"action_type": "BUILD", "shape": shape}
    word = {"ROW": ["row", "line", "strip"], "WALL": ["wall", "barrier", "fence"], "PILLAR": ["pillar", "tower",
                                                                                                 "column"],
            "HOUSE": ["house", "hut", "shelter"]}[shape]
    block = rng.choice(["stone", "stone", "rock", "sapling", "diamond", "iron", "wood", "table"]) \
        if rng.random() > oov else made_up_word(rng)
    r = rng.random()
    if r < 0.35:  # a row of 4 stones
        s.add(rng.choice(["a", "a long", "a short", "one"])).add(rng.choice(word)).add("of")
        if rng.random() < 0.6:
            s.add(number(rng), "SIZE")
        s.add(block, "BLOCK")
        if rng.random() < 0.3:
            s.add("blocks")
    elif r < 0.7:  # a stone wall (4 blocks long)
        s.add(rng.choice(["a", "a", "one"])).add(block, "BLOCK").add(rng.choice(word))
        if rng.random() < 0.5:
            s.add(number(rng), "SIZE").add(rng.choice(["blocks long", "long", "wide", "blocks wide",
                                                                  "tall", "high", "blocks high"]))
    elif r < 0.8:  # a 4 block stone wall
        s.add("a").add(number(rng, 12), "SIZE").add(rng.choice(["block", "blocks", "tile"]))
        if rng.random() < 0.6:
            s.add(block, "BLOCK")
        s.add(rng.choice(word))
    else:  # 4 stones in a row
        s.add(number(rng), "SIZE").add(block, "BLOCK").add(rng.choice(["in a", "as a", "into a"])).add(
            rng.choice(word))
    return s, {"action_type": "BUILD", "shape": shape, **_maybe_location(s, rng, oov, p=0.15)}


def t_dig(rng, oov):
    s = Sentence().add(_verb(rng, ["dig", "excavate", "carve", "bore", "tunnel"]))
    shape = rng.choice(["TUNNEL", "TUNNEL", "HOLE", "NONE"])
    if shape != "NONE":
        s.add(rng.choice(["a", "a", "a long", "a deep", "a small"]))
        if rng.random() < 0.2:
            s.add(number(rng, 12), "SIZE").add(rng.choice(["block", "tile", "step"]))
        s.add(rng.choice(["tunnel", "passage", "mine"] if shape == "TUNNEL" else ["hole", "pit"]))
        if "SIZE" not in s.spans and rng.random() < 0.4:
            s.add(number(rng), "SIZE").add(rng.choice(["blocks long", "tiles long", "deep", "long",
                                                                  "blocks deep"]))
    if shape == "NONE" or rng.random() < 0.4:
        s.add(rng.choice(["into", "through", "in"])).add(rng.choice(["the", "that", "this"])).add(
            _name(rng, "stone", oov) if rng.random() > 0.3 else rng.choice(["mountain", "cliff"]), "LOC")
    return s, {"action_type": "DIG", "shape": shape}


def t_fill(rng, oov):
    target = rng.choice(["path", "water", "lava"])
    s = Sentence().add(_verb(rng, ["fill", "fill in", "fill up", "cover", "plug", "block", "seal"])).add(
        rng.choice(["the", "that", "this", "a"])).add(_name(rng, target, oov), "OBJ")
    if rng.random() < 0.6:
        s.add(rng.choice(["with", "using"])).add(rng.choice(["", "some", "a"])).add(
            rng.choice(["stone", "rocks", "stones", "cobblestone"]) if rng.random() > oov else made_up_word(rng),
            "BLOCK")
    return s, {"action_type": "FILL"}


def t_craft(rng, oov):
    tool = rng.choice(["pickaxe", "sword", "pick", "pickaxe", "sword"])
    material = rng.choice(["wood", "wooden", "stone", "iron", ""])
    s = Sentence().add(_verb(rng, ["craft", "make", "build", "create", "make me", "craft me", "forge", "get"]))
    if rng.random() < 0.15:
        s.add(rng.choice(["2", "two", "3"]), "COUNT")
    else:
        s.add(rng.choice(["a", "a", "the", "one", "another", "a new"]))
    name = f"{material} {tool}".strip() if rng.random() > oov else made_up_word(rng)
    s.add(name, "OBJ")
    return s, {"action_type": "CRAFT"}


def t_fight(rng, oov):
    kind = rng.choice(["cow", "zombie", "skeleton"])
    s = Sentence().add(_verb(rng, ["kill", "attack", "fight", "hunt", "slay", "defeat", "hit", "punch", "beat",
                                   "go kill", "go hunt", "take down", "murder", "strike", "fight off"]))
    if rng.random() < 0.25:
        s.add(number(rng), "COUNT")
    else:
        s.add(_det(rng))
    s.add(_name(rng, kind, oov), "OBJ")
    return s, {"action_type": "FIGHT"}


def t_eat(rng, oov):
    s = Sentence()
    r = rng.random()
    if r < 0.4:
        s.add(rng.choice(["eat", "go eat", "eat some", "have some", "find some"])).add(
            rng.choice(["food", "something", "a meal", "lunch", "dinner"]))
    elif r < 0.8:
        s.add(rng.choice(["eat", "go eat", "eat a", "eat the", "feed on the", "eat that"])).add(
            _name(rng, rng.choice(["cow", "plant"]), oov), "OBJ")
    else:
        s.add(rng.choice(["eat", "eat something", "you should eat", "get some food", "go find food", "grab a bite"]))
    return s, {"action_type": "EAT"}


def t_drink(rng, oov):
    s = Sentence().add(rng.choice(["drink", "drink some water", "drink water", "have a drink", "get a drink",
                                   "get some water to drink", "go drink", "take a sip", "drink from the lake",
                                   "quench your thirst"]))
    if rng.random() < 0.25:
        s.add(number(rng), "COUNT").add(rng.choice(["times", "sips"]))
    return s, {"action_type": "DRINK"}


def t_simple(rng, oov):
    kind = rng.choice(["SLEEP", "STOP", "UNDO"])
    phrase = rng.choice({
        "SLEEP": ["sleep", "go to sleep", "take a nap", "go to bed", "have a rest", "get some sleep", "nap",
                  "lie down and sleep", "rest for a while"],
        "STOP": ["stop", "halt", "stop that", "cancel", "stop what you are doing", "freeze", "never mind",
                 "abort", "stop it", "cancel that", "stop moving", "quit it", "cut it out", "enough"],
        "UNDO": ["undo", "undo that", "revert that", "take that back", "undo the last thing", "reverse that",
                 "undo your last action", "revert the last change", "put it back how it was"],
    }[kind])
    return Sentence().add(phrase), {"action_type": kind}


GERUNDS = {"tree": ["chopping", "cutting", "chopping down", "punching", "harvesting"], "stone": ["mining", "digging up"],
           "coal": ["mining"], "iron": ["mining"], "plant": ["gathering", "picking"]}


def t_loop(rng, oov):
    r = rng.random()
    if r < 0.55:
        kind = rng.choice(["tree", "stone", "coal", "iron", "plant"])
        s = Sentence()
        if rng.random() < 0.5:
            s.add(rng.choice(["keep", "continue", "keep on"]))
            verb = rng.choice(GERUNDS[kind] + ["getting", "collecting", "gathering", "grabbing"])
        else:
            verb = rng.choice(COLLECT_VERBS[kind] + GENERIC_COLLECT)
        s.add(verb).add(rng.choice(["", "some", "more"])).add(_name(rng, kind, oov), "OBJ")
        s.add(rng.choice(["until", "till", "until you have", "till you have", "until you've got"]))
        if "have" not in s.words and "got" not in s.words:
            s.add(rng.choice(["you have", "you've got", "you get", "there are"]))
        s.add(number(rng), "UNTIL_COUNT")
        item = rng.choice({"tree": ["wood", "logs"], "stone": ["stone", "stones"], "coal": ["coal"],
                           "iron": ["iron"], "plant": ["saplings"]}[kind])
        s.add(item if rng.random() > oov else made_up_word(rng), "UNTIL_OBJ")
        return s, {"action_type": "COLLECT", "stop": "HAVE"}
    inner, classes = rng.choice([t_fight, t_collect, t_drink, t_move_ref, t_eat])(rng, oov)
    s = inner
    stop = rng.choice(["NIGHT", "DAY"])
    s.add(rng.choice(["until", "till", "up until"])).add(rng.choice(
        {"NIGHT": ["it is night", "it gets dark", "night", "nightfall", "dark", "the sun sets", "it's night time",
                   "night comes", "evening"],
         "DAY": ["it is day", "morning", "sunrise", "the sun comes up", "daylight", "it gets light", "dawn",
                 "it's day again"]}[stop]))
    return s, {**classes, "stop": stop}


def t_get_memory(rng, oov):
    s = Sentence()
    if rng.random() < 0.12:  # a question neither memory nor the state answers
        s.add(rng.choice(["how do i make a bed", "what is the capital of france", "how deep is the lake",
                          "why is the sky blue", "how do i get to the nether", "what should i build next",
                          "answer the question", "how many blocks is the house", "what is the best weapon",
                          "can you explain how crafting works", "answer my question", "how tall is the mountain",
                          "who built this house", "how far away is the village",
                          "which way is the ocean", "what is in the chest", "is it going to rain"]))
        return s, {"dialogue_type": "GET_MEMORY", "memory_type": "OTHER"}
    r = rng.random()
    if r < 0.3:
        if rng.random() < 0.5:
            s.add(rng.choice(["what do you have", "what is in your inventory", "show me your inventory",
                              "what are you carrying", "list your items", "check your inventory",
                              "what's in your bag", "what have you got", "inventory"]))
        else:
            kind = rng.choice(["tree", "stone", "coal", "iron", "diamond", "plant"])
            noun = made_up_word(rng) if rng.random() < oov else rng.choice(ITEMS[kind] + ["pickaxe", "sword",
                                                                                         "wood pickaxe"])
            s.add(rng.choice(["how much", "how many", "do you have any", "do you have a", "do you have",
                              "have you got any", "how much", "how many"])).add(noun, "OBJ")
            if rng.random() < 0.6 and s.words[0] == "how":
                s.add(rng.choice(["do you have", "have you got", "are in your inventory", "do you carry"]))
        return s, {"dialogue_type": "GET_MEMORY", "memory_type": "INVENTORY"}
    if r < 0.5:
        s.add(rng.choice(["what do you see", "what can you see", "what's around you", "describe what you see",
                          "look around", "what is around", "describe the area", "what's nearby",
                          "what do you see around you", "tell me what you see", "describe your surroundings",
                          "what is in front of you", "what's in view"]))
        return s, {"dialogue_type": "GET_MEMORY", "memory_type": "SCENE"}
    if r < 0.7:
        if rng.random() < 0.25:
            s.add(rng.choice(["where are you", "where are we", "what is your position", "where am i"]))
        else:
            s.add(rng.choice(["where is", "where's", "where did you see", "where can i find", "where was",
                              "do you know where", "where is the nearest"]))
            if rng.random() < 0.5:
                s.add(rng.choice(["the", "a", "some"])).add(_name(rng, rng.choice(list(TEMPLATE_WORDS)), oov),
                                                            "OBJ")
            else:
                place = made_up_word(rng) if rng.random() < oov else rng.choice(["home", "base", "camp", "spawn"])
                s.add(place, "OBJ")
            if "know" in s.words:
                s.add(rng.choice(["is", "it is"]))
        return s, {"dialogue_type": "GET_MEMORY", "memory_type": "PLACE"}
    if r < 0.85:
        s.add(rng.choice(["what are you doing", "what is your task", "are you busy", "what are you working on",
                          "what's your current task", "status", "what's going on", "what are you up to",
                          "are you done", "did you finish"]))
        return s, {"dialogue_type": "GET_MEMORY", "memory_type": "TASK"}
    s.add(rng.choice(["how are you", "are you hungry", "how is your health", "are you thirsty", "are you tired",
                      "how do you feel", "are you hurt", "how much health do you have", "how are you doing",
                      "are you ok", "check your health", "what's your health"]))
    return s, {"dialogue_type": "GET_MEMORY", "memory_type": "VITALS"}


def t_put_memory(rng, oov):
    s = Sentence()
    if rng.random() < 0.12:  # a name for a thing ("call that tree bob")
        s.add(rng.choice(["call", "name", "tag", "label", "call the", "name the", "tag the", "call that", "name that"]))
        if s.words[-1] not in ("the", "that"):
            s.add(rng.choice(["the", "that", "this"]))
        s.add(_name(rng, rng.choice(["tree", "stone", "cow", "table", "water", "zombie"]), oov), "OBJ")
        s.add(rng.choice(["", "as", "", "as"]))
        return s.add(made_up_word(rng) if rng.random() < 0.5 else rng.choice(["bob", "home", "betsy", "big one",
                                                                              "the landmark", "old faithful"]),
                     "NAME"), {"dialogue_type": "PUT_MEMORY", "memory_type": "NAME"}
    if rng.random() < 0.55:
        place = made_up_word(rng) if rng.random() < max(oov, 0.25) else rng.choice(PLACE_NAMES)
        words = tokenize(place)
        lead = rng.choice(["call this place", "name this spot", "remember this place as", "this is", "call this",
                           "name this place", "this spot is", "let's call this", "mark this spot as",
                           "save this location as", "remember this spot as", "here is", "label this place"])
        s.add(lead)
        if words[0] in ("the", "my"):
            s.add(words[0]).add(" ".join(words[1:]), "NAME")
        else:
            s.add(place, "NAME")
        return s, {"dialogue_type": "PUT_MEMORY", "memory_type": "NAME"}
    good = rng.random() < 0.5
    s.add(rng.choice(["good job", "well done", "great work", "nice", "perfect", "thanks that was great",
                      "good bot", "that's right", "awesome", "nicely done", "exactly right", "great"]
                     if good else
                     ["that was wrong", "bad bot", "no that's not right", "wrong", "that's not what i asked",
                      "you did it wrong", "not like that", "that's incorrect", "terrible", "no wrong one",
                      "that was a mistake"]))
    return s, {"dialogue_type": "PUT_MEMORY", "memory_type": "FEEDBACK", "feedback": "POSITIVE" if good else "NEGATIVE"}


def t_noop(rng, oov):
    s = Sentence()
    r = rng.random()
    if r < 0.85:  # chatter; word salad is rarer (the dialogue manager refuses messages of unknown words)
        s.add(rng.choice(["hello", "hi", "hi there", "hey", "good morning", "lol", "ok", "cool", "hmm", "yes", "no",
                          "nice weather today", "i like turtles", "tell me a joke", "who are you",
                          "what is your name", "bye", "see you later", "i'm bored", "this game is fun",
                          "what time is it", "haha", "interesting", "sure", "whatever", "i am going to lunch",
                          "my name is alex", "do you like minecraft", "sing a song", "the sky is blue",
                          "how old are you", "i love this", "brb", "test", "testing 1 2 3",
                          "what's your favourite food", "do you like music", "where do you live", "are you real",
                          "i have to go now", "you are funny", "what day is it", "can we be friends",
                          "i had pizza for dinner", "what is two plus two", "good night", "welcome back"]))
    else:  # word salad of letter strings and small words, no verb of a command
        words = ["".join(rng.choice("bcdfghjklmnpqrstvwxyzaeiou") for _ in range(rng.randint(3, 8)))
                 if rng.random() < 0.7 else rng.choice(["the", "is", "a", "of", "blue", "sky", "very", "and"])
                 for _ in range(rng.randint(1, 6))]
        s.add(" ".join(words))
    return s, {"dialogue_type": "NOOP"}


def t_move_speaker(rng, oov):
    s = Sentence().add(rng.choice(["come here", "come to me", "follow me", "come over here", "get over here",
                                   "come back to me", "walk over to me", "stand next to me", "come find me",
                                   "meet me here", "come closer", "come to my location", "walk to where i am",
                                   "go where i'm looking", "stay with me", "come stand by me"]))
    return s, {"action_type": "MOVE", "speaker": "SPEAKER"}


# things crafter has no block or skill for: to build, to spawn, to act on
THINGS = ["boat", "castle", "church", "car", "rocket", "pyramid", "statue", "garden", "fire", "swimming pool",
          "treehouse", "mansion", "staircase", "roof", "door", "window", "fountain", "farm", "barn", "robot",
          "snowman", "ship", "lighthouse", "maze", "temple", "chair", "bed", "torch", "ladder", "cabin"]
CREATURE_NAMES = ["pig", "pigs", "sheep", "chicken", "chickens", "horse", "dragon", "villager", "villagers", "creeper",
                  "wolf", "cat", "dog", "cow", "cows", "zombie", "zombies", "skeleton"]
OTHER_ACTS = [("answer", ["the door", "the phone"]), ("order", ["a pizza", "some food", "a taxi"]),
              ("turn on", ["the lights", "the tv", "the radio"]), ("turn off", ["the lights", "the oven"]),
              ("open", ["the chest", "the door", "the gate", "the window"]), ("close", ["the door", "the gate"]),
              ("paint", ["the wall", "the house", "the fence"]), ("feed", ["the dog", "the cat", "the horse"]),
              ("ride", ["the horse", "a pig", "the boat"]), ("read", ["the book", "the sign", "the map"]),
              ("call", ["my mom", "the police"]), ("clean", ["the room", "the kitchen", "your room"]),
              ("wash", ["the dishes", "the car"]), ("sell", ["the gold", "the house"]),
              ("buy", ["some bread", "a hat", "a new house"]), ("climb", ["the ladder", "the wall", "the fence"]),
              ("push", ["the button", "the cart"]), ("move", ["the chest", "the car", "the couch"]),
              ("throw", ["the ball", "the snowball"]), ("light", ["the torch", "a fire"]), ("cook", ["the fish", "dinner"]),
              ("fly", ["the plane", "to the moon"]), ("swim", ["in the lake", "across the river"]),
              ("dance", []), ("jump", []), ("wave", []), ("fly", []), ("swim", [])]


def t_build_thing(rng, oov):
    s = Sentence().add(_verb(rng, ["build", "make", "build me", "create", "construct", "make me", "put up",
                                   "help me build", "finish building", "can you build"]))
    s.add(rng.choice(["a", "a", "an", "a big", "a small", "the", "another", "a new"]))
    s.add(made_up_word(rng) if rng.random() < oov else rng.choice(THINGS), "OBJ")
    if rng.random() < 0.25:
        s.add(rng.choice(["out of", "with", "from", "made of", "using"])).add(
            rng.choice(["stone", "wood", "diamonds", "glass", "bricks", "gold", "iron"]) if rng.random() > oov
            else made_up_word(rng), "BLOCK")
    return s, {"action_type": "BUILD", **_maybe_location(s, rng, oov, p=0.2)}


def t_spawn(rng, oov):
    s = Sentence().add(_verb(rng, ["spawn", "summon", "spawn in", "create", "make", "conjure", "bring in"]))
    if rng.random() < 0.3:
        s.add(number(rng, 20), "COUNT")
    else:
        s.add(rng.choice(["a", "a", "some", "another", "an", "a new"]))
    s.add(made_up_word(rng) if rng.random() < oov else rng.choice(CREATURE_NAMES), "OBJ")
    if rng.random() < 0.15:
        s.add(rng.choice(["here", "nearby", "right here", "next to me"]))
    return s, {"action_type": "SPAWN"}


def t_resume(rng, oov):
    return Sentence().add(rng.choice(["resume", "continue", "keep going", "carry on", "go on", ("continue what you were "
                                      "doing"), "resume what you were doing", "pick up where you left off",
                                      "get back to work", "continue your task", "resume your work", "keep at it",
                                      "resume building", "continue digging", "keep working", "finish what you started",
                                      "go back to what you were doing", "you can continue now"])), {"action_type": "RESUME"}


def t_other(rng, oov):
    verb, objects = rng.choice(OTHER_ACTS)
    s = Sentence().add(_verb(rng, [verb]))
    if objects:
        words = tokenize(rng.choice(objects))
        lead = [w for w in words[:-1] if w in ("the", "a", "an", "my", "some", "your", "to", "in", "across")]
        s.add(" ".join(lead))
        rest = words[len(lead):]
        s.add(made_up_word(rng) if rng.random() < oov else " ".join(rest), "OBJ")
        if rng.random() < 0.15:
            s.add(rng.choice(["in", "near", "by"])).add("the").add(rng.choice(["kitchen", "house", "garden", "tree",
                                                                               "lake", "village"]), "LOC")
    return s, {"action_type": "OTHER"}


COMPOSABLE = ("move_ref", "collect", "destroy", "build_block", "dig", "fill", "craft", "fight", "drink")


def t_composite(rng, oov):
    first, _ = TEMPLATES[rng.choice(COMPOSABLE)][0](rng, oov)
    second, _ = TEMPLATES[rng.choice(COMPOSABLE)][0](rng, oov)
    s = Sentence().add(" ".join(first.words)).add(rng.choice(["and", "and then", "then", "and after that",
                                                              "after that", "and also", "before you"]))
    return s.add(" ".join(second.words)), {"action_type": "COMPOSITE"}


TEMPLATES: dict[str, tuple[Callable, float]] = {
    "move_ref": (t_move_ref, 1.2), "move_place": (t_move_place, 0.4), "move_dir": (t_move_dir, 0.8),
    "collect": (t_collect, 1.3), "destroy": (t_destroy, 0.5), "build_block": (t_build_block, 1.0),
    "build_shape": (t_build_shape, 1.0), "dig": (t_dig, 0.6), "fill": (t_fill, 0.5), "craft": (t_craft, 0.8),
    "fight": (t_fight, 0.8), "eat": (t_eat, 0.5), "drink": (t_drink, 0.5), "simple": (t_simple, 0.9),
    "loop": (t_loop, 0.9), "get_memory": (t_get_memory, 1.3), "put_memory": (t_put_memory, 0.8),
    "noop": (t_noop, 0.7), "move_speaker": (t_move_speaker, 0.25), "build_thing": (t_build_thing, 0.5),
    "spawn": (t_spawn, 0.3), "resume": (t_resume, 0.3), "other": (t_other, 0.6), "composite": (t_composite, 0.4),
}


def generate_pair(rng: random.Random, oov: float = 0.1, template: str | None = None) -> dict:
    """One generated pair {"text", "words", "action_dict", "template"}."""
    name = template or rng.choices(list(TEMPLATES), weights=[w for _, w in TEMPLATES.values()])[0]
    core, classes = TEMPLATES[name][0](rng, oov)
    s = Sentence()
    kind = classes.get("dialogue_type", "HUMAN_GIVE_COMMAND")
    prefix, suffix = {"HUMAN_GIVE_COMMAND": (PREFIX, SUFFIX), "GET_MEMORY": (QPREFIX, QSUFFIX),
                      "PUT_MEMORY": (["", "", "", "oh", "ok", "yes", "hey", "hmm"], ["", "", "", "bot", "thanks"])
                      }.get(kind, ([""], [""]))
    if classes.get("memory_type") == "FEEDBACK":
        prefix = ["", "", "", "wow", "oh", "no", "nope", "yes", "yeah", "hmm", "ugh"]
    s.add(rng.choice(prefix))
    offset = len(s.words)
    s.words += core.words
    s.pieces.append(" ".join(core.words))
    s.spans = {k: (a + offset, b + offset) for k, (a, b) in core.spans.items()}
    s.add(rng.choice(suffix))
    text = " ".join(p for p in s.pieces if p)
    text += rng.choice(["", "", "", ".", "!", "?"] if classes.get("dialogue_type") == "GET_MEMORY" else ["", "", ".",
                                                                                                         "!"])
    if rng.random() < 0.3:
        text = text[:1].upper() + text[1:]
    frame = Frame({"dialogue_type": "HUMAN_GIVE_COMMAND", **classes}, s.spans).normalised()
    d = validate(assemble(frame), num_words=len(s.words))
    assert tokenize(text) == s.words, (text, s.words)
    return {"text": text, "words": s.words, "action_dict": d, "template": name}


def generate_pairs(n: int, seed: int = 0, oov: float = 0.1) -> list[dict]:
    """`n` generated (command, action dictionary) pairs, reproducible from `seed`."""
    rng = random.Random(seed)
    return [generate_pair(rng, oov) for _ in range(n)]

