"""The `mineclip` command: every subcommand says what it does and every option has help text."""

import argparse
import importlib

import pytest

from mineclip.cli import COMMANDS, main


def _actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)
        elif not isinstance(action, argparse._HelpAction):
            yield parser.prog, action


@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "train"])
def test_every_option_of_every_command_has_help_text(name):
    module = importlib.import_module(COMMANDS[name][0])
    parser = module.build_parser()
    assert parser.description, name
    missing = [f"{prog} {a.option_strings or a.dest}" for prog, a in _actions(parser) if not a.help]
    assert not missing


def test_train_help_says_what_the_command_does(capsys):
    assert main(["train", "--help"]) == 0
    out = capsys.readouterr().out
    assert "Train MineCLIP contrastively" in out and "fit" in out


def test_unknown_command_and_usage(capsys):
    assert main(["frobnicate"]) == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err
    assert main([]) == 0 and "usage: mineclip [--version] COMMAND" in capsys.readouterr().out


def test_python_dash_m_mineclip_is_the_command():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "mineclip", "--version"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("mineclip "), r.stderr
