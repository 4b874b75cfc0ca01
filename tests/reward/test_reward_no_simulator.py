"""The reward library never needs the simulator: every module of `mineclip.reward` imports, and a
reward streams through the core, with crafter made unimportable; and no module of it names the
simulator or the packages built on it, not even in an import inside a function."""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import mineclip.reward

# the optional shells may need their extra's packages (never crafter): skipped where those are missing
OPTIONAL = {"mineclip.reward.wrappers": "gymnasium", "mineclip.reward.sb3": "stable_baselines3"}
# the simulator and what is built on it (layering: docs/architecture.md)
SIMULATOR = ("crafter", "mineclip.sim", "mineclip.tasks", "mineclip.play", "mineclip.perception",
             "mineclip.assist", "mineclip.rl", "mineclip.label")

SCRIPT = """
import importlib, importlib.util, json, sys
sys.modules["crafter"] = None  # `import crafter` raises ImportError from here on

imported = []
for name, extra in {modules}:
    if extra and importlib.util.find_spec(extra) is None:
        continue
    importlib.import_module(name)
    imported.append(name)

import numpy as np
from mineclip.model import build_model
from mineclip.reward import RewardModel
from mineclip.reward.episodes import RewardTracker

fn = RewardModel(build_model("micro"), window=2).reward_fn("chop a tree", ["drink water", "hunt a cow"])
frames = np.random.default_rng(0).integers(0, 256, (3, 2, 40, 80, 3), dtype=np.uint8)  # resized: 32x64
tracker = RewardTracker(fn, 2, autoreset="same-step")
tracker.reset(frames[0])
step = tracker.step(frames[1], [0.0, 0.0], [True, False], final_frames=frames[2][:1])
assert len(step.episodes) == 1 and step.payload(0)["mineclip"]["logits"].shape == (3,)
loaded = sorted(m for m, module in sys.modules.items() if module is not None and m.startswith({simulator}))
print(json.dumps({{"imported": imported, "loaded": loaded}}))
"""


def reward_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(mineclip.reward.__path__, "mineclip.reward."))


def test_every_reward_module_imports_and_a_reward_streams_with_crafter_unimportable():
    modules = [(name, OPTIONAL.get(name)) for name in ["mineclip.reward", *reward_modules()]]
    script = SCRIPT.format(modules=modules, simulator=SIMULATOR)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=False,
                         cwd=Path(mineclip.reward.__file__).parents[2])
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert {"mineclip.reward", "mineclip.reward.episodes", "mineclip.reward.frames",
            "mineclip.reward.reward", "mineclip.reward.factored"} <= set(out["imported"])
    assert out["loaded"] == []  # nothing of the simulator's side was imported on the way


def test_no_reward_module_imports_the_simulator_even_inside_a_function():
    """An import inside a function escapes the test above until the function runs (the proximity
    reward's import of the perception head did): read every import statement instead."""
    found = []
    for path in sorted(Path(mineclip.reward.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.name}:{node.lineno} imports {n}" for n in names
                      if any(n == s or n.startswith(s + ".") for s in SIMULATOR)]
    assert found == []
