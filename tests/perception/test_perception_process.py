"""MP5's process table (mineclip.perception.process, `bench/perception.py --process`): success per level
per ablation with Wilson intervals over the same held-out worlds, and the command's JSON."""

import json

import pytest

from helpers.scripts import load_script

from mineclip.perception.process import (
    ABLATION_NAMES,
    ProcessSettings,
    death_summary,
    process_markdown,
    run_process,
    wilson,
)
from mineclip.tasks.world_seeds import world_seeds


def test_wilson_interval_holds_the_rate_and_is_symmetric():
    for k, n in ((0, 10), (3, 10), (10, 10), (7, 30)):
        lo, hi = wilson(k, n)
        assert 0.0 <= lo <= k / n <= hi <= 1.0 and hi - lo > 0
        lo2, hi2 = wilson(n - k, n)
        assert lo == pytest.approx(1 - hi2) and hi == pytest.approx(1 - lo2)
    assert wilson(15, 30)[1] - wilson(15, 30)[0] > wilson(150, 300)[1] - wilson(150, 300)[0]
    assert wilson(0, 0) == [0.0, 1.0]


def test_run_process_plays_every_ablation_on_the_same_held_out_worlds():
    result = run_process(ProcessSettings(["full", "blind"], episodes=2, tasks=["mp5_mine_log"], progress=False))
    worlds = world_seeds("perception_eval", 2)
    for ablation in ("full", "blind"):
        played = [o for o in result["outcomes"] if o["ablation"] == ablation]
        assert [o["world_seed"] for o in played] == worlds
        cell = result["success"][ablation]["basic"]
        assert cell["n"] == 2 and cell["success"] == sum(o["success"] for o in played) / 2
        assert cell["interval"] == wilson(sum(o["success"] for o in played), 2)
    text = process_markdown(result)
    assert ABLATION_NAMES["blind"] in text and "| basic |" in text and "mp5_mine_log" in text
    with pytest.raises(ValueError, match="ablations"):
        ProcessSettings(["sighted"])


def test_bench_process_prints_one_json_object(capsys):
    bench = load_script("perception")  # the script's own main, in this process (a subprocess imports torch again)
    assert bench.main(["--process", "--tasks", "mp5_eat_cow", "--episodes", "1", "--ablations", "full",
                       "--view", "first_person", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["success"]) == {"full"} and result["settings"]["view"] == "first_person"
    assert result["tasks"]["mp5_eat_cow"]["level"] == "basic"


def test_deaths_are_summarised_by_what_was_near_and_the_light():
    base = {"ablation": "full", "success": False}
    outcomes = [dict(base, died=True, threats=("arrow", "zombie"), daylight=0.1),
                dict(base, died=True, threats=("skeleton",), daylight=0.5),
                dict(base, died=True, threats=(), daylight=0.05),
                dict(base, died=False, threats=(), daylight=None)]
    line = death_summary(outcomes).splitlines()[1]
    assert "3 deaths; a zombie near in 1, a skeleton or its arrow in 2, nothing hostile in 1" in line
    assert line.endswith("in the dark (daylight < 0.3) 2")
    assert death_summary(outcomes[3:]) == "No deaths."
