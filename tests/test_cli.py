"""The `mineclip` command: every subcommand says what it does and every option has help text."""

import argparse
import importlib

import pytest

from mineclip.cli import COMMANDS, count, main


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
    assert main([]) == 0 and "usage: mineclip [--version] [-v | -q] COMMAND" in capsys.readouterr().out


def test_python_dash_m_mineclip_is_the_command():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "mineclip", "--version"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("mineclip "), r.stderr


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_takes_verbose_and_quiet_before_or_after_its_name(name, monkeypatch):
    import types

    import mineclip.cli

    seen = []
    command = types.SimpleNamespace(main=lambda argv: seen.append(argv) or 0)
    monkeypatch.setattr(mineclip.cli.importlib, "import_module", lambda module: command)
    for argv in (["-q", name, "ARG"], [name, "--verbose", "ARG"], [name, "ARG", "-q"]):
        assert main(argv) == 0
    assert seen == [["ARG"]] * 3  # the command's own parser never sees them


def test_verbose_and_quiet_set_the_log_level_wherever_they_stand_before_a_double_dash(capsys):
    import logging

    from mineclip.cli import logging_args, quiet

    log = logging.getLogger("mineclip.test_cli")
    assert main(["-v", "--version"]) == 0
    log.debug("detail")
    assert "DEBUG mineclip.test_cli: detail" in capsys.readouterr().err and not quiet()
    assert main(["--version", "--quiet"]) == 0
    log.info("news")
    log.warning("trouble")
    err = capsys.readouterr().err
    assert "news" not in err and "WARNING mineclip.test_cli: trouble" in err and quiet()
    assert main(["--version"]) == 0  # the default: mineclip's info, not its debug messages
    log.info("news")
    log.debug("detail")
    err = capsys.readouterr().err
    assert "INFO mineclip.test_cli: news" in err and "detail" not in err and not quiet()
    assert logging.getLogger("some.package").getEffectiveLevel() == logging.WARNING
    assert logging_args(["train", "fit", "-v", "--", "-q"]) == ["train", "fit", "--", "-q"]
    with pytest.raises(SystemExit, match="choose one"):
        logging_args(["-v", "eval", "-q"])
    logging_args([])


def test_every_count_of_processes_is_refused_below_one_at_the_command_line():
    # `mineclip pipeline --workers 0` ran as one worker, `play --workers 0` as all cores
    found = [(prog, action) for name in COMMANDS if name != "train"
             for prog, action in _actions(importlib.import_module(COMMANDS[name][0]).build_parser())
             if action.dest == "workers"]
    assert len(found) >= 7  # pipeline, rl, data build, play x3, tasks x3
    for prog, action in found:
        assert action.type is count, f"{prog} --workers"
    with pytest.raises(argparse.ArgumentTypeError, match=">= 1, got 0"):
        count("0")
    with pytest.raises(argparse.ArgumentTypeError, match="whole number"):
        count("two")
    assert count("3") == 3


def test_pipeline_workers_zero_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["pipeline", "--workers", "0", "--until", "clips"])
    assert exit_.value.code == 2 and "expected a whole number >= 1, got 0" in capsys.readouterr().err
