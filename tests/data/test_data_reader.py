import io
import tarfile
from collections import Counter

import numpy as np
import pytest
import torch

from mineclip.data.datamodule import ClipDataModule
from mineclip.data.reader import ClipDataset, SkipTally, expand_urls, make_loader
from mineclip.data.shards import encode_clip

RES = (32, 48)


def _keys(loader):
    return [m.key for batch in loader for m in batch["meta"]]


def test_brace_expansion_folders_and_joined_patterns(tmp_path, tiny_shards):
    tiny_shards(tmp_path / "a", 6, max_shard_samples=2)
    tiny_shards(tmp_path / "b", 2, prefix="val")
    a = expand_urls(str(tmp_path / "a" / "train-{000000..000002}.tar"))
    assert [u.rsplit("/", 1)[1] for u in a] == ["train-000000.tar", "train-000001.tar", "train-000002.tar"]
    assert expand_urls(str(tmp_path / "a")) == a
    both = expand_urls(f"{tmp_path / 'a'}::{tmp_path / 'b' / 'val-000000.tar'}")
    assert both == a + [str(tmp_path / "b" / "val-000000.tar")]
    assert expand_urls(["pipe:cat x-{0..1}.tar"]) == ["pipe:cat x-0.tar", "pipe:cat x-1.tar"]


@pytest.mark.parametrize("n_shards", [5, 1])  # more shards than workers, and fewer
def test_exact_single_pass_across_two_workers(tmp_path, tiny_shards, n_shards):
    tiny_shards(tmp_path, 10, max_shard_samples=-(-10 // n_shards))
    ds = ClipDataset(str(tmp_path), batch_size=3, num_frames=4, resolution=RES, mode="exact", shuffle_buffer=0)
    keys = _keys(make_loader(ds, num_workers=2))
    assert sorted(keys) == sorted(f"train{i}-{i:08d}" for i in range(10))


def test_batch_layout_matches_the_contract(tmp_path, tiny_shards):
    tiny_shards(tmp_path, 4)
    batch = next(iter(ClipDataset(str(tmp_path), batch_size=4, num_frames=8, resolution=RES, mode="exact")))
    assert batch["video"].dtype == torch.uint8 and batch["video"].shape == (4, 8, 3, *RES)
    assert batch["tokens"].dtype == torch.long and batch["tokens"].shape == (4, 77)
    assert batch["tokens"][0, 0] == 49406 and batch["text"][0].startswith("a clip of a cow")
    assert batch["meta"][0].value("i") == 0 and batch["skipped"] == {}


def test_resampled_mode_has_explicit_epoch_length(tmp_path, tiny_shards):
    tiny_shards(tmp_path, 6, max_shard_samples=2)
    ds = ClipDataset(str(tmp_path), batch_size=2, num_frames=4, resolution=RES, epoch_length=20, shuffle_buffer=4)
    loader = make_loader(ds, num_workers=2)
    assert len(loader) == 10
    assert sum(1 for _ in loader) == 10  # more than the 6 samples on disk: resampled
    with pytest.raises(ValueError, match="epoch_length"):
        ClipDataset(str(tmp_path), mode="resampled")


def test_weighted_mixing_follows_the_weights(tmp_path, tiny_shards):
    tiny_shards(tmp_path / "cow", 8, prefix="cow", text="cow", max_shard_samples=2)
    tiny_shards(tmp_path / "pig", 8, prefix="pig", text="pig", max_shard_samples=2)
    tiny_shards(tmp_path / "off", 4, prefix="off", text="never")
    ds = ClipDataset([str(tmp_path / "cow"), str(tmp_path / "pig"), str(tmp_path / "off")], weights=[3, 1, 0],
                     batch_size=50, num_frames=2, resolution=(16, 24), epoch_length=800, shuffle_buffer=0, seed=1)
    counts = Counter(t.split()[0] for batch in ds for t in batch["text"])
    assert counts["never"] == 0 and sum(counts.values()) == 800
    assert 0.68 < counts["cow"] / 800 < 0.82


def test_training_crop_is_one_box_for_all_frames_and_eval_is_a_plain_resize(tmp_path):
    from mineclip.data.shards import ClipShardWriter
    from mineclip.data.video import resize_frames

    rng = np.random.default_rng(0)
    still = np.repeat(rng.integers(0, 256, (1, 64, 96, 3), dtype=np.uint8), 8, axis=0)
    with ClipShardWriter(tmp_path, encoding="raw") as w:
        for _ in range(4):
            w.write(still, "a still clip")
    train = ClipDataset(str(tmp_path), batch_size=4, num_frames=8, resolution=RES, epoch_length=4, crop_scale=(0.3, 0.6), shuffle_buffer=0)
    video = next(iter(train))["video"]
    assert all(torch.equal(clip[0], clip[t]) for clip in video for t in range(8))  # same box in every frame
    assert not torch.equal(video[0], video[1])  # but a different box per clip
    evaluation = ClipDataset(str(tmp_path), batch_size=4, num_frames=8, resolution=RES, mode="exact")
    expected = torch.from_numpy(resize_frames(still, RES)).permute(0, 3, 1, 2)
    assert torch.equal(next(iter(evaluation))["video"][0], expected)


def test_num_frames_up_to_32(tmp_path, tiny_shards):
    tiny_shards(tmp_path, 2, num_frames=32)
    batch = next(iter(ClipDataset(str(tmp_path), batch_size=2, num_frames=32, resolution=RES, mode="exact")))
    assert batch["video"].shape[1] == 32
    with pytest.raises(ValueError, match="num_frames"):
        ClipDataset(str(tmp_path), num_frames=33, mode="exact")


def _add(tar, key, members):
    for ext, data in members.items():
        info = tarfile.TarInfo(f"{key}.{ext}")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def test_bad_samples_are_skipped_and_counted(tmp_path, frames_like):
    good = frames_like(8, 32, 48)
    _, mp4 = encode_clip(good, "mp4")
    _, npy = encode_clip(good, "raw")
    _, short = encode_clip(frames_like(2, 32, 48), "raw")
    with tarfile.open(tmp_path / "mixed-000000.tar", "w") as tar:
        _add(tar, "good1", {"mp4": mp4, "txt": b"a good clip"})
        _add(tar, "truncated", {"mp4": mp4[: len(mp4) // 2], "txt": b"cut short"})
        _add(tar, "garbage", {"mp4": b"\x00garbage" * 50, "txt": b"garbage"})
        _add(tar, "few", {"npy": short, "txt": b"only two frames"})
        _add(tar, "empty", {"npy": npy, "txt": b"   "})
        _add(tar, "latin1", {"npy": npy, "txt": "caf\xe9".encode("latin-1")})
        _add(tar, "notext", {"npy": npy})
        _add(tar, "noclip", {"txt": b"text without clip"})
        _add(tar, "good2", {"npy": npy, "txt": b"another good clip"})
    ds = ClipDataset(str(tmp_path / "mixed-000000.tar"), batch_size=8, num_frames=4, resolution=RES, mode="exact")
    batches = list(ds)
    assert [m.key for b in batches for m in b["meta"]] == ["good1", "good2"]
    assert batches[-1]["skipped"] == {"undecodable_video": 2, "too_few_frames": 1, "empty_text": 1, "non_utf8_text": 1, "missing_member": 2}


def test_unopenable_shards_are_reported_by_name_and_skipped(tmp_path, tiny_shards):
    tiny_shards(tmp_path, 4, max_shard_samples=2)
    data = (tmp_path / "train-000001.tar").read_bytes()
    (tmp_path / "train-000001.tar").write_bytes(data[:700])  # truncated inside the first member
    urls = [str(tmp_path / "train-000000.tar"), str(tmp_path / "missing-000000.tar"), str(tmp_path / "train-000001.tar")]
    ds = ClipDataset(urls, batch_size=10, num_frames=4, resolution=RES, mode="exact")
    with pytest.warns(UserWarning) as record:
        batches = list(ds)
    messages = " ".join(str(r.message) for r in record)
    assert "missing-000000.tar" in messages and "train-000001.tar" in messages
    assert [m.value("i") for b in batches for m in b["meta"]] == [0, 1]
    assert batches[-1]["skipped"]["shard_error"] >= 2


def test_datamodule_yields_contract_batches_and_tallies_skips(tmp_path, tiny_shards):
    tiny_shards(tmp_path / "train", 6, max_shard_samples=2)
    tiny_shards(tmp_path / "val", 5, prefix="val", max_shard_samples=2)
    dm = ClipDataModule(train_urls=str(tmp_path / "train"), val_urls=str(tmp_path / "val"), batch_size=2, num_workers=2,
                        num_frames=4, epoch_length=8, resolution=[32, 48], shuffle_buffer=4)
    train = list(dm.train_dataloader())
    assert len(train) == 4 and train[0]["video"].shape == (2, 4, 3, 32, 48)
    val_keys = _keys(dm.val_dataloader())
    assert sorted(val_keys) == sorted(f"val{i}-{i:08d}" for i in range(5))
    tally = SkipTally()
    assert tally.update({"skipped": {"empty_text": 2}}) == {"empty_text": 2}
    dm.on_before_batch_transfer({"skipped": {"too_few_frames": 1}}, 0)
    assert dm.skipped_totals == {"too_few_frames": 1}


def test_datamodule_moves_a_batchs_tensors_and_passes_its_python_fields_as_they_are(tmp_path, tiny_shards):
    tiny_shards(tmp_path / "train", 4, max_shard_samples=2)
    dm = ClipDataModule(train_urls=str(tmp_path / "train"), batch_size=2, num_workers=0, num_frames=4,
                        epoch_length=2, resolution=[32, 48])
    batch = next(iter(dm.train_dataloader()))
    moved = dm.transfer_batch_to_device(batch, torch.device("cpu"), 0)
    assert moved.keys() == batch.keys()
    assert torch.equal(moved["video"], batch["video"]) and torch.equal(moved["tokens"], batch["tokens"])
    # not walked (Lightning's default rebuilds every clip's meta record, 24-30 ms a step of the default)
    assert all(moved[k] is batch[k] for k in ("text", "meta", "skipped"))
    other = {"x": torch.ones(2), "nested": [torch.zeros(1)]}  # not a clip batch: Lightning's default
    out = dm.transfer_batch_to_device(other, torch.device("cpu"), 0)
    assert torch.equal(out["x"], other["x"]) and torch.equal(out["nested"][0], other["nested"][0])
