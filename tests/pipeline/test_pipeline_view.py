"""The view reaches a pipeline run: the preset's `view` (or `--view`) is what its clips and
evaluation set are played in, the run keeps it, and data or run folders of another view are refused."""

import json

import pytest

from mineclip.pipeline import load_preset
from mineclip.pipeline.cli import default_run, main
from mineclip.pipeline.presets import Preset, preset_from_dict
from mineclip.pipeline.run import clip_settings, evalset_settings
from mineclip.train.configs import ConfigError

QUICK = load_preset("quick")


def test_a_presets_view_reaches_its_clips_and_evaluation_set_and_is_kept_with_the_run():
    assert QUICK.view == "top" and QUICK.perception is not None
    eyes = QUICK.with_view("first_person")
    assert {s.view for s in clip_settings(eyes).values()} == {"first_person"}
    assert evalset_settings(eyes).view == "first_person" and evalset_settings(QUICK).view == "top"
    assert eyes.perception == QUICK.perception  # the perception stage runs in the preset's view too
    assert eyes.to_dict()["view"] == "first_person" and Preset.data_sizes_of(eyes.to_dict())["view"] == "first_person"
    assert Preset.data_sizes_of({"name": "old"})["view"] == "top"  # runs made before the field: the top view
    assert default_run(eyes).name == "quick-first_person" and default_run(QUICK).name == "quick"
    written = preset_from_dict("p", {"view": "first_person", "train": {"defaults": ["tiny"]},
                                     "perception": {"tasks": ["find_a_cow"]}})
    assert written.view == "first_person" and clip_settings(written)["train"].view == "first_person"
    assert written.perception.tasks == ["find_a_cow"]  # a first-person preset keeps its perception section


def test_an_unknown_view_is_a_clear_error(capsys):
    with pytest.raises(ConfigError, match=r"view: unknown view '3d'; expected one of \['top', 'first_person'\]"):
        preset_from_dict("p", {"view": "3d"})
    with pytest.raises(ValueError, match=r"unknown view '3d'"):
        QUICK.with_view("3d")
    with pytest.raises(SystemExit):
        main(["--preset", "quick", "--view", "3d"])
    assert "invalid choice: '3d' (choose from 'top', 'first_person')" in capsys.readouterr().err


def finished_data(folder, preset):
    for stage in ("clips", "evalset"):
        (folder / "stages").mkdir(parents=True, exist_ok=True)
        (folder / "stages" / f"{stage}.json").write_text(json.dumps({"seconds": 1.0}))
    (folder / "preset.json").write_text(json.dumps(preset.to_dict()))


def test_data_or_a_run_folder_of_another_view_is_refused(tmp_path, capsys):
    top = tmp_path / "top"
    finished_data(top, QUICK)
    assert main(["--preset", "quick", "--view", "first_person", "--out", str(tmp_path / "a"),
                 "--data-from", str(top)]) == 1
    assert "show the top view, this run the first_person view" in capsys.readouterr().err
    assert not (tmp_path / "a" / "shards").exists()
    # a folder holding a top run: its finished stages would be skipped and their data used
    assert main(["--preset", "quick", "--view", "first_person", "--out", str(top)]) == 1
    assert "holds a run in the top view; this run is in the first_person view" in capsys.readouterr().err
    eyes = tmp_path / "eyes"
    finished_data(eyes, QUICK.with_view("first_person"))
    assert main(["--preset", "quick", "--out", str(eyes)]) == 1
    assert "holds a run in the first_person view" in capsys.readouterr().err
    assert json.loads((top / "preset.json").read_text())["view"] == "top"  # neither run's record was touched
