from mineclip.tasks.cli import main


def test_list_and_show_commands(capsys):
    assert main(["list", "--category", "combat"]) == 0
    out = capsys.readouterr().out
    assert "combat_zombie" in out and "harvest_wood" not in out
    assert main(["show", "harvest_wood"]) == 0
    assert "chop a tree" in capsys.readouterr().out
    assert main(["show", "nope"]) == 1
