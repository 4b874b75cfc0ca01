import os

import pytest
import pytorch_lightning as pl
import torch
import torch.distributed as dist
from pytorch_lightning.callbacks import ModelCheckpoint

from mineclip.train.data import CachedBatchesDataModule
from mineclip.train.module import MineCLIPModule
from mineclip.train.strategies import DeepSpeedStrategy

from helpers.models import MICRO
from helpers.training import data_args


# CPU in every run (gloo, float32); CUDA where a GPU is present (NCCL, bf16 mixed precision)
ACCELERATORS = [("cpu", "32-true"), pytest.param("gpu", "bf16-mixed", marks=pytest.mark.skipif(
    not torch.cuda.is_available(), reason="DeepSpeed on CUDA needs a GPU"))]


def _fit(tmp_path, shards, max_steps, ckpt_path=None, accelerator="cpu", precision="32-true"):
    module = MineCLIPModule(MICRO, warmup_steps=1, total_steps=4)
    ckpt = ModelCheckpoint(dirpath=tmp_path / "ckpt", save_last=True, save_top_k=0, every_n_train_steps=2)
    trainer = pl.Trainer(
        accelerator=accelerator, devices=1, strategy=DeepSpeedStrategy(stage=2), precision=precision,
        max_steps=max_steps,
        logger=False, enable_progress_bar=False, enable_model_summary=False, limit_val_batches=0,
        num_sanity_val_steps=0, callbacks=[ckpt], gradient_clip_val=1.0, default_root_dir=tmp_path,
    )
    trainer.fit(module, CachedBatchesDataModule(num_batches=2, **data_args(shards)), ckpt_path=ckpt_path)
    return module, trainer


@pytest.mark.parametrize("accelerator,precision", ACCELERATORS)
def test_deepspeed_zero2_saves_a_checkpoint_that_loads_back(shards, tmp_path, monkeypatch, accelerator, precision):
    monkeypatch.setenv("MASTER_PORT", str(29500 + os.getpid() % 1000))
    try:
        module, trainer = _fit(tmp_path, shards, max_steps=2, accelerator=accelerator, precision=precision)
        last = tmp_path / "ckpt" / "last.ckpt"
        assert last.is_dir() and not (tmp_path / "ckpt" / "last.ckpt.tmp").exists()
        states = torch.load(last / "checkpoint" / "mp_rank_00_model_states.pt", map_location="cpu",
                            weights_only=False)
        assert states["mineclip"]["format_version"] == 1 and states["global_step"] == 2
        saved = {k.removeprefix("model."): v for k, v in states["module"].items()}
        for name, p in module.model.state_dict().items():
            torch.testing.assert_close(saved[name].float(), p.float().cpu(),
                                       msg=lambda m, name=name: f"{name} (saved {saved[name].dtype}, "
                                       f"module {p.dtype}): {m}")
        assert list((last / "checkpoint").glob("*optim_states.pt"))  # ZeRO-2 optimiser partition
        # Loads back: resuming continues at step 2 with the saved weights and optimiser state.
        resumed, trainer2 = _fit(tmp_path, shards, max_steps=4, ckpt_path=str(last), accelerator=accelerator,
                                 precision=precision)
        assert trainer2.global_step == 4
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def test_a_cpu_fit_runs_on_the_cpu_when_deepspeed_has_picked_cuda(shards, tmp_path, monkeypatch):
    # DeepSpeed picks CUDA for the whole process wherever a GPU is present and moved a CPU fit's
    # model there; the strategy makes it follow Lightning's accelerator and restores its choice after
    from deepspeed.accelerator import get_accelerator, set_accelerator
    from deepspeed.accelerator.cuda_accelerator import CUDA_Accelerator

    monkeypatch.setenv("MASTER_PORT", str(29500 + os.getpid() % 1000))
    before, cuda = get_accelerator(), CUDA_Accelerator()
    set_accelerator(cuda)
    try:
        module, trainer = _fit(tmp_path, shards, max_steps=1)
        assert trainer.global_step == 1 and next(module.parameters()).device.type == "cpu"
        assert get_accelerator() is cuda  # DeepSpeed's own choice is back
    finally:
        set_accelerator(before)
        if dist.is_initialized():
            dist.destroy_process_group()
