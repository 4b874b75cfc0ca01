"""The scripts in bench/ run in the test's own process, as `python bench/NAME.py ARGS` runs them: the
script's module is loaded from its file (its imports resolve as they do for people) and its `main`
called with the arguments. A subprocess would import torch and the library again, about 15 s a call
on the 2-core CI machine, which several tests of refusals paid over and over."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import torch

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_script(name: str) -> ModuleType:
    """bench/<name>.py as a module (not as `__main__`, so it only defines its functions)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_script(name: str, argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `python bench/<name>.py *argv`: `main`'s return value, or the status
    of the SystemExit it raised (argparse's 2 for a refused option; a message instead of a number is
    printed to stderr with status 1, as the interpreter does). Torch's thread count, which some
    scripts set for their run, is restored afterwards."""
    capsys.readouterr()  # what the test printed before is not the script's
    threads = torch.get_num_threads()
    try:
        code = load_script(name).main(argv)
    except SystemExit as e:
        code = e.code
        if code is not None and not isinstance(code, int):  # sys.exit("message")
            print(code, file=sys.stderr)
            code = 1
    finally:
        torch.set_num_threads(threads)
    out, err = capsys.readouterr()
    return (code or 0), out, err
