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
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?>=([0-9.]+)(,<[0-9.]+)?(;.*)?", req.replace(" ", ""))
        assert m, f"expected NAME>=FLOOR[,<BOUND], got {req!r}"
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


# -- what the package says about itself: licence, declared imports, bounds, test configuration -----

def _requirements() -> dict[str, tuple[str, str]]:
    """Every requirement of pyproject.toml: normalised name -> (the extra or 'core', the specifier)."""
    import re

    out = {}
    groups = {"core": PYPROJECT["project"]["dependencies"], **PYPROJECT["project"]["optional-dependencies"]}
    for group, reqs in groups.items():
        for req in reqs:
            if req.startswith("mineclip["):
                continue
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)([^;]*)(;.*)?", req.replace(" ", ""))
            out.setdefault(re.sub(r"[-_.]+", "-", m.group(1).lower()), (group, m.group(2)))
    return out


def _imported_modules() -> dict[str, set[str]]:
    """Top-level third-party modules imported anywhere in mineclip/ -> the files that import them."""
    import ast

    found: dict[str, set[str]] = {}
    for path in (ROOT / "mineclip").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "mineclip":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_the_licence_file_is_the_mit_licence_pyproject_names():
    text = (ROOT / "LICENSE").read_text()
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    assert text.startswith("MIT License") and "Copyright (c)" in text and "the mineclip authors" in text
    assert "WITHOUT WARRANTY OF ANY KIND" in text


def test_every_package_the_code_imports_is_declared_in_pyproject():
    import importlib.metadata
    import re

    not_declared = {"minedojo"}  # optional by design: it needs Java 8; its import error says how to get it
    dists = importlib.metadata.packages_distributions()
    declared = _requirements()
    missing = []
    for module, files in sorted(_imported_modules().items()):
        if module in not_declared:
            continue
        names = [re.sub(r"[-_.]+", "-", d.lower()) for d in dists.get(module, [module])]
        if not any(n in declared for n in names):
            missing.append(f"{module} ({', '.join(names)}; imported by {', '.join(sorted(files)[:3])})")
    assert not missing, "imported but not declared in pyproject.toml: " + "; ".join(missing)
    # the extra a one-line "pip install 'mineclip[...]'" error names must be the one that installs it
    extras = PYPROJECT["project"]["optional-dependencies"]

    def closure(extra: str) -> set[str]:
        names = set()
        for req in extras[extra]:
            if req.startswith("mineclip["):
                for inner in req[len("mineclip["):-1].split(","):
                    names |= closure(inner)
            else:
                names.add(re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower()))
        return names

    for module, extra in EXTRAS.items():
        names = {re.sub(r"[-_.]+", "-", d.lower()) for d in dists.get(module, [module])}
        assert names & closure(extra), f"{module} is said to come with mineclip[{extra}], which does not install it"


# packages whose private names (a leading underscore, or a module path they do not document) the code uses
PRIVATE_PARTS_OF = ("torch", "x-transformers", "open-clip-torch", "webdataset", "pytorch-lightning", "deepspeed",
                    "crafter")


def test_packages_whose_private_parts_the_code_uses_have_an_upper_bound():
    declared = _requirements()
    for name in PRIVATE_PARTS_OF:
        assert name in declared, name
        assert "<" in declared[name][1], f"{name}{declared[name][1]}: the code uses its private parts; bound it"


def _has(obj, dotted: str) -> bool:
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def test_the_private_parts_the_code_uses_are_where_it_expects_them():
    """A release that moves one of these fails here, by name, rather than deep inside a run."""
    import inspect

    import open_clip.tokenizer
    import open_clip.transformer
    import torch
    import x_transformers
    from x_transformers.x_transformers import AbsolutePositionalEmbedding  # noqa: F401  (model/temporal.py)

    moved = []
    tok = open_clip.tokenizer.SimpleTokenizer()
    moved += [f"open_clip SimpleTokenizer.{a}" for a in ("pat", "byte_encoder", "encoder", "bpe") if not hasattr(tok, a)]
    if not hasattr(open_clip.transformer.TextTransformer, "_embeds"):
        moved.append("open_clip TextTransformer._embeds (model/towers.py overrides it)")
    enc = x_transformers.Encoder(dim=8, depth=1, heads=1)
    if not (hasattr(enc, "final_norm") and isinstance(enc.layers[0][0][0], torch.nn.Module)):
        moved.append("x_transformers Encoder.layers[i][0][0] (the pre-norm model/temporal.py replaces)")
    moved += [f"torch.{n}" for n in ("_utils._rebuild_tensor_v2", "UntypedStorage._new_shared") if not _has(torch, n)]
    import webdataset.tariterators as tar
    import webdataset.utils

    for fn in ("group_by_keys", "tar_file_expander", "url_opener"):
        if "handler" not in inspect.signature(getattr(tar, fn)).parameters:
            moved.append(f"webdataset.tariterators.{fn}(handler=...)")
    if not hasattr(webdataset.utils, "pytorch_worker_info"):
        moved.append("webdataset.utils.pytorch_worker_info")
    from lightning_fabric.plugins.io.torch_io import TorchCheckpointIO  # noqa: F401  (train/callbacks.py)
    from pytorch_lightning.strategies import DeepSpeedStrategy

    moved += [f"pytorch_lightning DeepSpeedStrategy.{m}" for m in ("_init_deepspeed_distributed",
                                                                    "_setup_model_and_optimizer")
              if not hasattr(DeepSpeedStrategy, m)]
    import crafter

    env = crafter.Env()
    env.reset()
    moved += [f"crafter Env.{a}" for a in ("_world", "_player", "_step", "_view", "_unlocked", "_last_health",
                                           "_update_time", "_balance_chunk", "_local_view._grid",
                                           "_local_view._sleep", "_local_view._vignette", "_item_view",
                                           "_textures") if not _has(env, a)]
    moved += [f"crafter World.{a}" for a in ("_mat_map", "_mat_ids", "_mat_names", "_obj_map", "_objects")
              if not _has(env._world, a)] if hasattr(env, "_world") else []
    if not hasattr(crafter.engine, "_draw_alpha"):
        moved.append("crafter.engine._draw_alpha")
    assert not moved, "private parts moved (update the code, then its upper bound): " + "; ".join(moved)


def test_private_parts_of_deepspeed_the_training_strategy_patches_are_there():
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.engine import DeepSpeedEngine

    assert hasattr(DeepSpeedEngine, "_broadcast_model"), "deepspeed DeepSpeedEngine._broadcast_model moved"


def test_the_project_s_own_deprecation_and_future_warnings_fail_the_tests():
    import warnings

    for category in (DeprecationWarning, FutureWarning):
        with pytest.raises(category):
            warnings.warn_explicit("old", category, "mineclip/x.py", 1, module="mineclip.x")
    with warnings.catch_warnings(record=True):  # another package's warning is not an error here
        warnings.warn_explicit("old", DeprecationWarning, "other.py", 1, module="otherpkg")


def test_every_test_has_a_time_limit_and_the_slow_ones_a_longer_one(request):
    # tests/conftest.py as pytest loaded it (`import conftest` may find another folder's conftest)
    conftest = next(m for m in request.config.pluginmanager.get_plugins()
                    if Path(getattr(m, "__file__", None) or "/").resolve() == ROOT / "tests" / "conftest.py")
    assert 0 < float(request.config.getini("timeout")) <= 600
    request.node.add_marker(pytest.mark.slow)
    conftest.pytest_collection_modifyitems(request.session, request.config, [request.node])
    assert request.node.get_closest_marker("timeout").args[0] == conftest.SLOW_TIMEOUT > 600
