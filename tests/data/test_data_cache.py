"""In-memory training clips: decoded once, then served as shuffled, cropped batches."""

from __future__ import annotations

import pytest

from mineclip.data.cache import CachedClips
from mineclip.data.datamodule import ClipDataModule


def test_cached_clips_decode_each_clip_once_and_serve_contract_batches(tmp_path, tiny_shards):
    tiny_shards(tmp_path / "train", 6, max_shard_samples=2)
    dm = ClipDataModule(train_urls=str(tmp_path / "train"), batch_size=2, num_frames=4, epoch_length=8,
                        resolution=[32, 48], cache_train=True)
    epoch1 = list(dm.train_dataloader())
    assert len(epoch1) == 4
    assert epoch1[0]["video"].shape == (2, 4, 3, 32, 48) and epoch1[0]["tokens"].shape == (2, 77)
    cached = dm._cached
    assert sum(len(c) for c in cached.clips) == 6
    texts = {t for b in epoch1 for t in b["text"]}
    assert texts <= {f"a clip of a cow number {i}" for i in range(6)}
    epoch2 = list(dm.train_dataloader())  # the same cache, a new shuffle
    assert dm._cached is cached and len(epoch2) == 4
    assert [b["text"] for b in epoch1] != [b["text"] for b in epoch2]


def test_data_order_follows_seed_everything_unless_the_data_module_is_given_a_seed(tmp_path, tiny_shards, monkeypatch):
    from lightning_fabric.utilities.seed import seed_everything

    tiny_shards(tmp_path / "train", 6, max_shard_samples=2)

    def order(**kw):
        dm = ClipDataModule(train_urls=str(tmp_path / "train"), batch_size=2, num_frames=2, epoch_length=12,
                            resolution=[32, 48], cache_train=True, **kw)
        return dm.seed, [t for b in dm.train_dataloader() for t in b["text"]]

    monkeypatch.delenv("PL_GLOBAL_SEED", raising=False)
    unseeded = order()
    assert unseeded[0] == 0 and unseeded == order(seed=0)
    seed_everything(5)
    seeded = order()
    assert seeded[0] == 5 and seeded == order(seed=5) and seeded[1] != unseeded[1]
    assert order(seed=0) == unseeded  # an explicit seed wins over the global one


def test_cached_clips_weight_sources_and_refuse_an_empty_one(tmp_path, tiny_shards):
    tiny_shards(tmp_path / "a", 4, prefix="a", text="cow")
    tiny_shards(tmp_path / "b", 4, prefix="b", text="tree")
    ds = CachedClips([str(tmp_path / "a"), str(tmp_path / "b")], batch_size=4, num_frames=2, resolution=(32, 48),
                     epoch_length=400, weights=[1.0, 0.0], progress=False)
    assert all(t.startswith("cow") for b in ds for t in b["text"])
    (tmp_path / "empty").mkdir()
    with pytest.raises((ValueError, FileNotFoundError)):  # no shards, or no readable clip in them
        CachedClips([str(tmp_path / "empty")], num_frames=2, resolution=(32, 48), progress=False)


def test_cached_clips_decode_in_worker_processes_and_count_corrupt_clips(tmp_path, tiny_shards):
    import io
    import tarfile

    tiny_shards(tmp_path / "train", 6, max_shard_samples=2)
    with tarfile.open(tmp_path / "train" / "train-000009.tar", "w") as tar:  # one more shard, one corrupt clip
        for name, data in (("bad.mp4", b"\x00garbage" * 50), ("bad.txt", b"a broken clip")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    kw = dict(batch_size=2, num_frames=2, resolution=(32, 48), epoch_length=8, progress=False)
    urls = f"{tmp_path}/train/train-{{000000..000002}}.tar::{tmp_path}/train/train-000009.tar"
    one = CachedClips([urls], **kw)
    two = CachedClips([urls], workers=2, **kw)
    texts = lambda ds: sorted(c["text"] for c in ds.clips[0])  # noqa: E731
    assert texts(one) == texts(two) == sorted(f"a clip of a cow number {i}" for i in range(6))
    assert one.load_skipped == two.load_skipped == {"undecodable_video": 1}


def test_balance_by_event_draws_a_rare_event_as_often_as_the_power_says(tmp_path):
    import numpy as np

    from mineclip.data.shards import ClipShardWriter

    with ClipShardWriter(tmp_path / "train", prefix="train", encoding="raw", fps=4) as w:
        for i in range(9):  # one clip of a rare event, eight of a common one
            w.write(np.full((2, 32, 48, 3), 20 * i, np.uint8), f"clip {i}", {"id": f"c{i}", "event": "rare" if i == 0 else "common"})
    kw = dict(batch_size=50, num_frames=2, resolution=(32, 48), epoch_length=4000, progress=False)

    def rare_share(**balance) -> float:
        texts = [t for b in CachedClips([str(tmp_path / "train")], **kw, **balance) for t in b["text"]]
        return texts.count("clip 0") / len(texts)

    assert abs(rare_share() - 1 / 9) < 0.03  # uniform
    assert abs(rare_share(balance_by="meta.event", balance_power=1.0) - 1 / 2) < 0.04  # fully balanced
    assert abs(rare_share(balance_by="meta.event") - 1 / (1 + 8 ** 0.5)) < 0.04  # square root: 0.26
    with pytest.raises(ValueError, match="meta"):
        CachedClips([str(tmp_path / "train")], balance_by="event", **kw)
    with pytest.raises(ValueError, match="balance_power"):
        CachedClips([str(tmp_path / "train")], balance_by="meta.event", balance_power=-1, **kw)
    with pytest.raises(ValueError, match="cache_train"):
        ClipDataModule(train_urls=str(tmp_path / "train"), balance_by="meta.event")
    # refused before any clip is decoded: by the data module when it is made, and by the cache before loading
    with pytest.raises(ValueError, match="balance_power"):
        ClipDataModule(train_urls=str(tmp_path / "train"), cache_train=True, balance_by="meta.event", balance_power=-1)
    with pytest.raises(ValueError, match="balance_power"):
        CachedClips([str(tmp_path / "no-such-shards")], balance_by="meta.event", balance_power=-1, **kw)
    with pytest.raises(ValueError, match="balance_power"):  # NaN is no power either
        ClipDataModule(train_urls=str(tmp_path / "train"), cache_train=True, balance_by="meta.event",
                       balance_power=float("nan"))


@pytest.mark.parametrize("crop_scale", [(1.0, 1.0), (0.5, 1.0)])
def test_served_clips_are_the_decoded_clips_cropped_as_the_streaming_reader_crops(tmp_path, tiny_shards, crop_scale):
    """Uncropped draws are the cached [T, 3, H, W] tensors themselves; crops are resized as
    `random_resized_crop` resizes them, from the same random draws."""
    import random

    import numpy as np
    import torch

    from mineclip.data.augment import random_resized_crop

    tiny_shards(tmp_path / "train", 4, max_shard_samples=2)
    ds = CachedClips([str(tmp_path / "train")], batch_size=1, num_frames=3, resolution=(32, 48), epoch_length=6,
                     crop_scale=crop_scale, progress=False)
    for seed in range(6):
        served = ds._sample(random.Random(seed))
        rng = random.Random(seed)
        i = rng.randrange(len(ds.clips[0]))
        clip = ds.clips[0][i]
        expected = random_resized_crop(clip["video"].permute(0, 2, 3, 1).numpy(), (32, 48), crop_scale, None, rng)
        assert served["text"] == clip["text"] and served["video"].shape == (3, 3, 32, 48)
        assert torch.equal(served["video"], torch.from_numpy(np.ascontiguousarray(expected)).permute(0, 3, 1, 2))
        if crop_scale == (1.0, 1.0):
            assert served["video"] is clip["video"]


def test_text_dropout_drops_caption_words_in_training_only_and_keeps_a_word(tmp_path, tiny_shards):
    import random

    from mineclip.data.augment import drop_words
    from mineclip.data.reader import ClipDataset

    rng = random.Random(0)
    caption = "hunted the cow and ate it, some trees around"
    drawn = [drop_words(caption, 0.3, rng) for _ in range(200)]
    assert all(d and set(d.split()) <= set(caption.split()) for d in drawn)
    kept = sum(len(d.split()) for d in drawn) / (200 * len(caption.split()))
    assert 0.62 < kept < 0.78  # about 1 - p of the words survive
    assert drop_words(caption, 0.0, rng) == caption and drop_words("cow", 0.999, rng) == "cow"
    assert drop_words("", 0.5, rng) == "" and drop_words("a cow", 0.999, rng) in ("a", "cow")

    tiny_shards(tmp_path / "train", 6, max_shard_samples=3)
    whole = {f"a clip of a cow number {i}" for i in range(6)}

    def texts(**kw):
        dm = ClipDataModule(train_urls=str(tmp_path / "train"), val_urls=str(tmp_path / "train"), batch_size=3,
                            num_frames=2, epoch_length=60, resolution=[32, 48], num_workers=0, seed=1, **kw)
        return ({t for b in dm.train_dataloader() for t in b["text"]},
                {t for b in dm.val_dataloader() for t in b["text"]})

    for cache in (True, False):  # the in-memory clips and the streamed shards alike
        train, val = texts(cache_train=cache, text_dropout=0.3)
        assert val == whole and train - whole and all(set(t.split()) <= set("a clip of cow number 0 1 2 3 4 5".split())
                                                       for t in train)
        assert texts(cache_train=cache)[0] <= whole  # off by default
    with pytest.raises(ValueError, match="text_dropout"):
        ClipDataset(str(tmp_path / "train"), epoch_length=4, text_dropout=1.0)


def test_text_dropout_rare_keeps_rare_words_and_drops_common_ones(tmp_path, tiny_shards):
    import random

    from mineclip.data.augment import drop_words, word_dropout_rates

    captions = ["found a cow here"] * 90 + ["found lava, careful"] * 5 + ["Lava! hot"] * 5
    rates = word_dropout_rates(captions, 0.2, rare=0.15)
    assert rates["lava"] == 0.0 and rates["careful"] == 0.0  # in 10% and 5% of the captions: kept
    assert rates["cow"] == pytest.approx(0.2) and rates["found"] == pytest.approx(0.2)  # capped at the rate
    assert 0 < word_dropout_rates(captions, 0.9, rare=0.15)["cow"] == pytest.approx(1 - (0.15 / 0.9) ** 0.5)
    rng = random.Random(0)
    drawn = [drop_words("found lava, careful", 0.2, rng, rates) for _ in range(300)]
    assert all("lava," in d and "careful" in d for d in drawn) and any("found" not in d for d in drawn)
    assert drop_words("unseen words only", 0.2, rng, rates) == "unseen words only"  # not counted: never dropped
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="text_dropout_rare"):
            word_dropout_rates(captions, 0.2, rare=bad)

    tiny_shards(tmp_path / "train", 6, max_shard_samples=3)  # "a clip of a cow number i": only the digit is rare
    dm = ClipDataModule(train_urls=str(tmp_path / "train"), val_urls=str(tmp_path / "train"), batch_size=3,
                        num_frames=2, epoch_length=90, resolution=[32, 48], num_workers=0, seed=1,
                        cache_train=True, text_dropout=0.5, text_dropout_rare=0.5)
    train = [t for b in dm.train_dataloader() for t in b["text"]]
    assert all(t.split()[-1].isdigit() for t in train) and any(len(t.split()) < 6 for t in train)
    with pytest.raises(ValueError, match="cache_train"):
        ClipDataModule(train_urls=str(tmp_path / "train"), text_dropout=0.2, text_dropout_rare=0.05)
    with pytest.raises(ValueError, match="text_dropout_rare"):  # before any clip is decoded
        ClipDataModule(train_urls=str(tmp_path / "train"), cache_train=True, text_dropout=0.2, text_dropout_rare=1.5)


def test_prefetched_batches_are_the_batches_in_their_order(tmp_path, tiny_shards):
    """Drawing batches ahead in a thread changes neither what is served nor its order."""
    import torch

    tiny_shards(tmp_path / "train", 6, max_shard_samples=3)

    def epochs(prefetch):
        ds = CachedClips([str(tmp_path / "train")], batch_size=2, num_frames=2, resolution=(32, 48),
                         epoch_length=12, crop_scale=(0.5, 1.0), progress=False, prefetch=prefetch)
        return [list(ds) for _ in range(2)]

    plain, ahead = epochs(0), epochs(2)
    assert [[b["text"] for b in e] for e in plain] == [[b["text"] for b in e] for e in ahead]
    assert all(torch.equal(a["video"], b["video"]) for ea, eb in zip(plain, ahead) for a, b in zip(ea, eb))


def test_prefetch_hands_on_an_error_and_stops_its_thread_when_closed():
    import threading

    from mineclip.data.cache import prefetched

    def failing():
        yield 1
        raise RuntimeError("clip 2 is broken")

    it = prefetched(failing(), 2)
    assert next(it) == 1
    with pytest.raises(RuntimeError, match="clip 2 is broken"):
        next(it)

    drawn = []

    def endless():
        while True:
            drawn.append(len(drawn))
            yield drawn[-1]

    it = prefetched(endless(), 2)
    assert [next(it) for _ in range(3)] == [0, 1, 2]
    it.close()  # an epoch stopped early: the thread ends instead of drawing forever
    assert not any(t.name == "cached-clips-prefetch" for t in threading.enumerate())
    assert len(drawn) <= 3 + 2 + 1  # at most the buffer's depth (and the one in hand) ahead
