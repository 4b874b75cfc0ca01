"""DeepSpeed ZeRO on CUDA or on CPU (gloo), with checkpoint directories swapped in atomically."""

from __future__ import annotations

import os
import shutil
from typing import Any

from pytorch_lightning.accelerators import CPUAccelerator
from pytorch_lightning.strategies import DDPStrategy, StrategyRegistry
from pytorch_lightning.strategies import DeepSpeedStrategy as _LightningDeepSpeed


class DeepSpeedStrategy(_LightningDeepSpeed):
    """Lightning's DeepSpeedStrategy (ZeRO stage 2 by default) that also accepts the CPU accelerator.

    Lightning refuses anything but CUDA for DeepSpeed, yet DeepSpeed itself runs on CPU over gloo,
    which is how CI exercises ZeRO-2 and produces DeepSpeed checkpoints. Use a torch optimiser
    (our AdamW), not FusedAdam/DeepSpeedCPUAdam, on CPU.

    Checkpoints (directories) are written to `<path>.tmp`, then renamed over `<path>`: a reader
    sees either the previous complete checkpoint or the new one. The folder must be on a file
    system every rank sees (as DeepSpeed needs for ZeRO checkpoints anyway).
    """

    strategy_name = "mineclip_deepspeed"

    def __init__(self, stage: int = 2, **kwargs: Any):
        kwargs.setdefault("process_group_backend", None)
        super().__init__(stage=stage, **kwargs)

    def setup_environment(self) -> None:
        # DeepSpeed picks its own device once per process (CUDA where a GPU is present) and moves the
        # model there; make it follow Lightning's accelerator for this fit, and restore it in teardown
        self._previous_ds_accelerator = _use_deepspeed_accelerator(
            "cpu" if isinstance(self.accelerator, CPUAccelerator) else "cuda")
        if isinstance(self.accelerator, CPUAccelerator):
            DDPStrategy.setup_environment(self)  # skip the CUDA-only check of DeepSpeedStrategy
        else:
            super().setup_environment()

    def teardown(self) -> None:
        super().teardown()
        previous = getattr(self, "_previous_ds_accelerator", None)
        if previous is not None:
            from deepspeed.accelerator import set_accelerator

            set_accelerator(previous)
            self._previous_ds_accelerator = None

    def setup_distributed(self) -> None:
        _forget_deepspeed_groups()
        if not isinstance(self.accelerator, CPUAccelerator):
            return super().setup_distributed()
        from lightning_fabric.utilities.seed import reset_seed

        reset_seed()
        self.set_world_ranks()
        self._init_deepspeed_distributed()  # gloo on CPU

    def _setup_model_and_optimizer(self, model, optimizer, lr_scheduler=None):
        _patch_scalar_broadcast()
        if not isinstance(self.accelerator, CPUAccelerator):
            return super()._setup_model_and_optimizer(model, optimizer, lr_scheduler)
        import argparse

        import deepspeed

        engine, ds_optimizer, _, _ = deepspeed.initialize(
            args=argparse.Namespace(device_rank=self.local_rank),  # CPU devices have no index
            config=self.config,
            model=model,
            model_parameters=filter(lambda p: p.requires_grad, model.parameters()),
            optimizer=optimizer,
            lr_scheduler=lr_scheduler,
            dist_init_required=False,
        )
        return engine, ds_optimizer

    def save_checkpoint(self, checkpoint: dict, filepath, storage_options: Any | None = None) -> None:
        filepath = os.fspath(self.broadcast(os.fspath(filepath)))
        tmp, old = f"{filepath}.tmp", f"{filepath}.old"
        if self.is_global_zero and os.path.exists(tmp):
            shutil.rmtree(tmp)
        self.barrier("mineclip_ds_save_start")
        super().save_checkpoint(checkpoint, tmp, storage_options)
        self.barrier("mineclip_ds_save_written")
        if self.is_global_zero:
            if os.path.exists(old):
                shutil.rmtree(old)
            if os.path.exists(filepath):
                os.replace(filepath, old)
            os.replace(tmp, filepath)
            if os.path.exists(old):
                shutil.rmtree(old)
        self.barrier("mineclip_ds_save_done")

    @classmethod
    def register_strategies(cls, strategy_registry) -> None:
        strategy_registry.register(
            cls.strategy_name, cls, description="DeepSpeed ZeRO-2 on CUDA or CPU (gloo), atomic checkpoints", stage=2
        )
        strategy_registry.register(
            "mineclip_deepspeed_stage_3", cls, description="DeepSpeed ZeRO-3 on CUDA or CPU, atomic checkpoints", stage=3
        )


def _use_deepspeed_accelerator(name: str):
    """Set DeepSpeed's process-wide accelerator to `name` ("cpu" or "cuda") if it is another one;
    returns the one it replaced (None if nothing changed)."""
    from deepspeed.accelerator import get_accelerator, set_accelerator

    current = get_accelerator()
    if current.device_name() == name:
        return None
    if name == "cpu":
        from deepspeed.accelerator.cpu_accelerator import CPU_Accelerator as Accelerator
    else:
        from deepspeed.accelerator.cuda_accelerator import CUDA_Accelerator as Accelerator
    set_accelerator(Accelerator())
    return current


def _forget_deepspeed_groups() -> None:
    """DeepSpeed caches process groups in module globals (e.g. its clone of the world group). After a
    process group is destroyed and a new one made in the same process (a second fit, tests), those
    caches point at dead groups; drop them so DeepSpeed builds them again from the current world."""
    from deepspeed.utils import groups

    for name, value in vars(groups).items():
        if name.startswith("_") and name.isupper() and ("GROUP" in name or name.startswith("_MPU_")):
            setattr(groups, name, {} if isinstance(value, dict) else None)


def _patch_scalar_broadcast() -> None:
    """DeepSpeed 0.19 broadcasts parameters as `p.data.view(torch.uint8)`, which fails for 0-dim
    parameters (MineCLIP's logit_scale and adapter residual weight). Broadcast those as [1] views."""
    from deepspeed.runtime.engine import DeepSpeedEngine

    if getattr(DeepSpeedEngine._broadcast_model, "_mineclip_patched", False):
        return
    original = DeepSpeedEngine._broadcast_model

    def _broadcast_model(self):
        scalars = [p for p in self.module.parameters() if p.dim() == 0]
        saved = [(p, p.data) for p in scalars]
        for p in scalars:
            p.data = p.data.view(1)
        try:
            original(self)
        finally:
            for p, data in saved:
                p.data = data

    _broadcast_model._mineclip_patched = True
    DeepSpeedEngine._broadcast_model = _broadcast_model


if DeepSpeedStrategy.strategy_name not in StrategyRegistry:
    DeepSpeedStrategy.register_strategies(StrategyRegistry)
