import socket

import pytest
import torch
import torch.multiprocessing as mp

from mineclip.model import MineCLIP, tokenize
from mineclip.train.loss import (ContrastiveLoss, fact_ids, graded_targets, named_shares, positive_targets, size_ranking_loss,
                                 truth_positives)
from mineclip.model import get_config

from helpers.models import MICRO
from helpers.training import CAPTIONS, NUM_FRAMES, RESOLUTION
from helpers.ddp_worker import global_batch, loss_and_grads, worker


def _normal(n, d, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.nn.functional.normalize(torch.randn(n, d, generator=g), dim=-1)


def test_one_positive_infonce_is_symmetric_cross_entropy():
    v, t = _normal(6, 8, 0), _normal(6, 8, 1)
    scale = torch.tensor(2.0)
    out = ContrastiveLoss(multi_positive=False)(v, t, scale)
    logits = scale.exp() * v @ t.t()
    labels = torch.arange(6)
    expected = (torch.nn.functional.cross_entropy(logits, labels) + torch.nn.functional.cross_entropy(logits.t(), labels)) / 2
    assert out["loss"].item() == pytest.approx(expected.item(), rel=1e-6)


def test_unique_captions_make_multi_positive_equal_to_one_positive():
    v, t = _normal(5, 8, 0), _normal(5, 8, 1)
    keys = tokenize([f"caption {i}" for i in range(5)])
    a = ContrastiveLoss(True)(v, t, torch.tensor(1.0), keys)["loss"]
    b = ContrastiveLoss(False)(v, t, torch.tensor(1.0), keys)["loss"]
    assert a.item() == pytest.approx(b.item(), rel=1e-6)


def test_repeated_keys_are_positives_of_each_other():
    keys = tokenize(["chop a tree", "drink water", "chop a tree"])
    targets = positive_targets(keys, keys)
    assert torch.allclose(targets[0], torch.tensor([0.5, 0.0, 0.5]))
    assert torch.allclose(targets[1], torch.tensor([0.0, 1.0, 0.0]))


def test_identical_captions_give_the_one_positive_loss_but_shared_events_do_not():
    v = _normal(4, 8, 0)
    t = _normal(4, 8, 1)
    t[2] = t[0]  # the text tower maps identical captions to identical embeddings
    caption_keys = torch.tensor([[0], [1], [0], [3]])
    loss = lambda multi, keys: ContrastiveLoss(multi)(v, t, torch.tensor(2.0), keys)["loss"].item()  # noqa: E731
    assert loss(True, caption_keys) == pytest.approx(loss(False, caption_keys), rel=1e-6)
    event_keys = torch.tensor([[0], [0], [2], [3]])  # different captions of one event
    assert loss(True, event_keys) != pytest.approx(loss(False, event_keys), rel=1e-3)


def test_a_caption_is_a_positive_of_every_clip_it_is_true_of():
    says = fact_ids([["event:collect_wood"], ["event:collect_wood", "view:cow"], ["event:none"], []], 8)
    holds = fact_ids([["event:collect_wood", "time:day"], ["event:collect_wood", "view:cow", "time:day"],
                      ["event:none", "view:cow"], ["time:night"]], 8)
    pos = truth_positives(says, holds)  # [clip, caption]
    assert pos.tolist() == [[True, False, False, True],   # a wood clip without a cow: not "..., a cow nearby"
                            [True, True, False, True],    # with the cow: both wood captions are true
                            [False, False, True, True],   # an idle clip: only the idle caption (and the empty one)
                            [False, False, False, True]]
    assert (fact_ids([["a", "b"]], 4) != 0).sum() == 2 and fact_ids([["a"]], 2)[0, 0] == fact_ids([["a"]], 3)[0, 0]
    with pytest.raises(ValueError, match="more than"):
        fact_ids([["a", "b", "c"]], 2)


def test_truth_targets_are_uniform_over_true_captions_in_each_direction():
    v, t = _normal(3, 8, 0), _normal(3, 8, 1)
    says = fact_ids([["event:collect_wood"], ["event:collect_wood", "view:cow"], ["event:none"]], 4)
    holds = fact_ids([["event:collect_wood"], ["event:collect_wood", "view:cow"], ["event:none"]], 4)
    scale = torch.tensor(1.5)
    out = ContrastiveLoss()(v, t, scale, facts=(says, holds))
    logits = scale.exp() * v @ t.t()
    v2t = torch.tensor([[1, 0, 0], [0.5, 0.5, 0], [0, 0, 1]])  # clip 1 is told both ways
    t2v = torch.tensor([[0.5, 0.5, 0], [0, 1, 0], [0, 0, 1]])  # "chop a tree" is true of clips 0 and 1
    expected = (torch.nn.functional.cross_entropy(logits, v2t) + torch.nn.functional.cross_entropy(logits.t(), t2v)) / 2
    assert out["loss"].item() == pytest.approx(expected.item(), rel=1e-6)
    assert torch.allclose(out["targets"], v2t)
    with pytest.raises(ValueError, match="not true of it"):  # a caption must be true of its own clip
        ContrastiveLoss()(v, t, scale, facts=(says, fact_ids([["event:none"]] * 3, 4)))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_completion_of_one_is_the_ungraded_loss_in_every_positive_scheme():
    v, t = _normal(4, 8, 0), _normal(4, 8, 1)
    scale, ones = torch.tensor(2.0), torch.ones(4)
    keys = torch.tensor([[1], [1], [2], [3]])
    facts = (fact_ids([["view:cow"], ["event:none"], ["view:cow"], ["time:day"]], 4),
             fact_ids([["view:cow"], ["event:none", "view:cow"], ["view:cow"], ["time:day"]], 4))
    for loss, kwargs in ((ContrastiveLoss(False), {}), (ContrastiveLoss(True), {"keys": keys}),
                         (ContrastiveLoss(True), {"facts": facts})):
        plain = loss(v, t, scale, **kwargs)
        graded = loss(v, t, scale, completion=ones, **kwargs)
        assert graded["loss"].item() == pytest.approx(plain["loss"].item(), rel=1e-6)


def test_completion_spreads_the_rest_of_a_clips_target_over_every_caption():
    v, t = _normal(4, 8, 0), _normal(4, 8, 1)
    scale, completion = torch.tensor(2.0), torch.tensor([1.0, 0.5, 0.25, 0.0])
    out = ContrastiveLoss(False)(v, t, scale, completion=completion)
    logits = scale.exp() * v @ t.t()
    soft = completion[:, None] * torch.eye(4) + (1 - completion[:, None]) / 4
    torch.testing.assert_close(graded_targets(torch.eye(4), completion), soft)
    v2t = torch.nn.functional.cross_entropy(logits, soft)
    t2v = torch.nn.functional.cross_entropy(logits.t(), torch.arange(4))  # the text->video side is not graded
    assert out["loss"].item() == pytest.approx(((v2t + t2v) / 2).item(), rel=1e-6)
    assert out["targets"].tolist() == [0, 1, 2, 3]  # in-batch R@1 still counts the positives, ungraded
    # a lower completion lowers the probability the loss asks of a clip's own caption
    assert soft[2, 2] < soft[1, 1] < soft[0, 0] and soft[3].tolist() == [0.25] * 4
    for bad in (torch.tensor([1.0, 0.5, 1.5, 0.0]), torch.tensor([-0.1, 0.5, 1.0, 0.0]), torch.ones(3)):
        with pytest.raises(ValueError, match=r"completion must be one value in \[0, 1\] per clip"):
            ContrastiveLoss(False)(v, t, scale, completion=bad)


def test_two_process_gather_gives_the_loss_and_gradients_of_one_process(tmp_path):
    out = tmp_path / "ddp.pt"
    config = get_config(MICRO)
    batch_args = (4, NUM_FRAMES - 2, RESOLUTION, CAPTIONS)
    mp.spawn(worker, args=(2, _free_port(), str(out), config.to_dict(), batch_args), nprocs=2, join=True)
    ddp = torch.load(out)
    torch.manual_seed(0)
    model = MineCLIP(config)
    loss, grads = loss_and_grads(model, *global_batch(*batch_args))
    assert ddp["loss"].item() == pytest.approx(loss.item(), rel=1e-5)
    assert set(ddp["grads"]) == set(grads)
    for name, g in grads.items():
        torch.testing.assert_close(ddp["grads"][name], g, rtol=1e-4, atol=1e-6, msg=name)


def test_named_shares_are_the_least_share_of_what_each_caption_names():
    metas = [{"named": ["cow"], "shares": {"cow": 0.2, "grass": 0.5}},
             {"named": ["cow", "water"], "shares": {"cow": 0.01, "water": 0.3}},
             {"named": [], "shares": {"grass": 0.9}}]
    shares = named_shares(metas)
    torch.testing.assert_close(shares[0], torch.tensor([0.2, 0.01, 0.0]))
    torch.testing.assert_close(shares[1], torch.tensor([0.0, 0.01, 0.0]))  # the least of cow and water
    assert shares[2].isnan().all()  # a caption that names nothing orders nothing
    with pytest.raises(ValueError, match="size_ranking needs each clip's meta 'named' and 'shares'.*1 of 2"):
        named_shares([metas[0], {"named": ["cow"]}])  # a top-down clip: no shares


def test_size_ranking_asks_a_caption_to_prefer_the_clip_its_kinds_fill_more():
    # caption 0 names a cow: clip 1 shows it 4x bigger than clip 0, clip 2 not at all
    shares = torch.tensor([[0.05, 0.2, 0.0], [float("nan")] * 3, [float("nan")] * 3])
    ordered = torch.tensor([[1.0, 3.0, -1.0], [0.0, 0.0, 0.0], [5.0, -5.0, 0.0]])
    reversed_ = torch.tensor([[1.0, -1.0, 3.0], [0.0, 0.0, 0.0], [5.0, -5.0, 0.0]])
    low, high = size_ranking_loss(ordered, shares), size_ranking_loss(reversed_, shares)
    assert low.item() < 0.2 < high.item()  # the rows of captions naming nothing do not count
    logits = reversed_.clone().requires_grad_()
    size_ranking_loss(logits, shares).backward()
    assert logits.grad[0, 1] < 0 < logits.grad[0, 2] and logits.grad[1:].abs().sum() == 0  # the fuller clip rises
    # pairs under twice the share, or both under the least share, are no order
    close = torch.tensor([[0.1, 0.15, 0.0005], [float("nan")] * 3, [float("nan")] * 3])
    assert size_ranking_loss(reversed_, close).item() == pytest.approx(
        torch.nn.functional.softplus(torch.tensor([3.0 - 1.0, 3.0 - -1.0])).mean().item())
    none = torch.full((3, 3), float("nan"))
    empty = logits.detach().clone().requires_grad_()
    out = size_ranking_loss(empty, none)
    assert out.item() == 0.0 and out.requires_grad
    with pytest.raises(ValueError, match="one shape"):
        size_ranking_loss(ordered, shares[:2])
