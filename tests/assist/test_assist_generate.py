from collections import Counter

from mineclip.assist.crowd import load_crowd
from mineclip.assist.generate import generate_pairs
from mineclip.assist.handwritten import SPLITS, load_handwritten
from mineclip.assist.lexicon import TEMPLATE_WORDS
from mineclip.assist.semantic_frame import ACTION_TYPES, DIALOGUE_TYPES, flatten


def test_generation_is_reproducible_and_varied():
    a, b = generate_pairs(300, seed=7), generate_pairs(300, seed=7)
    assert a == b
    assert generate_pairs(300, seed=8) != a
    assert len({p["text"] for p in a}) > 250


def test_generated_slots_carry_made_up_words():
    known = {w for names in TEMPLATE_WORDS.values() for n in names for w in n.split()}
    pairs = generate_pairs(2000, seed=1, oov=0.3)
    unknown_slots = 0
    for p in pairs:
        for start, end in flatten(p["action_dict"]).spans.values():
            unknown_slots += any(w not in known and not w.isdigit() for w in p["words"][start:end + 1])
    assert unknown_slots > 200


def test_the_hand_written_set_is_large_covers_every_type_and_is_never_generated():
    test = load_handwritten("test")
    assert len(test) >= 200
    assert {p["split"] for p in load_handwritten(None)} == set(SPLITS)
    frames = [flatten(p["action_dict"]) for p in test]
    assert {f.get("dialogue_type") for f in frames} == set(DIALOGUE_TYPES)
    crowd_only = {"RESUME", "SPAWN", "OTHER", "COMPOSITE"}  # schema 1.1.0's kinds: the crowd test split has them
    assert {f.get("action_type") for f in frames} - {"NONE"} == set(ACTION_TYPES) - crowd_only
    crowd = {flatten(p["action_dict"]).get("action_type") for p in load_crowd("test")}
    assert crowd >= crowd_only
    assert Counter(f.get("stop") for f in frames)["NONE"] < len(frames)
    texts = [p["text"].lower() for p in load_handwritten(None)]
    assert len(set(texts)) == len(texts)
    generated = {p["text"].lower().rstrip(".!?") for p in generate_pairs(30_000, seed=0)}
    clash = [t for t in texts if t in generated]
    assert clash == [], clash
