"""Reading checkpoint files without running code from them.

`torch.load(..., weights_only=True)` first. Lightning checkpoints may also pickle metadata objects
(hyper-parameter dicts, config classes) that `weights_only` refuses; for those a restricted
unpickler admits tensors, storages and plain containers, turns every other class into an inert
stand-in that is never imported or called, and refuses outright globals that exist to run code
(`os.system`, `builtins.eval`, `subprocess.*`, ...).
"""

from __future__ import annotations

import logging
import pickle
import types
from pathlib import Path
from typing import Any

import torch

log = logging.getLogger(__name__)


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read or does not fit the model."""


class UnsafeCheckpointError(CheckpointError):
    """A checkpoint whose pickle asks to run code."""


# Modules whose globals only make sense in a pickle that wants to run code.
_REFUSED_MODULES = {
    "os", "posix", "nt", "subprocess", "sys", "shutil", "socket", "importlib", "runpy", "pickle",
    "_pickle", "marshal", "ctypes", "code", "codeop", "pty", "webbrowser", "multiprocessing",
    "signal", "tempfile", "pathlib", "io", "_io", "glob", "commands", "platform", "asyncio",
    "threading", "_thread", "pdb", "timeit", "cProfile", "profile", "trace",
}

_ALLOWED_BUILTINS = {"set", "frozenset", "slice", "range", "complex", "int", "float", "bool", "str",
                     "bytes", "bytearray", "tuple", "list", "dict"}

_ALLOWED_GLOBALS = {
    ("collections", "OrderedDict"): lambda: __import__("collections").OrderedDict,
    ("torch._utils", "_rebuild_tensor"): lambda: torch._utils._rebuild_tensor,
    ("torch._utils", "_rebuild_tensor_v2"): lambda: torch._utils._rebuild_tensor_v2,
    ("torch._utils", "_rebuild_parameter"): lambda: torch._utils._rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): lambda: torch._utils._rebuild_parameter_with_state,
    ("torch", "Size"): lambda: torch.Size,
    ("torch", "device"): lambda: torch.device,
    ("_codecs", "encode"): lambda: __import__("_codecs").encode,  # bytes under pickle protocol 2
    # DeepSpeed's ZeRO shards record their stage as this enum; its merge helper compares it with ints
    ("deepspeed.runtime.zero.config", "ZeroStageEnum"):
        lambda: __import__("deepspeed.runtime.zero.config", fromlist=["ZeroStageEnum"]).ZeroStageEnum,
}


class InertObject:
    """Stand-in for a class or function named in a checkpoint: records what it was given, does nothing."""

    origin = "?"

    def __new__(cls, *args, **kwargs):
        self = object.__new__(cls)
        self.__dict__.update(args=args, kwargs=kwargs, state=None, items={}, values=[])
        return self

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __setstate__(self, state) -> None:  # pickle BUILD
        self.__dict__["state"] = state

    def __setitem__(self, key, value) -> None:  # pickle SETITEM(S) on dict subclasses
        try:
            self.items[key] = value
        except TypeError:
            pass

    def append(self, value) -> None:  # pickle APPEND(S) on list subclasses
        self.values.append(value)

    def extend(self, values) -> None:
        self.values.extend(values)

    def __repr__(self) -> str:
        return f"<inert stand-in for {self.origin}>"


class _RestrictedUnpickler(pickle.Unpickler):
    stand_ins: dict[str, type] = {}

    def find_class(self, module: str, name: str):
        if module == "__builtin__":  # Python 2's name of builtins, in protocol 0-2 pickles (DeepSpeed 0.15's)
            module = "builtins"
        key = (module, name)
        if key in _ALLOWED_GLOBALS:
            return _ALLOWED_GLOBALS[key]()
        if module == "builtins" and name in _ALLOWED_BUILTINS:
            return getattr(__import__("builtins"), name)
        if module == "torch" and isinstance(getattr(torch, name, None), torch.dtype):
            return getattr(torch, name)
        root = module.split(".")[0]
        if root in _REFUSED_MODULES or module == "builtins":
            raise UnsafeCheckpointError(
                f"refused to unpickle {module}.{name}: a weights file never needs it and it can run code"
            )
        origin = f"{module}.{name}"
        cls = type(name if name.isidentifier() else "InertObject", (InertObject,), {"origin": origin})
        _RestrictedUnpickler.stand_ins[origin] = cls
        return cls


# torch.load(pickle_module=...) subclasses `pickle_module.Unpickler` and calls `pickle_module.load`.
_restricted_pickle = types.ModuleType("mineclip_restricted_pickle")
_restricted_pickle.Unpickler = _RestrictedUnpickler
_restricted_pickle.load = lambda f, **kw: _RestrictedUnpickler(f, **kw).load()
_restricted_pickle.__name__ = "mineclip_restricted_pickle"


def safe_torch_load(path: str | Path, mmap: bool | None = None) -> Any:
    """Load a torch checkpoint on the CPU without ever executing code from it."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint not found: {path}")
    try:
        return torch.load(path, map_location="cpu", weights_only=True, mmap=mmap)
    except pickle.UnpicklingError as e:
        first_error = e
    except UnsafeCheckpointError:
        raise
    except Exception as e:  # not a torch file at all, truncated, ...
        raise CheckpointError(f"could not read {path} as a torch checkpoint: {e}") from e
    log.info("weights_only load of %s needs more than tensors (%s); using the restricted unpickler",
             path, str(first_error).splitlines()[0][:200])
    _RestrictedUnpickler.stand_ins = {}
    try:
        obj = torch.load(path, map_location="cpu", weights_only=False, pickle_module=_restricted_pickle, mmap=mmap)
    except UnsafeCheckpointError as e:
        raise UnsafeCheckpointError(f"{path}: {e}") from None
    except Exception as e:
        raise CheckpointError(f"could not read {path} as a torch checkpoint: {e}") from e
    if _RestrictedUnpickler.stand_ins:
        log.warning("%s: replaced pickled objects of %s by inert stand-ins (never imported or run)",
                    path, ", ".join(sorted(_RestrictedUnpickler.stand_ins)))
    return obj


class _TorchLoadingSafely:
    """The `torch` module as another library sees it, with `torch.load` replaced by
    `safe_torch_load`: lend it to code that loads files with `weights_only=False`."""

    def __getattr__(self, name: str) -> Any:
        return getattr(torch, name)

    @staticmethod
    def load(f, map_location=None, weights_only=None, mmap=None, **_) -> Any:
        return safe_torch_load(f, mmap=mmap)


torch_loading_safely = _TorchLoadingSafely()
