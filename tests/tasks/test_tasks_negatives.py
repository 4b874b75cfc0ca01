"""Negative prompts: one module, named policies, used by the reward's users, eval, rl and the pipeline."""

import pytest

from mineclip.tasks import all_prompts
from mineclip.tasks.negatives import POLICIES, negative_pool, negatives_for, scene_prompts
from mineclip.tasks.scenes import IDLE, VIEW, VIEW_NEAR


def test_suite_negatives_are_the_other_task_prompts():
    prompts = all_prompts()
    neg = negatives_for(prompts[0], "suite")
    assert prompts[0] not in neg and len(neg) == len(prompts) - 1 and set(neg) < set(prompts)


def test_distinct_negatives_drop_special_cases_of_the_prompt():
    neg = negatives_for("chop a tree", "distinct")
    assert "chop a tree" not in neg and "chop a tree near water" not in neg
    assert "collect three pieces of wood" in neg and "find a cow" in neg
    scene = negatives_for("chop a tree", "scene")
    assert "chop a tree near water" in scene and set(scene_prompts()) <= set(scene) and "chop a tree" not in scene
    assert negatives_for("chop a tree", "distinct+scene") == neg + scene_prompts()


def test_scene_prompts_are_the_narrators_event_free_captions():
    # what the narrator says when nothing happens, never a task prompt, never the near views that
    # describe the find tasks' success
    from mineclip.play.narrate import EVENTS

    scene = scene_prompts()
    assert scene and len(scene) == len(set(scene))
    assert set(IDLE) <= set(scene) and VIEW["cow"][0] in scene
    assert not set(scene) & set(all_prompts())
    assert not set(scene) & {c for cs in EVENTS.values() for c in cs}
    assert not set(scene) & {c for cs in VIEW_NEAR.values() for c in cs}


def test_a_file_of_prompts_is_a_policy_and_a_bad_name_is_refused(tmp_path):
    path = tmp_path / "neg.txt"
    path.write_text("a cow\n\nchop a tree\na cow\n")
    assert negative_pool(str(path)) == ["a cow", "chop a tree"]
    assert negatives_for("chop a tree", str(path)) == ["a cow"]
    with pytest.raises(ValueError, match="negatives must be one of"):
        negative_pool("sceen")
    (tmp_path / "empty.txt").write_text("\n")
    with pytest.raises(ValueError, match="no prompts"):
        negative_pool(str(tmp_path / "empty.txt"))
    assert POLICIES == ("suite", "distinct", "scene", "distinct+scene")


def test_the_reward_library_takes_its_negatives_explicitly(tiny_model):
    from mineclip.reward import RewardModel

    rm = RewardModel(tiny_model, window=2)
    with pytest.raises(TypeError, match="negatives_for"):
        rm.reward_fn("chop a tree", None)
    assert rm.reward_fn("chop a tree", negatives_for("chop a tree", "suite")).num_prompts == len(all_prompts())
