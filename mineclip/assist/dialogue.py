"""The dialogue manager (CraftAssist, sec. 4): check a message, parse it, route it by dialogue type,
and keep the requests waiting for an answer on a dialogue stack (`Interpreter` objects), paused
until the answer resumes them; a new request is pushed above them, 'undo' withdraws the one on top,
'resume' asks its question again, and 'stop' is passed to the session, which stops the newest of
the waiting request and the running commands ('stop everything': all of them)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .answers import answer_question, remember
from .checks import EXAMPLES, known_share, refuse
from .intent import Clarify, Intent, Refusal, confirm_question, interpret
from .references import resolve as resolve_references
from .schema import check
from .tokens import tokenize

if TYPE_CHECKING:
    from .executor import Executor
    from .judge import CommandJudge
    from .parser.infer import LoadedParser

YES = {"yes", "yeah", "yep", "sure", "ok", "okay", "please", "y", "go", "explore", "do", "alright", "fine", "correct",
       "right"}
NO = {"no", "nope", "nah", "n", "cancel", "don't", "dont", "never", "stop", "forget", "wrong", "not"}
CHOICE_WORDS = {"left": "on your left", "right": "on your right", "ahead": "in front of you",
                "front": "in front of you", "forward": "in front of you", "straight": "in front of you",
                "behind": "behind you", "back": "behind you"}
ANY = {"either", "any", "whichever", "whatever", "nearest", "closest", "first", "1"}
SECOND = {"second", "other", "2", "two"}
ALL = {"everything", "all", "every"}
MIN_KNOWN = 0.5  # a message with fewer known words than this is not understood (nonsense, other languages)


@dataclass
class Handled:
    """What the manager made of a message: a reply, and an intent to carry out when it is a command."""

    reply: str
    dialogue_type: str | None = None  # None: refused before parsing
    action_dict: dict | None = None
    intent: Intent | None = None
    clarification: str | None = None
    answered: bool = False  # a question answered or the memory updated
    resume: bool = False  # carry on with the tasks on the stack
    stop: str | None = None  # "top": stop the command on top of the stack; "all": every command
    note: str = ""  # said after the reply (a question still waiting on the dialogue stack)
    parse_ms: float = 0.0
    problems: list[str] = field(default_factory=list)


@dataclass
class Interpreter:
    """A dialogue object on the dialogue stack (CraftAssist's): one request whose interpretation is
    paused by a clarifying question and resumed by the answer. The question is a yes/no ('should I
    explore?'), a confirmation of a reference ('do you mean the tree on your left?', which a 'no' moves
    on to the next candidate), or a choice the answer names ('the right one')."""

    text: str
    action_dict: dict
    turn: int
    question: Clarify

    def resolve(self, words: list[str]) -> Intent | Clarify | bool | None:
        """The intent an answer completes, the next question (a 'no' to one candidate of several), False
        for no, None when it is no answer to this question."""
        c = self.question
        said = set(words)
        if not c.options:
            if said & NO:
                return False
            return c.intent if said & YES else None
        labels = list(c.options)
        chosen = [CHOICE_WORDS[w] for w in words if w in CHOICE_WORDS and CHOICE_WORDS[w] in c.options]
        if chosen:
            label = chosen[0]
        elif said & SECOND and len(labels) > 1:
            label = labels[1]
        elif said & NO:
            if c.confirm and len(labels) > 1:  # not that one: the next
                rest = {k: v for k, v in c.options.items() if k != labels[0]}
                nxt = confirm_question(c.intent.target.kind if c.slot == "target" else "one", c.intent, rest, c.slot)
                if len(rest) == 1:
                    nxt = replace(nxt, question=f"Then the {_kind_name(c)} {labels[1]}?")
                return nxt
            return False
        elif said & (YES | ANY):
            label = labels[0]
        else:
            return None
        slot = c.slot
        target = replace(getattr(c.intent, slot), pos=c.options[label], side=label)
        return replace(c.intent, **{slot: target})


def _answer_like(words: list[str]) -> bool:
    """Whether a message reads as an answer ('yes', 'no, the right one', 'either') rather than a new
    request ('how much wood do you have', 'stop everything'), which is pushed above the question."""
    if not words or set(words) & ALL:
        return False
    return (len(words) <= 2 or words[0] in (YES - {"go", "do", "right"}) | NO | ANY | SECOND
            or any(w in CHOICE_WORDS for w in words))


def _kind_name(c: Clarify) -> str:
    from .lexicon import display

    t = getattr(c.intent, c.slot)
    return display(t.kind) if getattr(t, "kind", None) else "one"


class DialogueManager:
    """Checks, parses (with the rule-based references, `references.py`) and routes messages; answers
    questions; turns commands into intents. Requests waiting for an answer stay on the dialogue stack;
    a new request is pushed above them, and when it is dealt with the question below is asked again."""

    def __init__(self, parser: LoadedParser, executor: Executor, judge: CommandJudge | None = None):
        self.parser, self.ex, self.judge = parser, executor, judge
        self.stack: list[Interpreter] = []
        self.vocabulary = parser.vocabulary

    def _waiting(self) -> str:
        """A reminder of the question still waiting on the dialogue stack, or ''."""
        if not self.stack:
            return ""
        top = self.stack[-1]
        return f" (Still waiting about '{top.text}': {top.question.question})"

    def handle(self, text: str, current: str | None = None, turn: int = 0) -> Handled:
        """Handle one message (`current`: what the agent is working on, for questions about it; `turn`:
        the message's number in the chat)."""
        refusal = refuse(text)
        if refusal:
            return Handled(refusal)
        words = tokenize(text)
        if self.stack and _answer_like(words):  # the top dialogue object gets an answer first
            top = self.stack[-1]
            answer = top.resolve(words)
            if answer is False:
                self.stack.pop()
                return Handled("OK, I won't.", "CLARIFICATION", top.action_dict, answered=True, note=self._waiting())
            if isinstance(answer, Clarify):
                top.question = answer
                return Handled(answer.question, "CLARIFICATION", top.action_dict, clarification=answer.question)
            if isinstance(answer, Intent):
                self.stack.pop()
                return Handled("", "CLARIFICATION", top.action_dict, intent=answer, note=self._waiting())
        t0 = time.perf_counter()
        parse = resolve_references(self.parser, text)
        ms = (time.perf_counter() - t0) * 1000
        d = parse.action_dict
        if check(d, len(words)):  # the parser validates; a dictionary is never used unchecked
            return Handled("I couldn't make sense of that.", "NOOP", {"dialogue_type": "NOOP"}, parse_ms=ms)
        kind = d["dialogue_type"]
        if known_share(words, self.vocabulary) < MIN_KNOWN:  # nonsense or another language: never acted on
            foreign = any(not c.isascii() and c.isalpha() for c in text)
            reply = f"I only understand English, sorry. Try {EXAMPLES}." if foreign else \
                f"I didn't understand that. I understand English commands like {EXAMPLES}."
            return Handled(reply, kind, d, parse_ms=ms, problems=parse.problems)
        if kind == "NOOP":
            if self.stack:
                return Handled(f"Sorry, I didn't get that. {self.stack[-1].question.question}", kind, d,
                               clarification=self.stack[-1].question.question, parse_ms=ms, problems=parse.problems)
            return Handled(f"I'm your assistant in this world. Ask me things like {EXAMPLES}.", kind, d, parse_ms=ms,
                           problems=parse.problems)
        if kind == "GET_MEMORY":
            reply = answer_question(d["filters"], words, self.ex, self.judge, current)
            return Handled(reply, kind, d, answered=True, parse_ms=ms, note=self._waiting())
        if kind == "PUT_MEMORY":
            return Handled(remember(d["upsert"], words, self.ex), kind, d, answered=True, parse_ms=ms,
                           note=self._waiting())
        action = d["action"]["action_type"]
        if action == "STOP":
            return Handled("", kind, d, answered=True, parse_ms=ms, stop="all" if set(words) & ALL else "top")
        if action == "RESUME" and self.stack:
            top = self.stack[-1]
            reply = f"Back to '{top.text}': {top.question.question}"
            return Handled(reply, kind, d, clarification=top.question.question, answered=True,
                           resume=bool(self.ex.stack), parse_ms=ms)
        if action == "UNDO" and self.stack and self._newer_than_last_task(self.stack[-1]):
            top = self.stack.pop()  # undo the request not yet acted on
            return Handled(f"OK, forget '{top.text}' (I had asked: {top.question.question})", kind, d,
                           answered=True, parse_ms=ms, note=self._waiting())
        result = interpret(d, words, self.ex)
        if isinstance(result, Intent) and result.action == "RESUME":
            return Handled(f"Carrying on: {current or self.ex.stack[0].label}.", kind, d, answered=True, resume=True,
                           parse_ms=ms)
        if isinstance(result, Refusal):
            return Handled(result.reply, kind, d, parse_ms=ms, note=self._waiting())
        if isinstance(result, Clarify):  # pushed above any request still waiting
            self.stack.append(Interpreter(" ".join(words), d, turn, result))
            return Handled(result.question, kind, d, clarification=result.question, parse_ms=ms)
        return Handled("", kind, d, intent=result, parse_ms=ms, note=self._waiting())

    def _newer_than_last_task(self, top: Interpreter) -> bool:
        tasks = self.ex.memory.tasks()
        return not tasks or tasks[-1]["turn"] < top.turn
