"""The pipeline's perception stage: MP5's context tasks judged whole and by conditions, in the report."""

import json

from helpers.models import make_micro

from mineclip.model.artifact import save_artifact
from mineclip.pipeline import STAGES, load_preset
from mineclip.pipeline.presets import PerceptionSizes, preset_from_dict
from mineclip.pipeline.run import stage_perception
from mineclip.pipeline.summary import _perception_line


def test_presets_carry_the_perception_sizes_and_a_preset_without_them_skips_the_stage(tmp_path):
    assert STAGES[-1] == "perception"
    assert load_preset("default").perception == PerceptionSizes([], 25, 80)
    bare = preset_from_dict("bare", {})
    assert bare.perception is None and "perception" not in bare.to_dict()
    assert stage_perception(tmp_path, bare, 1) == {"skipped": "the preset has no perception section"}


def test_the_stage_fits_thresholds_judges_the_context_tasks_and_writes_the_report(tmp_path):
    run = tmp_path / "run"
    save_artifact(make_micro(), run / "artifact", window=2)
    preset = preset_from_dict("tiny", {"perception": {"tasks": ["find_cow_day"], "per_label": 1, "fit_worlds": 2}})
    record = stage_perception(run, preset, 1)
    assert (run / "artifact" / "perception.json").is_file() and (run / "report" / "perception.md").is_file()
    assert 0.0 <= record["context_factored_f1"] <= 1.0 and record["context_whole_f1"] is not None
    lo, hi = record["context_factored_interval"]
    assert 0.0 <= lo <= record["context_factored_f1"] <= hi <= 1.0 and len(record["context_whole_interval"]) == 2
    text = (run / "report" / "perception.md").read_text()
    assert "| context | programmatic | 1 |" in text and "find_cow_day" in text
    (run / "stages").mkdir()
    (run / "stages" / "perception.json").write_text(json.dumps(record))
    assert _perception_line(run).startswith("context tasks (MP5): F1 x 100 judged by conditions")
    f1 = f"{100 * record['context_factored_f1']:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"
    assert f"judged by conditions {f1}," in _perception_line(run)


def test_a_model_whose_patches_are_tiles_gets_the_percipients_head_saved_with_the_artifact(tmp_path):
    run = tmp_path / "run"
    save_artifact(make_micro(resolution=(160, 256)), run / "artifact", window=2)
    preset = preset_from_dict("tiny", {"perception": {"tasks": ["find_a_tree"], "per_label": 1, "fit_worlds": 4}})
    record = stage_perception(run, preset, 1)
    assert (run / "artifact" / "perception_head.safetensors").is_file()
    assert "tree" in record["head"] and "Percipient head" in (run / "report" / "perception.md").read_text()
    bands = json.loads((run / "artifact" / "perception.json").read_text())["conditions"]
    by_head = {k for k, b in bands.items() if b["by"] == "head"}
    assert by_head and all(k.split(":")[1] in record["head"] for k in by_head)
