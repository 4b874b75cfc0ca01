"""The core never needs the world: the model, data, training, reward, judge and export packages
import nothing of the simulator (crafter) or of the packages built on it (sim, tasks, play,
perception, rl, label, assist), neither when they are imported nor inside a function."""

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ("model", "data", "train", "reward", "evaluate", "export")
WORLD = ("sim", "tasks", "play", "perception", "rl", "label", "assist")
# modules of the core that need an optional extra besides the core's dependencies (never crafter)
OPTIONAL = {"mineclip.reward.sb3": "stable_baselines3"}


def world_imports(source: str, package: str) -> list[str]:
    """'line: module' for every import of crafter or a world package in a module's source (of
    package `package`), at any depth."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the file's package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            top = name.split(".")
            if top[0] == "crafter" or (top[0] == "mineclip" and len(top) > 1 and top[1] in WORLD):
                found.append(f"{node.lineno}: {name}")
                break
    return found


def core_files() -> list[Path]:
    return sorted(p for pkg in CORE for p in (ROOT / "mineclip" / pkg).rglob("*.py"))


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_core_module_imports_the_world(path):
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    assert world_imports(path.read_text(encoding="utf-8"), package) == [], f"{path.relative_to(ROOT)} imports the world"


def test_the_check_sees_an_import_inside_a_function():
    source = "import torch\ndef f():\n    from mineclip.sim import vocab\n    from ..tasks import registry\n"
    assert world_imports(source, "mineclip.train") == ["3: mineclip.sim", "4: mineclip.tasks"]
    assert world_imports("from .loss import clip_facts\nfrom ..data import clip_meta\n", "mineclip.train") == []


SCRIPT = textwrap.dedent("""
    import importlib, pkgutil, sys
    sys.modules["crafter"] = None  # unimportable: `import crafter` raises ImportError
    failed = []
    for pkg in {core!r}:
        p = importlib.import_module("mineclip." + pkg)
        p.__path__.extend({extra!r})  # more modules of the package (the check's own test)
        for m in pkgutil.walk_packages(p.__path__, p.__name__ + "."):
            if m.name in {optional!r}:
                continue
            try:
                importlib.import_module(m.name)
            except Exception as e:
                failed.append(f"{{m.name}}: {{e!r}}")
    world = sorted(m for m in sys.modules if m.split(".")[:2] in [["mineclip", w] for w in {world!r}])
    print("FAILED", failed)
    print("WORLD", world)
    sys.exit(1 if failed or world else 0)
""")


def test_the_core_imports_with_crafter_unimportable():
    script = SCRIPT.format(core=CORE, optional=sorted(OPTIONAL), world=WORLD, extra=[])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_import_check_fails_when_the_trainer_needs_the_simulator(tmp_path):
    """The subprocess check above is not vacuous: a trainer module that imports the simulator's
    labels at import time fails it."""
    (tmp_path / "layering_probe.py").write_text("from mineclip.sim.labels import BINARY  # noqa: F401\n")
    script = SCRIPT.format(core=("train",), optional=[], world=WORLD, extra=[str(tmp_path)])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert out.returncode == 1 and "mineclip.train.layering_probe" in out.stdout
