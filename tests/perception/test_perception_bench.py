"""MP5's tables on a micro artifact (mineclip.perception.benchmark and .tables, printed by
bench/perception.py): both tables, and the JSON object with per-condition F1 and per-level success
for each perceiver."""

import json

import pytest

from helpers.models import make_micro
from helpers.scripts import run_script

from mineclip.model.artifact import save_artifact
from mineclip.perception.benchmark import BenchSettings, JudgeSettings, encoder_perceivers, run_benchmark, run_judges
from mineclip.perception.process import wilson
from mineclip.perception.tables import benchmark_summary, benchmark_tables, tables_json, tables_markdown
from mineclip.pipeline import load_preset


def _bench(capsys, *argv: str) -> tuple[int, str, str]:
    """bench/perception.py run as people run it, in this process: (exit status, stdout, stderr)."""
    return run_script("perception", list(argv), capsys)


def test_bench_prints_the_tables_and_one_json_object(tmp_path):
    art = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    result = run_benchmark(BenchSettings(str(art), episodes=1, fit_worlds=3, eval_worlds=2,
                                         tasks=["find_a_cow", "find_cow_day"], progress=False))
    out = benchmark_summary(result)
    assert set(out["success"]) == {"ground_truth", "active", "one_shot"}
    assert set(out["success"]["ground_truth"]) == {"1", "2"} and out["success"]["ground_truth"]["1"] == 1.0
    assert set(out["reliability_f1"]) == {"trained", "untrained"} and "time:night" in out["reliability_f1"]["trained"]
    # the micro model's patches are not the simulator's tiles: no head, its thresholds in words
    assert (art / "perception.json").is_file() and not (art / "perception_head.safetensors").exists()
    assert out["thresholds"]["trained"] == "thresholds (in words) fitted on training worlds and saved"
    text = benchmark_tables(result)
    assert "Reliability per condition type" in text and "| ground_truth | 100% [21%, 100%]" in text  # Wilson, n = 1
    assert out["intervals"]["ground_truth"]["1"] == [round(x, 4) for x in wilson(1, 1)]
    assert tables_markdown(result, None) == text  # what bench/perception.py --no-judge prints
    assert result["by_share"] == {"trained": {}, "untrained": {}}  # from above a frame has no shares


def test_first_person_answers_are_counted_by_how_much_of_the_frame_a_thing_fills(tmp_path):
    art = save_artifact(make_micro(resolution=(160, 256)), tmp_path / "artifact", window=2)
    result = run_benchmark(BenchSettings(str(art), episodes=1, fit_worlds=4, eval_worlds=4, untrained=False,
                                         tasks=["find_cow_day"], progress=False, view="first_person",
                                         perceivers=["ground_truth"]))
    by_share, rel = result["by_share"]["trained"], result["reliability"]["trained"]
    assert set(by_share) == {k for k in rel if k.split(":")[0] in ("creature", "terrain", "object")}
    for key, bins in by_share.items():
        # every frame that shows the thing is in exactly one bin, and each bin's answers are all its frames
        assert sum(b["frames"] for b in bins) == rel[key]["positives"], key
        assert all(b["yes"] + b["unsure"] + b["no"] == pytest.approx(1.0) for b in bins)
        assert all(b["share"][0] < b["share"][1] for b in bins)
    assert any(bins for bins in by_share.values())
    assert "answers about a thing the frame shows, by how much of the frame it fills" in benchmark_tables(result)
    assert benchmark_summary(result)["by_share"] == result["by_share"]


def test_the_bench_plays_the_perceivers_it_is_given_and_refuses_an_unknown_one(tmp_path):
    art = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    result = run_benchmark(BenchSettings(str(art), episodes=1, fit_worlds=3, eval_worlds=2, untrained=False,
                                         tasks=["find_a_cow"], progress=False, perceivers=["ground_truth", "active"]))
    assert set(benchmark_summary(result)["success"]) == {"ground_truth", "active"}
    with pytest.raises(ValueError, match="expected perceivers among"):
        BenchSettings(str(art), perceivers=["oracle"])
    with pytest.raises(ValueError, match="expected perceivers among"):
        BenchSettings(str(art), perceivers=[])


def test_the_learned_perceivers_play_once_per_encoder_each_with_its_own_percipient(tmp_path):
    art = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    result = run_benchmark(BenchSettings(str(art), episodes=1, fit_worlds=3, eval_worlds=2, tasks=["find_a_cow"],
                                         progress=False, perceivers=["ground_truth", "active"],
                                         encoders=["trained", "untrained"]))
    assert set(result["success"]) == {"ground_truth", "active", "active, untrained encoder"}
    assert {o["perceiver"] for o in result["outcomes"]} == set(result["success"])
    percipients = {"trained": object(), "untrained": object()}  # what a perceiver asks is all that is read here
    played = encoder_perceivers(["ground_truth", "active", "one_shot"], percipients, ["trained", "untrained"])
    assert list(played) == ["ground_truth", "active", "active, untrained encoder", "one_shot",
                            "one_shot, untrained encoder"]
    assert played["active"].percipient is percipients["trained"]
    assert played["active, untrained encoder"].percipient is percipients["untrained"]
    assert played["one_shot, untrained encoder"].percipient is percipients["untrained"]
    with pytest.raises(ValueError, match="expected encoders among"):
        BenchSettings(str(art), encoders=["random"])
    with pytest.raises(ValueError, match="untrained=False"):
        BenchSettings(str(art), encoders=["untrained"], untrained=False)


def test_the_bench_refuses_an_unknown_encoder_or_perceiver_and_encoders_where_no_untrained_head_is_fitted(capsys):
    code, _, err = _bench(capsys, "--encoders", "trained,random")
    assert code == 2 and "expected encoders among ['trained', 'untrained']" in err
    code, _, err = _bench(capsys, "--perceivers", "ground_truth,oracle")
    assert code == 2 and "expected perceivers among" in err
    for mode in ("--success-only", "--process", "--judge-only"):
        code, _, err = _bench(capsys, mode, "--encoders", "trained,untrained")
        assert code == 2 and "--encoders is for the full bench" in err, mode


def test_a_model_that_reads_tiles_gets_a_head_saved_and_read_back(tmp_path):
    art = save_artifact(make_micro(resolution=(160, 256)), tmp_path / "artifact", window=2)
    settings = BenchSettings(str(art), episodes=1, fit_worlds=4, eval_worlds=2, untrained=False,
                             tasks=["find_cow_day"], progress=False)
    first = run_benchmark(settings)
    assert first["thresholds"]["trained"] == "head and thresholds fitted on training worlds and saved"
    assert (art / "perception_head.safetensors").is_file()
    bands = json.loads((art / "perception.json").read_text())["conditions"]
    assert bands and {b["by"] for b in bands.values()} <= {"head", "text"} and "head" in {b["by"] for b in bands.values()}
    again = run_benchmark(settings)
    assert again["thresholds"]["trained"] == "read from perception.json and perception_head.safetensors"
    in_words = run_benchmark(BenchSettings(**{**settings.__dict__, "head": False}))
    assert in_words["thresholds"]["trained"] == "thresholds (in words) fitted on training worlds"
    assert json.loads((art / "perception.json").read_text())["conditions"] == bands  # not overwritten


def test_the_judge_alone_on_a_validation_set_of_training_worlds(tmp_path, capsys):
    from mineclip.play.record import read_jsonl
    from mineclip.tasks.world_seeds import purpose_of

    art = save_artifact(make_micro(), tmp_path / "artifact", window=2)
    valset = tmp_path / "valset"
    mode = load_preset("default").mode  # judged as the default's perception stage judges
    judges = run_judges(JudgeSettings(str(art), None, str(valset), per_label=1, mode=mode, tasks=["find_a_tree"],
                                      progress=False, context_purpose="perception"))
    out = tables_json(None, judges, mode)
    assert list(out["judges"]) == ["context"] and "reliability" not in out
    assert out["mode"] == mode
    assert {purpose_of(r["world_seed"]) for r in read_jsonl(valset / "evalset.jsonl")} == {"perception"}

    # bench/perception.py --judge-only on that set (recorded: read, not recorded again), its --mode by
    # default the default preset's, one JSON object; and what it refuses
    code, out_text, err = _bench(capsys, "--model", str(art), "--judge-only", "--labels", "", "--per-label", "1",
                                 "--tasks", "find_a_tree", "--context-purpose", "perception", "--context-dir",
                                 str(valset), "--json")
    assert code == 0, err
    printed = json.loads(out_text)
    assert list(printed["judges"]) == ["context"] and "reliability" not in printed
    assert printed["mode"] == load_preset("default").mode
    assert printed["judges"]["context"]["by_kind"] == out["judges"]["context"]["by_kind"]
    assert _bench(capsys, "--model", str(art), "--judge-only", "--no-judge")[0] == 2
    assert _bench(capsys, "--model", str(tmp_path / "none"))[0] == 1
