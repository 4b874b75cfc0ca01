"""The `mineclip` command: each subcommand is a module with `main(argv) -> int`."""

from __future__ import annotations

import importlib
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


def run_subcommand(parser, argv: list[str] | None, errors: tuple = (KeyError, ValueError, FileNotFoundError)) -> int:
    """Parse `argv` with a parser whose subcommands set `fn`, run it, and turn `errors` into one line
    on stderr (`<prog>: <message>`) and exit code 1."""
    args = parser.parse_args(argv)
    try:
        return int(args.fn(args) or 0)
    except errors as e:
        print(f"{parser.prog}: {e}", file=sys.stderr)
        return 1


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: mineclip [--version] COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "Run `mineclip COMMAND --help` for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
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
