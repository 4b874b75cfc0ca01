"""The numeric precision of inference, decided in one place.

`precision` is "auto" (the default), "bf16" or "fp32"; `None` reads the environment variable
MINECLIP_PRECISION and falls back to "auto". "auto" picks bfloat16 where the hardware computes it
natively (a CPU with AVX-512 BF16 or AMX, a CUDA GPU that supports it) and float32 elsewhere.

What runs in bfloat16 is the frame encoder, the one part whose cost grows with every frame
(`mineclip.model.fused`): its weights are bf16 copies and its features come back as float32. The
text encoder (run once per prompt), the temporal aggregator, the adapter, the logits, the softmax
and the reward stay float32; so does training.

The reward library (`RewardModel`, its wrappers), the judge (`mineclip eval --precision`,
`EvalSettings.precision`) and the benchmarks all resolve their setting here.
"""

from __future__ import annotations

import logging
import os

import torch

log = logging.getLogger(__name__)

PRECISIONS = ("auto", "bf16", "fp32")
ENV_VAR = "MINECLIP_PRECISION"
_ALIASES = {"bfloat16": "bf16", "float32": "fp32", "fp": "fp32", "float": "fp32", "": "auto"}
DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}


def bf16_supported(device: str | torch.device = "cpu") -> bool:
    """Whether `device` computes bfloat16 matrix products natively (not by emulation)."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if device.type != "cpu" or not torch.backends.mkldnn.is_available():
        return False
    cpu = getattr(torch, "cpu", None)
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    native = any(bool(getattr(cpu, name, lambda: False)()) for name in checks)
    return native and bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())


def check_precision(precision: str | None) -> str:
    """The setting's canonical name ("auto", "bf16" or "fp32"); `None` reads MINECLIP_PRECISION."""
    raw = os.environ.get(ENV_VAR, "auto") if precision is None else precision
    name = _ALIASES.get(str(raw).strip().lower(), str(raw).strip().lower())
    if name not in PRECISIONS:
        where = f"${ENV_VAR}" if precision is None else "precision"
        raise ValueError(f"{where} must be one of {', '.join(PRECISIONS)}, got {raw!r}")
    return name


def resolve_precision(precision: str | None = None, device: str | torch.device = "cpu") -> str:
    """"bf16" or "fp32": what `precision` means on `device` ("auto": bf16 where it is native)."""
    name = check_precision(precision)
    if name == "auto":
        return "bf16" if bf16_supported(device) else "fp32"
    if name == "bf16" and not bf16_supported(device):
        log.warning("bf16 asked for on %s, which has no native bfloat16 matrix products: it will be emulated "
                    "(slower than fp32)", torch.device(device))
    return name


def resolve_dtype(precision: str | None = None, device: str | torch.device = "cpu") -> torch.dtype:
    """The torch dtype of `resolve_precision`."""
    return DTYPES[resolve_precision(precision, device)]
