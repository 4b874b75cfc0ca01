import socket

import pytest
import torch
import torch.multiprocessing as mp

from mineclip.model import MineCLIP, tokenize
from mineclip.train.loss import ContrastiveLoss, positive_targets
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
