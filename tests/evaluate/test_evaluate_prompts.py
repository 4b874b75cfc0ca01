"""Where a judged prompt lands among the narrator's events, in the text encoder alone."""

from __future__ import annotations

import pytest
import torch

from mineclip.evaluate.prompts import prompt_neighbours
from mineclip.model import build_model


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return build_model("tiny").eval()


def test_a_prompt_said_verbatim_by_one_event_ranks_that_event_first_with_similarity_one(model):
    phrases = {"collect_wood": ["chop a tree"], "eat_cow": ["hunt a cow", "hunted the cow and ate it"],
               "reach_cow": ["found a cow"], "hurt": []}  # an event without phrases is left out
    near = prompt_neighbours(model, ["chop a tree", "hunt a cow"], phrases)
    assert [e for e, _ in near["chop a tree"]][0] == "collect_wood"
    assert near["chop a tree"][0][1] == pytest.approx(1.0, abs=1e-5)
    assert {e for e, _ in near["hunt a cow"]} == {"collect_wood", "eat_cow", "reach_cow"}
    sims = [s for _, s in near["hunt a cow"]]
    assert sims == sorted(sims, reverse=True) and all(-1.0 <= s <= 1.0 + 1e-6 for s in sims)


def test_the_narrators_phrases_and_clear_errors(model):
    from mineclip.play.narrate import EVENTS

    near = prompt_neighbours(model, ["combat a zombie with a wooden sword"], EVENTS)
    assert {e for e, _ in near["combat a zombie with a wooden sword"]} == set(EVENTS)
    with pytest.raises(ValueError, match="non-empty"):
        prompt_neighbours(model, ["  "], EVENTS)
    with pytest.raises(ValueError, match="at least one event"):
        prompt_neighbours(model, ["hunt a cow"], {"eat_cow": []})
