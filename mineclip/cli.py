"""The `mineclip` command: each subcommand is a module with `main(argv) -> int`.

Logging is set up here, once, for every subcommand: `-v/--verbose` and `-q/--quiet` are taken out of
the arguments wherever they stand before a `--` (`mineclip -v eval ...` = `mineclip eval ... -v`).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

COMMANDS = {
    "demo": ("mineclip.demo", "build the full and tiny models and score prompts against a clip"),
    "pipeline": ("mineclip.pipeline.cli", "record play, train, export and evaluate on the built-in default"),
    "data": ("mineclip.data.cli", "build WebDataset shards from videos + transcripts (whole, or in parts that `data merge` combines); inspect shards"),
    "tasks": ("mineclip.tasks.cli", "the crafter task catalogues, MCU difficulty scores, the task space and benchmarks, text planning"),
    "play": ("mineclip.play.cli", "scripted play: record trajectories, the labelled evaluation set, narrated clips"),
    "train": ("mineclip.train.cli", "contrastive training (Lightning CLI, same as train.py)"),
    "export": ("mineclip.export.cli", "checkpoint -> reward/judge artifact (safetensors + JSON)"),
    "eval": ("mineclip.evaluate.cli", "F1 of the success judge on labelled trajectories (same as eval.py)"),
    "label": ("mineclip.label.cli", "label trajectories in the browser (people in the loop); rate tasks"),
    "rl": ("mineclip.rl.cli", "PPO on the task suite with the learned reward"),
    "assist": ("mineclip.assist.cli", "chat with a CraftAssist-style assistant in a crafter world, checked by the model"),
}


VERBOSITY_FLAGS = {"-v": 1, "--verbose": 1, "-vv": 2, "-q": -1, "--quiet": -1}
LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
_verbosity = 0


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time (a test's capture, a redirect made later)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value) -> None:
        pass


def configure_logging(verbosity: int = 0) -> None:
    """Log to stderr: mineclip's INFO and up by default (its DEBUG with 1 = --verbose, and other
    packages' INFO with 2 = -vv); -1 (--quiet): warnings and errors only, and no progress bars."""
    global _verbosity
    _verbosity = verbosity
    root = logging.getLogger()
    for h in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(h)  # configured again (in-process callers): one handler, not two
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbosity >= 2 else logging.WARNING)
    own = logging.DEBUG if verbosity >= 1 else logging.INFO if verbosity == 0 else logging.WARNING
    logging.getLogger("mineclip").setLevel(own)


def logging_args(argv: list[str]) -> list[str]:
    """Configure logging from the -v/--verbose and -q/--quiet flags in `argv` (anywhere before a
    `--`); return the arguments without them."""
    end = argv.index("--") if "--" in argv else len(argv)
    flags = [a for a in argv[:end] if a in VERBOSITY_FLAGS]
    if any(VERBOSITY_FLAGS[f] > 0 for f in flags) and any(VERBOSITY_FLAGS[f] < 0 for f in flags):
        raise SystemExit("mineclip: --verbose and --quiet together: choose one")
    configure_logging(sum(VERBOSITY_FLAGS[f] for f in flags))
    return [a for a in argv[:end] if a not in VERBOSITY_FLAGS] + argv[end:]


def quiet() -> bool:
    """Whether the command line asked for --quiet (commands then show no progress bars)."""
    return _verbosity < 0


def count(text: str) -> int:
    """An argparse type for a number of things that must be at least 1 (every `--workers`): 0 or fewer
    is refused at the command line, not run as one worker or as all cores."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def run_subcommand(parser, argv: list[str] | None, errors: tuple | None = None) -> int:
    """Parse `argv` with a parser whose subcommands set `fn`, run it, and turn `errors` (default: bad
    input, and a worker process that died) into one line on stderr (`<prog>: <message>`) and exit code 1."""
    from mineclip.pool import WorkerDiedError

    errors = errors or (KeyError, ValueError, FileNotFoundError, WorkerDiedError)
    args = parser.parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except errors as e:
        print(f"{parser.prog}: {error_message(e)}", file=sys.stderr)
        return 1


def error_message(e: BaseException) -> str:
    """What an error says, for one line on stderr: a KeyError's message without the quotes its str() adds."""
    if isinstance(e, KeyError) and len(e.args) == 1 and isinstance(e.args[0], str):
        return e.args[0]
    return str(e)


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: mineclip [--version] [-v | -q] COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run `mineclip COMMAND --help` for a command's options. Every command also takes",
              "  -v, --verbose  log more (mineclip's debug messages; -vv: other packages' too)",
              "  -q, --quiet    warnings and errors only, no progress bars"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = logging_args(list(sys.argv[1:] if argv is None else argv))
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if argv[0] in ("-V", "--version"):
        from mineclip import __version__

        print(f"mineclip {__version__}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"mineclip: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    from mineclip.extras import MissingExtraError

    try:
        module = importlib.import_module(COMMANDS[name][0])
        return int(module.main(rest) or 0)
    except MissingExtraError as e:
        print(f"mineclip {name}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
