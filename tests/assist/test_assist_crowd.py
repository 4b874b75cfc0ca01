from collections import Counter

import pytest

from mineclip.assist.craftassist import KINDS
from mineclip.assist.crowd import SPLITS, load_crowd, read_results, split_of
from mineclip.assist.schema import check


def test_every_crowd_command_converts_to_a_valid_dictionary():
    pairs = load_crowd(None)
    assert len(pairs) == 4568  # 1,800 + 1,495 + 1,273: nothing dropped
    assert {p["craftassist_kind"] for p in pairs} == set(KINDS)
    for p in pairs:
        assert check(p["action_dict"], len(p["words"])) == [], p["crowd_text"]
        assert p["spans_known"] == (p["craftassist_kind"] != "Answer")  # a 2019 Answer marks no words


def test_the_split_is_fixed_by_the_words_alone():
    pairs = load_crowd(None)
    sizes = Counter(p["split"] for p in pairs)
    assert dict(sizes) == {"train": 3633, "validation": 459, "test": 476}  # docs/assist.md states these
    assert all(split_of(p["text"]) == p["split"] for p in pairs)
    assert split_of("Build a HOUSE!") == split_of("build a house")
    by_words: dict[str, set] = {}
    for p in pairs:
        by_words.setdefault(" ".join(p["words"]), set()).add(p["split"])
    assert all(len(s) == 1 for s in by_words.values())  # a command written twice is in one split


def test_test_commands_are_never_in_train_or_validation():
    words = {s: {" ".join(p["words"]) for p in load_crowd(s)} for s in SPLITS}
    assert not words["test"] & (words["train"] | words["validation"])
    assert {p["id"] for p in load_crowd("test")} == {p["id"] for p in load_crowd(None) if p["split"] == "test"}


def test_results_files_are_read_as_command_and_dictionary_blocks():
    assert read_results('build a boat .\n{"Build": {}}\n\nstop\n{"Stop": {}}\n') == [
        ("build a boat .", {"Build": {}}), ("stop", {"Stop": {}})]
    with pytest.raises(ValueError, match="block 0"):
        read_results("just a line\n")
    with pytest.raises(ValueError, match="expected a split"):
        load_crowd("dev")
