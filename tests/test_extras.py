"""Optional dependencies: a missing extra is one line naming it; the reward library imports nothing heavy."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from mineclip.extras import EXTRAS, MissingExtraError, require

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_every_extra_named_in_errors_exists_and_the_core_stays_light():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(EXTRAS.values()) <= set(extras)
    assert {"video", "train", "deepspeed", "sim", "rl", "all", "dev"} <= set(extras)
    core = " ".join(PYPROJECT["project"]["dependencies"]).lower()
    for heavy in ("lightning", "deepspeed", "crafter", "stable-baselines3", "webdataset", "tensorboard", "decord"):
        assert heavy not in core, heavy
    pins = [d for deps in [PYPROJECT["project"]["dependencies"], *extras.values()] for d in deps
            if "==" in d.split(";")[0]]  # exact versions belong in constraints.txt
    assert not pins
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"


def test_a_missing_extra_is_one_line_that_names_it(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "crafter" else real(name, *a))
    with pytest.raises(MissingExtraError) as e:
        require("gymnasium", "crafter", feature="the crafter simulator")
    assert str(e.value) == "the crafter simulator needs crafter, which is not installed: pip install 'mineclip[sim]'"
    assert isinstance(e.value, ModuleNotFoundError) and e.value.extra == "sim"
    with pytest.raises(ValueError, match="no extra of mineclip provides 'pandas'"):
        require("pandas", feature="a table")


def test_a_command_whose_extra_is_missing_says_so_in_one_line():
    # stable-baselines3 hidden from the import system, as if the `rl` extra were not installed
    r = _python("import sys; sys.modules['stable_baselines3'] = None\n"
                "from mineclip.cli import main; sys.exit(main(['rl', '--help']))")
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().splitlines()[-1] == ("mineclip rl: RL with the learned reward (mineclip.rl) needs "
                                                 "stable_baselines3, which is not installed: pip install 'mineclip[rl]'")
    assert "Traceback" not in r.stderr


def test_importing_the_reward_library_loads_no_training_simulator_or_rl_package():
    r = _python("import sys\n"
                "import mineclip\n"
                "from mineclip import RewardModel, build_model, load_official\n"
                "from mineclip.reward import MineCLIPReward, MineCLIPRewardVec\n"
                "from mineclip.evaluate import judge\n"
                "heavy = ('pytorch_lightning', 'lightning', 'deepspeed', 'webdataset', 'crafter', 'stable_baselines3',"
                " 'jsonargparse', 'tensorboard')\n"
                "print(sorted(m for m in heavy if m in sys.modules))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
    assert "FutureWarning" not in r.stderr  # x-transformers' torch.jit.script warning is silenced at its import


def test_version_flag():
    r = _python("import sys; from mineclip.cli import main; sys.exit(main(['--version']))")
    assert r.returncode == 0 and r.stdout.strip() == f"mineclip {PYPROJECT['project']['version']}"


def test_floors_file_pins_exactly_the_floors_of_pyproject():
    import re

    floors = {}
    for line in (ROOT / "floors.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            floors[name.strip().lower().replace("_", "-")] = version.strip()
    extras = PYPROJECT["project"]["optional-dependencies"]
    for req in [*PYPROJECT["project"]["dependencies"], *[r for deps in extras.values() for r in deps]]:
        if req.startswith("mineclip["):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?>=([0-9.]+)(;.*)?", req.replace(" ", ""))
        assert m, f"expected NAME>=FLOOR, got {req!r}"
        name, floor = m.group(1).lower().replace("_", "-"), m.group(3)
        assert name in floors, f"{name} has no pinned floor in floors.txt"
        assert floors[name] == floor or floors[name].startswith(floor + "."), (name, floor, floors[name])


def test_rl_runs_need_only_the_rl_extra_not_training():
    # `mineclip rl` (the rl extra: sim + stable-baselines3) ran on a machine without jsonargparse and
    # failed importing the pipeline for its host record; now it imports nothing of training
    r = _python("import sys\n"
                "for m in ('jsonargparse', 'pytorch_lightning', 'lightning', 'deepspeed', 'webdataset'):\n"
                "    sys.modules[m] = None\n"
                "import mineclip.rl.train, mineclip.rl.cli, mineclip.rl.runs, mineclip.rl.table\n"
                "print(sorted(mineclip.rl.train.host_info()))")
    assert r.returncode == 0, r.stderr
    assert "cpu_capability" in r.stdout and "torch" in r.stdout
