"""The frame read-out: an auxiliary loss on what the simulator says each frame shows."""

import numpy as np
import pytest
import pytorch_lightning as pl
import torch

from mineclip.data.reader import tokenize
from mineclip.model.load import load_checkpoint
from mineclip.sim.labels import BINARY, FRAME_LABELS, ITEMS, KINDS
from mineclip.train.data import ReplayBatches
from mineclip.train.module import MineCLIPModule
from mineclip.train.readout import FrameReadout, frame_targets, readout_loss

from helpers.models import MICRO
from helpers.training import CAPTIONS, NUM_FRAMES, clip_for

CLIP_LEN = 16  # frames the stored labels cover (a played clip's), of which a batch samples NUM_FRAMES


def labels_for(caption_index: int) -> dict:
    """Per-frame labels that the clip's colour predicts: water in view and day for even captions, a
    cow next to the player for the third, and the caption index as the drink count."""
    water, cow = 1 << KINDS.index("water"), 1 << KINDS.index("cow")
    seen = water if caption_index % 2 == 0 else 0
    near = cow if caption_index == 2 else 0
    inv = [caption_index if item == "drink" else 0 for item in ITEMS]
    return {"seen": [seen] * CLIP_LEN, "near": [near] * CLIP_LEN, "day": [int(caption_index % 2 == 0)] * CLIP_LEN,
            "inv": [inv] * CLIP_LEN}


def labelled_batches(n: int, batch_size: int = 6, labelled: bool = True) -> list[dict]:
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n):
        idx = [i % len(CAPTIONS) for i in range(batch_size)]
        video = torch.from_numpy(np.stack([clip_for(i, rng) for i in idx])).permute(0, 1, 4, 2, 3)
        texts = [CAPTIONS[i] for i in idx]
        meta = [{"frame_labels": labels_for(i)} if labelled else {} for i in idx]
        out.append({"video": video, "tokens": tokenize(texts), "text": texts, "meta": meta, "skipped": {}})
    return out


class _Losses(pl.Callback):
    def __init__(self):
        self.readout: list[float] = []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        m = trainer.callback_metrics.get("train/readout_loss")
        if m is not None:
            self.readout.append(float(m))


def fit(module, batches, tmp_path, epochs: int):
    losses = _Losses()
    trainer = pl.Trainer(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False,
                         enable_model_summary=False, default_root_dir=tmp_path, max_epochs=epochs,
                         enable_checkpointing=False, callbacks=[losses])
    trainer.fit(module, train_dataloaders=ReplayBatches(batches))
    return trainer, losses.readout


def test_targets_follow_the_frames_a_batch_samples():
    labels = labels_for(2)
    labels["day"] = list(range(CLIP_LEN))  # not 0/1, so that which frames were taken shows
    rows, binary, counts = frame_targets([{}, {"frame_labels": labels}, {"other": 1}], NUM_FRAMES, FRAME_LABELS)
    assert rows.tolist() == [1]
    assert binary.shape == (1, NUM_FRAMES, BINARY) and counts.shape == (1, NUM_FRAMES, len(ITEMS))
    assert binary[0, :, KINDS.index("water")].sum() == 4  # seen: water, every frame
    assert binary[0, :, len(KINDS) + KINDS.index("cow")].sum() == 4  # near: a cow
    torch.testing.assert_close(counts[0, :, ITEMS.index("drink")], torch.full((NUM_FRAMES,), 2 / 9))
    assert frame_targets([{}, {"frame_labels": None}], NUM_FRAMES, FRAME_LABELS) is None
    for bad in ({"seen": [1], "near": [0], "day": [1]}, {"seen": [1], "near": [0]}, [1, 2]):
        with pytest.raises(ValueError, match="frame labels must hold"):
            frame_targets([{"frame_labels": bad}], NUM_FRAMES, FRAME_LABELS)


def test_the_read_out_learns_the_labels_and_stays_out_of_the_model(tmp_path):
    pl.seed_everything(0)
    plain = MineCLIPModule(MICRO)
    pl.seed_everything(0)
    module = MineCLIPModule(MICRO, frame_readout=1.0, lr=2e-3, final_lr=2e-3, warmup_steps=1)
    assert plain.readout is None and module.readout is not None
    for a, b in zip(plain.model.state_dict().values(), module.model.state_dict().values()):
        torch.testing.assert_close(a, b)  # the read-out does not change the model's initial weights

    trainer, readout = fit(module, labelled_batches(2), tmp_path, epochs=15)
    assert len(readout) == 30 and readout[-1] < 0.3 * readout[0], readout
    groups = trainer.optimizers[0].param_groups
    readout_group = next(g for g in groups if any(p is module.readout.proj.weight for p in g["params"]))
    assert readout_group["names"] == ["readout.proj.weight", "readout.proj.bias"]
    assert all(len(g["names"]) == len(g["params"]) for g in groups)

    trainer.save_checkpoint(tmp_path / "last.ckpt")
    state = torch.load(tmp_path / "last.ckpt", weights_only=False)["state_dict"]
    assert any(k.startswith("readout.") for k in state)
    loaded = load_checkpoint(tmp_path / "last.ckpt").model  # an export reads the model alone
    for k, v in loaded.state_dict().items():
        torch.testing.assert_close(v, module.model.state_dict()[k])


def test_clips_without_labels_add_no_loss_and_a_negative_weight_is_refused(tmp_path):
    pl.seed_everything(0)
    module = MineCLIPModule(MICRO, frame_readout=1.0)
    _, readout = fit(module, labelled_batches(1, labelled=False), tmp_path, epochs=2)
    assert readout == []
    with pytest.raises(ValueError, match="frame_readout"):
        MineCLIPModule(MICRO, frame_readout=-1.0)


def test_a_label_set_reads_out_only_its_columns():
    torch.manual_seed(0)
    frames = torch.randn(2, NUM_FRAMES, 16)
    metas = [{"frame_labels": labels_for(0)}, {"frame_labels": labels_for(2)}]
    _, binary, counts = frame_targets(metas, NUM_FRAMES, FRAME_LABELS)
    for labels, width in (("all", BINARY + len(ITEMS)), ("inventory", 2 * len(ITEMS)),
                          ("scene", 2 * len(KINDS) + 1)):
        readout = FrameReadout(16, labels, FRAME_LABELS)
        assert readout.proj.out_features == width
        logits, predicted = readout(frames)
        assert logits.shape[-1] == len(range(BINARY)[FRAME_LABELS.columns(labels)[0]])
        assert (predicted is None) == (labels == "scene")
        # the loss is that of the set's columns (and the counts where the set reads them) alone
        cols = FRAME_LABELS.columns(labels)[0]
        expected = torch.nn.functional.binary_cross_entropy_with_logits(logits, binary[..., cols])
        if predicted is not None:
            expected = expected + torch.nn.functional.mse_loss(predicted, counts)
        torch.testing.assert_close(readout_loss(readout, frames, metas), expected)
        # what is in view moves the loss of the sets that read the scene, and only theirs
        everything_in_view = [{"frame_labels": {**m["frame_labels"], "seen": [(1 << len(KINDS)) - 1] * CLIP_LEN}}
                              for m in metas]
        moved = not torch.allclose(readout_loss(readout, frames, everything_in_view), expected)
        assert moved == (labels != "inventory")
    for weight in (0.0, 1.0):  # a typo is an error whether or not the read-out is on
        with pytest.raises(ValueError, match="frame_readout_labels must be one of"):
            MineCLIPModule(MICRO, frame_readout=weight, frame_readout_labels="cows")
    with pytest.raises(ValueError, match="frame_readout_labels must be one of"):
        FrameReadout(16, "cows", FRAME_LABELS)
