"""A DeepSpeed ZeRO-2 checkpoint directory (CPU, gloo) exports with its shards merged, and its
shards are read without running code pickled into them."""

import os

import pytest
import torch

from mineclip.export.cli import main as export_main
from mineclip.model.artifact import save_artifact
from mineclip.reward import RewardModel

from helpers.models import MICRO, MICRO_RES, make_micro

TEXTS = ["chop a tree", "drink water", "hunt a cow", "place a table"]
FROZEN = {"trainable_blocks": 1}  # frozen blocks too: the merge must keep them


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
    batch = {"video": torch.randint(0, 256, (4, 4, 3, *MICRO_RES), dtype=torch.uint8, generator=g),
             "tokens": tokenize(TEXTS), "text": TEXTS, "meta": [{}] * 4, "skipped": {}}
    # fine-tuning the last block of each tower of a (micro) MineCLIP, as the paper's recipe does
    save_artifact(make_micro(), tmp_path / "init")
    module = MineCLIPModule(MICRO, FROZEN, init=str(tmp_path / "init"), warmup_steps=1, total_steps=2)
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
    # the reward reads the DeepSpeed folder itself through the same dispatcher
    with torch.no_grad():
        assert torch.equal(RewardModel.load(tmp_path / "ds.ckpt").model(batch["video"], TEXTS),
                           rm.model(batch["video"], TEXTS))

    # a shard someone else handed over, with code pickled into it: refused, never run
    marker = tmp_path / "ran"
    for shard in sorted((tmp_path / "ds.ckpt").rglob("*_states.pt")):
        state = torch.load(shard, weights_only=False)
        state["note"] = RunsCode(f"touch {marker}")
        torch.save(state, shard)
        assert export_main([str(tmp_path / "ds.ckpt"), "--out", str(tmp_path / "art2")]) == 1
        assert not marker.exists(), f"{shard.name}: a pickled payload ran"
        assert not (tmp_path / "art2").exists()
        state.pop("note")
        torch.save(state, shard)


class RunsCode:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return os.system, (self.command,)
