import json

import gymnasium as gym
import pytest

from mineclip.tasks import all_prompts, get_task, list_tasks
from mineclip.tasks.difficulty import SCORES, load_scores
from mineclip.tasks.generator import build_catalogue, candidates, catalogue_path, family

SUITE = {t.id: t for t in list_tasks()}


def test_templates_make_hundreds_of_composable_candidates():
    entries, refused = candidates(SUITE)
    assert len(entries) >= 250 and not (set(entries) & set(SUITE))
    fams = {family(f) for f in entries.values()}
    assert {"harvest", "combat", "techtree", "navigation", "exploitation", "building", "molecule-and",
            "molecule-or", "molecule-when", "molecule-where"} <= fams
    assert all(f.get("catalogue") == "generated" for f in entries.values())


def test_the_generated_catalogue_is_validated_runnable_and_scored():
    generated = list_tasks(catalogue="generated")
    summary = json.loads(catalogue_path("generated_summary.json").read_text())
    assert len(generated) == summary["kept"] >= 200 and summary["pass_rate"] >= 0.8
    scores = load_scores()
    for t in generated:
        assert t.success and t.guidance and t.catalogue == "generated"
        assert all(k in scores[t.id] for k in SCORES), t.id
        assert scores[t.id]["raw"]["scripted_success"] > 0, t.id


def test_generated_tasks_stay_out_of_the_suite_and_its_prompts():
    assert len(list_tasks()) == 50 and all(t.catalogue == "suite" for t in list_tasks())
    prompts = all_prompts()
    assert len(prompts) == 50 and prompts[0] == "hunt a cow"
    assert len(all_prompts(catalogue="all")) > len(prompts)
    assert len(list_tasks(catalogue="all")) == 50 + len(list_tasks(catalogue="generated")) + len(
        list_tasks(catalogue="context")) + len(list_tasks(catalogue="process"))
    with pytest.raises(ValueError, match="expected catalogue"):
        list_tasks(catalogue="mine")


def test_gymnasium_builds_a_generated_task_and_the_scripted_agent_solves_it():
    from mineclip.play.record import run_episode

    env = gym.make("mineclip/fight_zombie_iron_sword_night-v0")
    obs, info = env.reset(seed=1)
    assert obs.shape == (160, 256, 3) and info["inventory"]["iron_sword"] == 1
    ep = run_episode("craft_stone_pickaxe_from_scratch", "scripted", seed=600, world_seed=600, tail=0, min_frames=0)
    assert ep.record["label"] == 1 and get_task("craft_stone_pickaxe_from_scratch").init["naive"]


def test_build_catalogue_keeps_validated_tasks_whose_atoms_are_kept(tmp_path):
    def validate(ids):
        return {t: 0.0 if t == "collect_wood_1" else 1.0 for t in ids}

    path = tmp_path / "generated.yaml"
    summary = build_catalogue(validate, path=path)
    text = path.read_text()
    assert "collect_wood_1:" not in text and "collect_wood_2:" in text
    assert "collect_wood_1_at_night:" not in text  # a molecule of a dropped atom goes too
    assert summary["failed"]["collect_wood_1"] == 0.0 and "collect_wood_1_at_night" in summary["failed"]
    assert json.loads((tmp_path / "generated_summary.json").read_text())["kept"] == summary["kept"]
