"""Chatting with the assistant from a terminal or a script: what `mineclip assist` runs.

    run_chat(ChatSettings(commands=["chop a tree"], world_seed=1000, json=True))   # one JSON object
    run_chat(ChatSettings(world_seed=1000))                                        # interactive chat
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import TextIO

from .session import DEFAULT_STEPS, AssistSession

HELP_LINE = "Type a command or a question; /view shows the scene, /quit ends (Ctrl-D too)."


@dataclass
class ChatSettings:
    """One `mineclip assist` run: scripted messages (none: interactive), the world, the judge, output."""

    commands: list[str] = field(default_factory=list)
    world_seed: int | None = None  # None: the first 'play' world of the suite
    model: str | None = None  # an exported artifact for the judge (None: no judge)
    judge_threshold: float | None = None
    parser: str | None = None  # a parser artifact folder (None: the packaged one)
    max_steps: int = DEFAULT_STEPS
    json: bool = False
    record: str | None = None  # write each carried-out command as a labelled trajectory here
    video: str | None = None  # save the whole session as an mp4 here
    view: str = "top"  # mineclip.sim.view.VIEWS: top (crafter's) or first_person


def default_world_seed() -> int:
    """The world a chat starts in when none is given: the first 'play' world of the suite."""
    from mineclip.tasks.world_seeds import world_seeds

    return world_seeds("play", 1)[0]


def script(session: AssistSession, texts: list[str]) -> dict:
    """Send the messages in turn; the last turn's result with `world_seed` and every turn in `turns`."""
    turns = [session.send(text) for text in texts]
    return {**turns[-1], "world_seed": session.world_seed, "turns": turns}


def _print_turn(out: dict, stdout: TextIO) -> None:
    print(f"bot: {out['reply']}", file=stdout)
    if out["tasks"]:
        score = out["judge"].get("score")
        judge = out["judge"].get("skipped") if score is None else f"score {score:.3g}"
        print(f"     [{out['steps']} steps, ground truth: {out['success']}, judge: {judge}]", file=stdout)


def interactive(session: AssistSession, stdin: TextIO, stdout: TextIO) -> None:
    """Read messages line by line until /quit or end of input; print replies and the scene."""
    judge = "on" if session.judge is not None else "off (pass --model ARTIFACT)"
    print(f"crafter world {session.world_seed} ({session.view_name.replace('_', ' ')} view), empty inventory; "
          f"judge {judge}. {HELP_LINE}", file=stdout)
    print(session.view(), file=stdout)
    while True:
        print("you: ", end="", file=stdout, flush=True)
        line = stdin.readline()
        if not line:  # end of input (Ctrl-D)
            print(file=stdout)
            return
        text = line.rstrip("\n")
        if text.strip() in ("/quit", "/exit"):
            return
        if text.strip() == "/view":
            print(session.view(), file=stdout)
            continue
        out = session.send(text)
        _print_turn(out, stdout)
        if out["stack"]:  # what waits: questions and commands, newest first
            print("     [stack: " + "; ".join(f"{e['kind']} '{e['text']}'" + (f": {e['question']}" if e["kind"] == "question"
                                                 else f" ({e['status']})") for e in out["stack"]) + "]", file=stdout)
        if out["steps"]:
            print(out["view"], file=stdout)


def run_chat(s: ChatSettings, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Open a session in a fresh world and chat: the scripted messages (one JSON object with `json`,
    else the exchange as text) or interactively. Returns the exit code (0 whenever it could answer)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    seed = s.world_seed if s.world_seed is not None else default_world_seed()
    session = AssistSession(seed, s.model, parser=s.parser, record_dir=s.record, max_steps=s.max_steps,
                            judge_threshold=s.judge_threshold, video=bool(s.video), view=s.view)
    try:
        if s.commands:
            result = script(session, s.commands)
            if s.json:
                print(json.dumps(result), file=stdout)
            else:
                for text, out in zip(s.commands, result["turns"]):
                    print(f"you: {text}", file=stdout)
                    _print_turn(out, stdout)
        else:
            interactive(session, stdin, stdout)
        if s.video:
            session.save_video(s.video)
            print(f"saved the session to {s.video}", file=sys.stderr)
    finally:
        session.close()
    return 0
