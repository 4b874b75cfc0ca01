"""Pipeline presets: the evaluation set the built-in default judges, and a preset's sizes reaching the stage."""

from collections import Counter

import pytest

from mineclip.pipeline import load_preset
from mineclip.pipeline.presets import preset_from_dict
from mineclip.pipeline.run import clip_settings, evalset_settings
from mineclip.play.clips import plan_episodes
from mineclip.tasks import get_task
from mineclip.train.configs import ConfigError


def test_the_default_judges_12_programmatic_and_6_creative_tasks_on_50_successes_and_50_failures():
    preset = load_preset("default")
    kinds = Counter(get_task(t).kind for t in preset.evalset.tasks)
    assert kinds["programmatic"] >= 12 and kinds["creative"] >= 6
    assert len(set(preset.evalset.tasks)) == len(preset.evalset.tasks)
    settings = evalset_settings(preset)
    assert (settings.per_label, settings.worlds, settings.tail) == (50, 50, preset.num_frames)
    # the mean P of the prompt: Direct's clipping left failures at exactly 0 and K-means split the successes
    assert (preset.negatives, preset.mode) == ("scene", "direct-naive")


def test_the_default_plays_find_lava_three_times_as_often_and_keeps_the_held_out_clips_unweighted():
    # lava is a rare sight in the clips (docs/quality.md): the default's training clips play its task 3x as often
    settings = clip_settings(load_preset("default"))
    plays = Counter(j["task_id"] for j in plan_episodes(settings["train"], 2000))
    others = sorted(n for t, n in plays.items() if t != "find_lava")
    assert len(others) >= 40 and plays["find_lava"] >= 2.5 * others[len(others) // 2]
    assert settings["val"].task_weights is None  # retrieval is measured on the same held-out clips as before


def test_a_presets_evaluation_worlds_reach_the_settings_and_unknown_fields_are_errors():
    preset = preset_from_dict("p", {"evalset": {"tasks": ["harvest_wood"], "per_label": 3, "worlds": 7},
                                    "train": {"defaults": ["tiny"]}})
    assert evalset_settings(preset).worlds == 7
    assert preset.data_sizes()["evalset"]["worlds"] == 7  # a run on other worlds cannot lend its data
    assert evalset_settings(preset_from_dict("q", {"train": {"defaults": ["tiny"]}})).worlds == 20
    with pytest.raises(ConfigError, match="world"):
        preset_from_dict("r", {"evalset": {"world": 3}})


def test_a_presets_judge_reward_formula_is_checked_and_kept_with_the_run():
    preset = preset_from_dict("p", {"train": {"defaults": ["tiny"]}, "eval": {"mode": "direct-naive"}})
    assert preset.mode == "direct-naive" and preset.to_dict()["eval"] == {"negatives": "scene", "mode": "direct-naive"}
    assert preset_from_dict("q", {"train": {"defaults": ["tiny"]}}).mode == "direct"  # the paper's Direct
    with pytest.raises(ConfigError, match="eval.mode 'dirct'.*direct-naive"):
        preset_from_dict("r", {"eval": {"mode": "dirct"}})
