import json

from mineclip.tasks.cli import main
from mineclip.tasks.difficulty import SCORES


def test_list_and_show_commands(capsys):
    assert main(["list", "--category", "combat"]) == 0
    out = capsys.readouterr().out
    assert "combat_zombie" in out and "harvest_wood" not in out and "fight_zombie_iron_sword" not in out
    assert main(["list", "--catalogue", "generated", "--category", "combat"]) == 0
    out = capsys.readouterr().out
    assert "fight_zombie_iron_sword" in out and "combat_zombie " not in out
    assert main(["show", "harvest_wood"]) == 0
    out = capsys.readouterr().out
    assert "chop a tree" in out and "mcu_skill: mining" in out and "planning_graph" in out
    assert main(["show", "nope"]) == 1


def test_difficulty_prints_six_scores_for_every_task_and_json_keyed_by_task(capsys):
    from mineclip.tasks import list_tasks

    assert main(["difficulty", "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    # MP5's context and process levels (catalogues `context`, `process`) are not scored: the cache
    # holds the suite and generated ones
    assert set(scores) == {t.id for t in list_tasks(catalogue="all") if t.catalogue not in ("context", "process")}
    assert all(all(0 <= s[k] <= 5 for k in SCORES) for s in scores.values())
    assert main(["difficulty", "--catalogue", "suite"]) == 0
    out = capsys.readouterr().out
    assert "50 tasks, six calibrated scores each" in out and "intric" in out


def test_benchmark_and_plan_text_commands(capsys):
    assert main(["benchmark", "control"]) == 0
    out = capsys.readouterr().out
    assert "navigation" in out and "exploitation" in out
    assert main(["benchmark", "planning", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tasks"]
    assert main(["plan-text", "--episodes", "3"]) == 0
    out = capsys.readouterr().out
    assert "make_iron_pickaxe" in out and "scripted success" in out
