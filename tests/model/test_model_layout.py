"""Frames in the decoders' layout ([T, H, W, 3] arrays seen as [T, 3, H, W]) give the same features."""

import numpy as np
import torch

from mineclip.model import build_model


def test_a_channels_last_view_gives_bit_identical_training_features():
    torch.manual_seed(0)
    model = build_model("micro").train()
    h, w = model.config.vision.resolution
    frames = np.random.default_rng(0).integers(0, 256, (2, 3, h, w, 3), dtype=np.uint8)
    view = torch.from_numpy(frames).permute(0, 1, 4, 2, 3)  # what the loader now hands over
    assert not view.is_contiguous()
    assert torch.equal(model.encode_frames(view), model.encode_frames(view.contiguous()))
