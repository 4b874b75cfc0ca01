"""Tokens as the released MineCLIP made them."""

from __future__ import annotations

import open_clip
import pytest
import torch

from mineclip.model import count_tokens, tokenize


def test_hunt_a_cow_has_the_released_ids():
    tokens = tokenize(["hunt a cow"])
    assert tokens.shape == (1, 77) and tokens.dtype == torch.long
    assert tokens[0, :5].tolist() == [49406, 5774, 320, 9706, 49407]
    assert tokens[0, 5:].eq(0).all()


def test_plain_prompts_match_open_clip():
    prompts = ["hunt a cow", "Chop  a TREE", "combat a zombie at night", "shear a sheep, then craft a bed"]
    assert torch.equal(tokenize(prompts), open_clip.tokenize(prompts))


def test_long_text_is_truncated_with_end_of_text_last():
    tokens = tokenize(["mine " * 200])
    assert tokens.shape == (1, 77)
    assert tokens[0, 0] == 49406 and tokens[0, 76] == 49407
    assert tokens[0, 1:76].ne(0).all() and tokens[0, 1:76].ne(49407).all()
    assert count_tokens("mine " * 200) == 200


def test_released_cleaning_keeps_html_entities_that_ftfy_cleaning_unescapes():
    ours, theirs = tokenize(["fish &amp; chips"]), open_clip.tokenize(["fish &amp; chips"])
    assert not torch.equal(ours, theirs)
    assert count_tokens("fish &amp; chips") == count_tokens("fish & chips") + 2  # "amp" and ";" kept
    assert torch.equal(tokenize(["Fish\u00a0 &  CHIPS"]), tokenize(["fish & chips"]))  # whitespace, case


def test_empty_prompt_list_is_refused():
    with pytest.raises(ValueError, match="expected at least one text, got an empty list"):
        tokenize([])
