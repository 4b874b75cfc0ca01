"""Minimal-pair captions (mineclip.train.minimal_pairs) are false of their own clip, change one
statement about the scene, and enter the loss as a negative of that clip alone."""

import random

import pytest
import torch
import torch.nn.functional as F

from mineclip.tasks.scenes import DAY, NIGHT, VIEW, VIEW_NEAR
from mineclip.train.loss import ContrastiveLoss, positive_targets
from mineclip.train.minimal_pairs import KINDS, minimal_pair, minimal_pairs


def named_kinds(text: str) -> set[str]:
    return {k for k in KINDS for p in VIEW.get(k, []) + VIEW_NEAR.get(k, []) if p in text}


@pytest.mark.parametrize("seed", range(20))
def test_a_named_thing_in_view_becomes_one_that_is_not(seed):
    holds = ["event:none", "view:cow", "view:zombie", "view:tree", "time:day"]
    out = minimal_pair("looking around, a cow nearby", ["event:none", "view:cow"], holds, random.Random(seed))
    assert out.startswith("looking around, ") and "a cow nearby" not in out
    (kind,) = named_kinds(out.removeprefix("looking around, "))
    assert f"view:{kind}" not in holds


def test_a_near_thing_is_swapped_too():
    holds = ["event:none", "view:water", "near:water", "time:day"]
    out = minimal_pair("standing by the lake", ["event:none", "near:water"], holds, random.Random(0))
    assert "standing by the lake" not in out and named_kinds(out) and "water" not in named_kinds(out)


@pytest.mark.parametrize("said, other", [("it's night", DAY), ("nice day out", NIGHT)])
def test_the_time_of_day_becomes_the_other(said, other):
    fact = "time:night" if said in NIGHT else "time:day"
    out = minimal_pair(f"chop a tree, {said}", ["event:collect_wood", fact], ["event:collect_wood", fact],
                       random.Random(1))
    assert out.startswith("chop a tree, ") and out.removeprefix("chop a tree, ") in other


def test_a_caption_silent_about_the_scene_gets_one_false_statement():
    holds = ["event:collect_wood", "view:tree", "view:cow", "view:water", "time:day"]
    seen = set()
    for seed in range(200):
        out = minimal_pair("chop a tree", ["event:collect_wood"], holds, random.Random(seed))
        assert out.startswith("chop a tree, ")
        added = out.removeprefix("chop a tree, ")
        assert added in NIGHT or (named_kinds(added) and not named_kinds(added) & {"tree", "cow", "water"})
        seen.add("night" if added in NIGHT else named_kinds(added).pop())
    assert seen == {"night", "zombie", "skeleton", "lava", "sand", "stone"}  # every false option is drawn


def test_clips_without_the_narrators_facts_are_refused():
    with pytest.raises(ValueError, match="'says' and 'holds'"):
        minimal_pairs(["chop a tree"], [{"event": "collect_wood"}], random.Random(0))
    with pytest.raises(ValueError, match="drawn uniform or balanced"):
        minimal_pairs(["chop a tree"], [{"says": [], "holds": []}], random.Random(0), draw="rare")


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
            named[draw] += named_kinds(minimal_pairs(texts, metas, rng, draw)[-1].removeprefix("looking around, "))
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
