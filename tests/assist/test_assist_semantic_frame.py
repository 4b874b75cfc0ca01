import random

from mineclip.assist.crowd import load_crowd
from mineclip.assist.generate import TEMPLATES, generate_pair, generate_pairs
from mineclip.assist.handwritten import load_handwritten
from mineclip.assist.semantic_frame import (
    CLASSES,
    Frame,
    assemble,
    flatten,
    spans_of,
    tags_of,
)


def test_dictionaries_and_frames_map_both_ways_exactly():
    pairs = generate_pairs(1500, seed=11) + load_handwritten(None) + load_crowd(None)
    for p in pairs:
        frame = flatten(p["action_dict"])
        assert assemble(frame) == p["action_dict"], p["text"]
        assert flatten(assemble(frame)) == frame


def test_bio_tags_round_trip_the_spans():
    for p in generate_pairs(500, seed=5) + load_crowd(None):
        spans = flatten(p["action_dict"]).spans
        assert spans_of(tags_of(spans, len(p["words"]))) == spans


def test_an_incomplete_frame_assembles_to_an_invalid_dictionary_not_a_crash():
    from mineclip.assist.schema import check

    d = assemble(Frame({"dialogue_type": "HUMAN_GIVE_COMMAND", "action_type": "MOVE"}).normalised())
    assert check(d)  # MOVE without a place: the parser's caller turns this into NOOP


def test_every_template_makes_the_classes_it_claims():
    rng = random.Random(0)
    seen = {k: set() for k in CLASSES}
    for name in TEMPLATES:
        for _ in range(150):
            frame = flatten(generate_pair(rng, template=name)["action_dict"])
            for k in CLASSES:
                seen[k].add(frame.get(k))
    for k, values in CLASSES.items():  # every class of every field occurs in the generated data
        assert seen[k] == set(values), (k, set(values) - seen[k])
