"""crop_resize (one torch interpolate over all frames) against PIL's BILINEAR resize frame by frame."""

import numpy as np
import pytest
from PIL import Image

from mineclip.data.video import crop_resize


def pil_crop_resize(frames, box, size):
    top, left, h, w = box
    return np.stack([np.asarray(Image.fromarray(np.ascontiguousarray(f[top:top + h, left:left + w]))
                                .resize((size[1], size[0]), Image.BILINEAR)) for f in frames])


@pytest.fixture
def frames():
    rng = np.random.default_rng(0)
    base = rng.integers(0, 256, (4, 20, 32, 3), dtype=np.uint8).repeat(8, 1).repeat(8, 2)
    return (base.astype(np.int16) + rng.integers(-8, 8, base.shape)).clip(0, 255).astype(np.uint8)


@pytest.mark.parametrize("box", [(10, 20, 130, 210), (5, 3, 150, 250), (0, 0, 128, 200)])
def test_enlarging_a_crop_gives_pil_pixels_exactly(frames, box):
    out = crop_resize(frames, box, (160, 256))
    assert out.shape == (4, 160, 256, 3) and out.dtype == np.uint8 and out.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(out, pil_crop_resize(frames, box, (160, 256)))


@pytest.mark.parametrize("size", [(120, 200), (80, 128), (45, 64)])
def test_shrinking_stays_within_one_level_of_pil(frames, size):
    out = crop_resize(frames, (0, 0, 160, 256), size)
    diff = np.abs(out.astype(int) - pil_crop_resize(frames, (0, 0, 160, 256), size).astype(int))
    assert out.shape == (4, *size, 3) and diff.max() <= 1 and (diff > 0).mean() < 0.01


def test_a_box_of_the_output_size_is_cut_without_resampling(frames):
    out = crop_resize(frames, (8, 16, 120, 200), (120, 200))
    np.testing.assert_array_equal(out, frames[:, 8:128, 16:216])
