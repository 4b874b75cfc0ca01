"""`mineclip assist`: chat with the assistant in a fresh crafter world (empty inventory).

    mineclip assist                                   interactive chat in the terminal
    mineclip assist --command "chop a tree" --world-seed 1000 --json     scripted, one JSON object
    mineclip assist train-parser [--out DIR]          retrain the parser (the packaged one by default)
    mineclip assist parse [FILE]                      messages in (one per line), action dictionaries out
    mineclip assist calibrate --model ARTIFACT        fit the judge's threshold for commands, saved with the artifact
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def build_parser() -> argparse.ArgumentParser:
    from .parser.train import ParserTraining

    p = argparse.ArgumentParser(prog="mineclip assist", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--command", action="append", default=[], metavar="TEXT",
                   help="a message to send (repeat for a multi-turn exchange); without it: interactive chat")
    p.add_argument("--world-seed", type=int, default=None, help="the world (default: the first 'play' world)")
    p.add_argument("--model", default=None, metavar="ARTIFACT",
                   help="an exported artifact (`mineclip export`) for the judge and 'what do you see' "
                        "(default: no judge)")
    p.add_argument("--judge-threshold", type=float, default=None,
                   help="the threshold the judge's score is read against (default: the one calibrated for the "
                        "model, else 0)")
    p.add_argument("--parser", default=None, metavar="DIR", help="a parser artifact (default: the packaged one)")
    p.add_argument("--max-steps", type=int, default=600, help="world steps one message may set going")
    p.add_argument("--json", action="store_true", help="print one JSON object (with --command)")
    p.add_argument("--record", default=None, metavar="DIR",
                   help="write each carried-out command as a labelled trajectory (DIR/trajectories.jsonl + "
                        "videos/, what `mineclip eval` reads)")
    p.add_argument("--video", default=None, metavar="PATH", help="save the whole session as an mp4")
    p.add_argument("--view", default="top", choices=("top", "first_person"),
                   help="what the agent sees and how it moves (default: top, crafter's)")
    sub = p.add_subparsers(dest="action", metavar="{train-parser,parse,calibrate}",
                           help="train-parser: retrain the semantic parser; parse: messages to action dictionaries, "
                                "no world; calibrate: the judge's threshold for commands, into the artifact (without "
                                "any: chat)")
    d = ParserTraining()
    t = sub.add_parser("train-parser", help="retrain the semantic parser",
                       description="Train the semantic parser on generated pairs and the crowd's train split (never "
                                   "on the hand-written set or the crowd's test split, which it is measured on; on "
                                   "the validation split only when --crowd-splits names it).")
    t.add_argument("--out", default=None, help="artifact folder (default: the packaged parser)")
    t.add_argument("--examples", type=int, default=d.examples, help="generated training pairs")
    t.add_argument("--crowd-repeat", type=int, default=d.crowd_repeat,
                   help="passes over the crowd's train split per pass over the generated pairs (0: generated only)")
    t.add_argument("--crowd-splits", default=",".join(d.crowd_splits),
                   help="crowd splits trained on, comma-separated: train, or train,validation for a final fit once "
                        "every choice is made (its validation figures are then in-sample); never test")
    t.add_argument("--epochs", type=int, default=d.epochs, help="passes over the training pairs")
    t.add_argument("--seed", type=int, default=d.seed, help="seed of the generator and the initial weights")
    t.add_argument("--members", type=int, default=d.members,
                   help="networks of an ensemble whose probabilities are averaged, member K trained with seed + K")
    t.add_argument("--kind-weight", type=float, default=d.kind_weight,
                   help="weight rare kinds of request: class weights (count / mean count) ** -W on the dialogue and "
                        "action types (0: none)")
    t.add_argument("--hidden", type=int, default=d.hidden, help="GRU units per direction of each network")
    t.add_argument("--dim", type=int, default=d.dim, help="word and character n-gram features per word, each")
    t.add_argument("--encoder-weight", type=float, default=d.encoder_weight,
                   help="also fine-tune the pretrained sentence encoder (all-MiniLM-L6-v2, the 'assist' extra) on "
                        "member 0's pairs and mix its kind probabilities in at this weight (0: none; the packaged "
                        "parser: 0.5, about half an hour more on one thread)")
    t.add_argument("--encoder-tag-weight", type=float, default=d.encoder_tag_weight,
                   help="the encoder's share of the slot tags (default: --encoder-weight; the packaged parser: 1.0)")
    t.add_argument("--encoder-epochs", type=int, default=d.encoder_epochs, help="the encoder's passes over its pairs")
    t.add_argument("--encoder-members", type=int, default=d.encoder_members,
                   help="encoders fine-tuned (encoder K with seed + K) and averaged (the packaged parser: 3)")
    t.add_argument("--threads", type=int, default=d.threads, help="CPU threads for training")
    q = sub.add_parser("parse", help="parse messages into action dictionaries (no world)",
                       description="Parse messages, one per line (a file, or stdin), into action dictionaries: one "
                                   "JSON object per line on stdout, line for line (an empty line: NOOP). No world, "
                                   "no checks before the parser: what evaluating a parser on a data set needs.")
    q.add_argument("file", nargs="?", default="-", help="a text file of messages, one per line ('-' or none: stdin)")
    q.add_argument("--parser", dest="parse_with", default=None, metavar="DIR",
                   help="a parser artifact (default: the packaged one)")
    q.add_argument("--batch", type=int, default=256, help="messages parsed together")
    c = sub.add_parser("calibrate", help="fit the judge's threshold for free-form commands, saved with the artifact",
                       description="Carry out the hand-written dev commands in fresh 'play' worlds, score their frames "
                                   "against their own and other commands' text with the artifact's MineCLIP reward, "
                                   "and save the F1-best threshold with the artifact (judge.json, section commands): "
                                   "what the chat's judge reads its score against.")
    c.add_argument("--model", dest="calibrate_model", required=True, metavar="ARTIFACT", help="an exported artifact")
    c.add_argument("--worlds", type=int, default=8, help="worlds the dev commands are carried out in")
    return p


def _parse(a: argparse.Namespace) -> int:
    from tqdm import tqdm

    from .parser.infer import load_parser

    parser = load_parser(a.parse_with)
    source = sys.stdin if a.file == "-" else open(a.file, encoding="utf-8")  # noqa: SIM115 (stdin is not ours to close)
    t0, n = time.perf_counter(), 0
    try:
        lines = [line.rstrip("\r\n") for line in source]
    finally:
        if source is not sys.stdin:
            source.close()
    with tqdm(total=len(lines), desc="parse", unit="msg", file=sys.stderr, disable=None) as bar:
        for i in range(0, len(lines), a.batch):
            for parse in parser.parse_many(lines[i:i + a.batch]):
                sys.stdout.write(json.dumps(parse.action_dict) + "\n")
                n += 1
            bar.update(min(a.batch, len(lines) - i))
    sys.stdout.flush()
    print(f"parsed {n} messages in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


def _train_parser(a: argparse.Namespace) -> int:
    from .handwritten import load_handwritten
    from .parser.metrics import format_metrics
    from .parser.train import ParserTraining, default_out, train_parser

    out = a.out or default_out()
    try:
        settings = ParserTraining(examples=a.examples, crowd_repeat=a.crowd_repeat, epochs=a.epochs, seed=a.seed,
                                  members=a.members, kind_weight=a.kind_weight, threads=a.threads,
                                  hidden=a.hidden, dim=a.dim, encoder_weight=a.encoder_weight,
                                  encoder_tag_weight=a.encoder_tag_weight, encoder_epochs=a.encoder_epochs,
                                  encoder_members=a.encoder_members,
                                  crowd_splits=tuple(x.strip() for x in a.crowd_splits.split(",") if x.strip()))
    except ValueError as e:
        print(f"mineclip assist train-parser: {e}", file=sys.stderr)
        return 2
    _, metrics = train_parser(settings, out, handwritten=load_handwritten("test"))
    print(format_metrics("generated test split", metrics["generated_test"]))
    in_sample = " (trained on: in-sample)" if "validation" in settings.crowd_splits else ""
    print(format_metrics("crowd validation split" + in_sample, metrics["crowd_validation"]))
    print(format_metrics("hand-written test set", metrics["handwritten"]))
    print(f"trained in {metrics['info']['train_seconds']} s; saved to {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    if a.action == "train-parser":
        return _train_parser(a)
    if a.action == "calibrate":
        from .benchmark import calibrate_into_artifact

        try:
            threshold, info = calibrate_into_artifact(a.calibrate_model, a.worlds, a.max_steps)
        except (FileNotFoundError, ValueError) as e:
            print(f"mineclip assist calibrate: {e}", file=sys.stderr)
            return 1
        print(f"threshold {threshold:.4g} fitted on {info['pairs']} (frames, command) pairs; saved with "
              f"{a.calibrate_model} (judge.json, commands)")
        return 0
    if a.action == "parse":
        try:
            return _parse(a)
        except (FileNotFoundError, IsADirectoryError, UnicodeDecodeError) as e:  # a missing file or parser folder
            print(f"mineclip assist parse: {e}", file=sys.stderr)
            return 1
    from .chat import ChatSettings, run_chat

    settings = ChatSettings(commands=a.command, world_seed=a.world_seed, model=a.model,
                            judge_threshold=a.judge_threshold, parser=a.parser, max_steps=a.max_steps, json=a.json,
                            record=a.record, video=a.video, view=a.view)
    try:
        return run_chat(settings)
    except KeyboardInterrupt:
        return 0
    except (FileNotFoundError, ValueError) as e:  # a missing artifact or parser, an unusable world seed
        print(f"mineclip assist: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
