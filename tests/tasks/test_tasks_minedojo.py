import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mineclip.tasks.cli import main
from mineclip.tasks.minedojo import MineDojoEnv, import_minedojo

PROGRAMMATIC = """
harvest_milk_with_empty_bucket_and_cow:
  category: harvest
  guidance: '1. Find a cow.

    2. Use the bucket on it.'
  prompt: obtain milk from a cow
combat_zombie_plains_diamond_armors_iron_sword_shield:
  category: combat
  guidance: Fight it.
  prompt: combat a zombie in plains with a iron sword
"""
CREATIVE = """
creative:0:
  collection: manual
  guidance: Walk around.
  prompt: Explore the world to find plains.
  source: null
creative:1:
  collection: youtube
  guidance: Dig.
  prompt: dig a hole
  source: null
"""
SPECS = """
combat_{mob}_plains_{armor}_armors_{weapon}_sword_shield:
  __cls__: "combat"
  prompt: "combat a {mob} in plains"
  target_names: "{mob}"
"""


@pytest.fixture
def minedojo_dir(tmp_path):
    (tmp_path / "programmatic_tasks.yaml").write_text(PROGRAMMATIC)
    (tmp_path / "creative_tasks.yaml").write_text(CREATIVE)
    (tmp_path / "tasks_specs.yaml").write_text(SPECS)
    return tmp_path


def test_import_reads_prompts_guidance_categories_and_specs(minedojo_dir):
    tasks = import_minedojo(minedojo_dir)
    assert len(tasks) == 4
    milk = tasks["minedojo/harvest_milk_with_empty_bucket_and_cow"]
    assert milk.prompt == "obtain milk from a cow" and milk.category == "harvest" and "Find a cow" in milk.guidance
    combat = tasks["minedojo/combat_zombie_plains_diamond_armors_iron_sword_shield"]
    assert combat.init["minedojo_spec"]["__cls__"] == "combat"
    assert tasks["minedojo/creative_1"].kind == "creative" and tasks["minedojo/creative_1"].prompt == "dig a hole"


def test_import_cli_writes_a_suite_that_the_registry_loads(minedojo_dir, tmp_path, monkeypatch):
    out = tmp_path / "md.yaml"
    assert main(["import-minedojo", str(minedojo_dir), "--out", str(out)]) == 0
    from mineclip.tasks import registry

    monkeypatch.setenv(registry.ENV_PATH, str(out))
    registry.reload()
    try:
        assert registry.get_task("minedojo/creative_0").simulator == "minedojo"
        assert "dig a hole" in registry.all_prompts()
        assert all(t.simulator == "crafter" for t in registry.list_tasks())
    finally:
        monkeypatch.delenv(registry.ENV_PATH)
        registry.reload()


class _Space:  # gym 0.21 MultiDiscrete look-alike
    def __init__(self, nvec):
        self.nvec = np.array(nvec)


class FakeMineDojo:
    """Stand-in with MineDojo's API: gym 0.21 reset/step, dict obs with 'rgb' [3, H, W]."""

    task_prompt = "obtain milk from a cow"

    def __init__(self):
        self.action_space = _Space([3, 3, 4, 25, 25, 8, 244, 36])
        self.t = 0

    def seed(self, seed):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.t = 0
        return {"rgb": np.zeros((3, 160, 256), np.uint8), "inventory": {}}

    def step(self, action):
        self.t += 1
        obs = {"rgb": np.full((3, 160, 256), self.t % 255, np.uint8)}
        return obs, 1.0, self.t >= 5, {"TimeLimit.truncated": False}

    def close(self):
        pass


def test_minedojo_adapter_on_a_stand_in():
    env = MineDojoEnv(FakeMineDojo())
    obs, info = env.reset(seed=0)
    assert obs.shape == (160, 256, 3) and "obs" in info and env.prompt == "obtain milk from a cow"
    obs, r, term, trunc, info = env.step(env.action_space.sample())
    assert obs.shape == (160, 256, 3) and obs[0, 0, 0] == 1 and r == 1.0 and not term
    check_env(env, skip_render_check=True)


def test_minedojo_adapter_without_minedojo_says_so():
    with pytest.raises(ImportError, match="MineDojo is not installed"):
        MineDojoEnv(task_id="harvest_milk")
