"""A DeepSpeed ZeRO-2 checkpoint directory (CPU, gloo) exports with its shards merged."""

import os

import pytest
import torch

from mineclip.export.cli import main as export_main
from mineclip.reward import RewardModel

TEXTS = ["chop a tree", "drink water", "hunt a cow", "place a table"]
MICRO = {"embed_dim": 64, "vision": {"width": 64, "layers": 2, "heads": 2, "resolution": [32, 48]},
         "text": {"width": 64, "layers": 2, "heads": 2}, "temporal": {"heads": 2, "dim_head": 32},
         "trainable_blocks": 1}  # frozen blocks too: the merge must keep them


def test_deepspeed_directory_exports_with_identical_scores(tmp_path, monkeypatch):
    pl = pytest.importorskip("pytorch_lightning")
    pytest.importorskip("deepspeed")
    import torch.distributed as dist

    from mineclip.model import tokenize
    from mineclip.train.data import ReplayBatches
    from mineclip.train.module import MineCLIPModule
    from mineclip.train.strategies import DeepSpeedStrategy

    monkeypatch.setenv("MASTER_PORT", str(29600 + os.getpid() % 1000))
    g = torch.Generator().manual_seed(0)
    batch = {"video": torch.randint(0, 256, (4, 4, 3, 32, 48), dtype=torch.uint8, generator=g),
             "tokens": tokenize(TEXTS), "text": TEXTS, "meta": [{}] * 4, "skipped": {}}
    module = MineCLIPModule("tiny", MICRO, warmup_steps=1, total_steps=2)
    trainer = pl.Trainer(accelerator="cpu", devices=1, strategy=DeepSpeedStrategy(stage=2), precision="32-true",
                         max_steps=1, logger=False, enable_progress_bar=False, enable_model_summary=False,
                         limit_val_batches=0, num_sanity_val_steps=0, enable_checkpointing=False,
                         default_root_dir=tmp_path)
    try:
        trainer.fit(module, train_dataloaders=ReplayBatches([batch]))
        trainer.save_checkpoint(tmp_path / "ds.ckpt")
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    assert (tmp_path / "ds.ckpt").is_dir()
    assert export_main([str(tmp_path / "ds.ckpt"), "--out", str(tmp_path / "art")]) == 0
    rm = RewardModel.load(tmp_path / "art")
    with torch.no_grad():
        assert torch.equal(rm.model(batch["video"], TEXTS), module.model.float().eval()(batch["video"], TEXTS))
