"""Batches of decoded clips: one copy into the batch, the clips' layout kept, shared memory in workers."""

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset

from mineclip.data.reader import stack_videos


def clips(n=3, layout="frames_last"):
    rng = np.random.default_rng(0)
    arrays = [rng.integers(0, 256, (4, 8, 12, 3), dtype=np.uint8) for _ in range(n)]
    views = [torch.from_numpy(a).permute(0, 3, 1, 2) for a in arrays]  # what decode_sample returns
    return views if layout == "frames_last" else [v.contiguous() for v in views]


def test_stacked_clips_equal_torch_stack_in_either_layout():
    for layout in ("frames_last", "contiguous"):
        videos = clips(layout=layout)
        batch = stack_videos(videos)
        assert batch.shape == (3, 4, 3, 8, 12) and torch.equal(batch, torch.stack(videos))
        assert batch.is_contiguous() == (layout == "contiguous")


class _Clips(IterableDataset):
    def __iter__(self):
        yield stack_videos(clips())


def test_a_worker_builds_the_batch_in_shared_memory_and_it_arrives_intact():
    (batch,) = list(DataLoader(_Clips(), batch_size=None, num_workers=1))
    assert torch.equal(batch, torch.stack(clips()))
