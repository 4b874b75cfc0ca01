"""Minimal-pair captions (mineclip.train.minimal_pairs) are false of their own clip, change one
statement about the scene, and enter the loss as a negative of that clip alone."""

import random

import pytest
import torch
import torch.nn.functional as F

from mineclip.play.narrate import PHRASEBOOK
from mineclip.tasks.scenes import DAY, NIGHT, VIEW, VIEW_NEAR
from mineclip.train.loss import ContrastiveLoss, positive_targets
from mineclip.train.minimal_pairs import event_pair, minimal_pair, minimal_pairs

KINDS = PHRASEBOOK.kinds


def named_kinds(text: str) -> set[str]:
    return {k for k in KINDS for p in VIEW.get(k, []) + VIEW_NEAR.get(k, []) if p in text}


@pytest.mark.parametrize("seed", range(20))
def test_a_named_thing_in_view_becomes_one_that_is_not(seed):
    holds = ["event:none", "view:cow", "view:zombie", "view:tree", "time:day"]
    out = minimal_pair(PHRASEBOOK, "looking around, a cow nearby", ["event:none", "view:cow"], holds, random.Random(seed))
    assert out.startswith("looking around, ") and "a cow nearby" not in out
    (kind,) = named_kinds(out.removeprefix("looking around, "))
    assert f"view:{kind}" not in holds


def test_a_near_thing_is_swapped_too():
    holds = ["event:none", "view:water", "near:water", "time:day"]
    out = minimal_pair(PHRASEBOOK, "standing by the lake", ["event:none", "near:water"], holds, random.Random(0))
    assert "standing by the lake" not in out and named_kinds(out) and "water" not in named_kinds(out)


@pytest.mark.parametrize("said, other", [("it's night", DAY), ("nice day out", NIGHT)])
def test_the_time_of_day_becomes_the_other(said, other):
    fact = "time:night" if said in NIGHT else "time:day"
    out = minimal_pair(PHRASEBOOK, f"chop a tree, {said}", ["event:collect_wood", fact], ["event:collect_wood", fact],
                       random.Random(1))
    assert out.startswith("chop a tree, ") and out.removeprefix("chop a tree, ") in other


def test_a_caption_silent_about_the_scene_gets_one_false_statement():
    holds = ["event:collect_wood", "view:tree", "view:cow", "view:water", "time:day"]
    seen = set()
    for seed in range(200):
        out = minimal_pair(PHRASEBOOK, "chop a tree", ["event:collect_wood"], holds, random.Random(seed))
        assert out.startswith("chop a tree, ")
        added = out.removeprefix("chop a tree, ")
        assert added in NIGHT or (named_kinds(added) and not named_kinds(added) & {"tree", "cow", "water"})
        seen.add("night" if added in NIGHT else named_kinds(added).pop())
    assert seen == {"night", "zombie", "skeleton", "lava", "sand", "stone"}  # every false option is drawn


def test_clips_without_the_narrators_facts_are_refused():
    with pytest.raises(ValueError, match="'says' and 'holds'"):
        minimal_pairs(PHRASEBOOK, ["chop a tree"], [{"event": "collect_wood"}], random.Random(0))
    with pytest.raises(ValueError, match="uniform, balanced, events"):
        minimal_pairs(PHRASEBOOK, ["chop a tree"], [{"says": [], "holds": []}], random.Random(0), draw="rare")


def test_balanced_draws_name_absent_things_as_often_as_the_batch_has_them():
    # 30 clips see water, 10 see lava, 1 a skeleton, the clip at hand none of them
    metas = ([{"says": ["event:none"], "holds": ["event:none", "view:water", "time:day"]}] * 30
             + [{"says": ["event:none"], "holds": ["event:none", "view:lava", "time:day"]}] * 10
             + [{"says": ["event:none"], "holds": ["event:none", "view:skeleton", "time:day"]}]
             + [{"says": ["event:none", "view:cow"], "holds": ["event:none", "view:cow", "time:day"]}])
    texts = ["looking around"] * 41 + ["looking around, a cow nearby"]
    named = {"balanced": [], "uniform": []}
    for draw in named:
        rng = random.Random(0)
        for _ in range(300):
            named[draw] += named_kinds(minimal_pairs(PHRASEBOOK, texts, metas, rng, draw)[-1].removeprefix("looking around, "))
    balanced = {k: named["balanced"].count(k) for k in ("water", "lava", "skeleton", "zombie", "sand")}
    assert balanced["zombie"] == balanced["sand"] == 0  # no clip of the batch has them: never named
    assert balanced["water"] > 2 * balanced["lava"] > 0 and balanced["skeleton"] < balanced["lava"]
    uniform = {k: named["uniform"].count(k) for k in ("water", "lava", "zombie")}
    assert min(uniform.values()) > 20 and max(uniform.values()) < 2 * min(uniform.values())


@pytest.mark.parametrize("keys", [None, torch.tensor([[1], [1], [2]])])
def test_the_hard_negative_is_one_more_column_of_its_own_clip_only(keys):
    g = torch.Generator().manual_seed(0)
    v, t, h = (F.normalize(torch.randn(3, 8, generator=g), dim=-1) for _ in range(3))
    scale = torch.tensor(1.2)
    loss = ContrastiveLoss(multi_positive=keys is not None)
    out = loss(v, t, scale, keys=keys, hard_text=h)
    logits = scale.exp() * v @ t.t()
    targets = positive_targets(keys, keys) if keys is not None else torch.eye(3)
    v2t = torch.cat([logits, scale.exp() * (v * h).sum(-1, keepdim=True)], 1)
    expected = (F.cross_entropy(v2t, F.pad(targets, (0, 1))) + F.cross_entropy(logits.t(), targets)) / 2
    assert out["loss"].item() == pytest.approx(expected.item(), rel=1e-6)
    assert out["logits_v2t"].shape == (3, 3)
    # a hard negative that scores like the caption costs more than one far from the clip
    assert loss(v, t, scale, keys=keys, hard_text=t)["loss"] > loss(v, t, scale, keys=keys, hard_text=-v)["loss"]
    with pytest.raises(ValueError, match="one hard negative per clip"):
        loss(v, t, scale, hard_text=h[:2])


def test_an_event_pair_swaps_the_stated_event_for_another_clip_s_that_did_not_happen_here():
    from mineclip.play.narrate import EVENTS

    says, holds = ["event:make_wood_sword", "time:night"], ["event:make_wood_sword", "event:place_table", "time:night"]
    batch = ["make_wood_sword", "place_table", "make_wood_pickaxe", "collect_drink"]
    seen = set()
    for seed in range(100):
        out = event_pair(PHRASEBOOK, "okay so, crafting a wooden sword, it's night", says, holds, batch, random.Random(seed))
        assert out.startswith("okay so, ") and out.endswith(", it's night") and "sword" not in out
        (event,) = [e for e, phrases in EVENTS.items() if out.removeprefix("okay so, ").removesuffix(", it's night")
                    in phrases]
        seen.add(event)
    assert seen == {"make_wood_pickaxe", "collect_drink"}  # the batch's events that did not happen in this clip


def test_an_event_free_caption_gets_another_clip_s_event_in_place_of_its_idle_talk():
    from mineclip.play.narrate import EVENTS

    out = event_pair(PHRASEBOOK, "looking around, a cow nearby", ["event:none", "view:cow"], ["event:none", "view:cow"],
                     ["collect_wood"], random.Random(0))
    assert out.removesuffix(", a cow nearby") in EVENTS["collect_wood"]
    # no idle talk to replace (a scenery caption): the event comes first
    out = event_pair(PHRASEBOOK, "a cow nearby", ["view:cow"], ["event:none", "view:cow"], ["collect_wood"], random.Random(0))
    assert out.removesuffix(", a cow nearby") in EVENTS["collect_wood"]


def test_event_pairs_draw_the_batch_s_common_events_more_often_and_fall_back_to_any_event():
    from mineclip.play.narrate import EVENTS

    metas = ([{"says": ["event:collect_wood"], "holds": ["event:collect_wood"]}] * 30
             + [{"says": ["event:place_table"], "holds": ["event:place_table"]}] * 3
             + [{"says": ["event:none"], "holds": ["event:none"]}])
    texts = ["chop a tree real quick"] * 30 + ["set a table down here"] * 3 + ["looking around"]
    rng, drawn = random.Random(0), []
    for _ in range(200):
        pair = minimal_pairs(PHRASEBOOK, texts, metas, rng, "events")[-1]
        drawn.append(next(e for e, phrases in EVENTS.items() if pair in phrases))
    assert set(drawn) == {"collect_wood", "place_table"} and drawn.count("collect_wood") > 4 * drawn.count("place_table")
    # every clip of the batch chops wood: the chopping clip's pair names some other narrated event
    out = minimal_pairs(PHRASEBOOK, texts[:2], metas[:2], random.Random(0), "events")
    assert all("tree" not in t and any(t in p for p in EVENTS.values()) for t in out)
