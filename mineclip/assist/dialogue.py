"""The dialogue manager (CraftAssist, sec. 4): check a message, parse it, route it by dialogue type,
and keep clarifications on a dialogue stack until they are answered."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .answers import answer_question, remember
from .checks import EXAMPLES, known_share, refuse
from .intent import Clarify, Intent, Refusal, interpret
from .schema import check
from .tokens import tokenize

if TYPE_CHECKING:
    from .executor import Executor
    from .judge import CommandJudge
    from .parser.infer import LoadedParser

YES = {"yes", "yeah", "yep", "sure", "ok", "okay", "please", "y", "go", "explore", "do", "alright", "fine"}
NO = {"no", "nope", "nah", "n", "cancel", "don't", "dont", "never", "stop", "forget"}
CHOICE_WORDS = {"left": "to the left", "west": "to the left", "right": "to the right", "east": "to the right",
                "ahead": "ahead", "front": "ahead", "forward": "ahead", "straight": "ahead", "above": "above",
                "up": "above", "top": "above", "north": "above", "below": "below", "down": "below",
                "bottom": "below", "south": "below"}
ANY = {"either", "any", "whichever", "whatever", "nearest", "closest", "first", "one", "1"}
SECOND = {"second", "other", "2", "two"}
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
    parse_ms: float = 0.0
    problems: list[str] = field(default_factory=list)


@dataclass
class Pending:
    """A clarification waiting for its answer (on the dialogue stack)."""

    question: Clarify
    action_dict: dict

    def resolve(self, words: list[str]) -> Intent | bool | None:
        """The intent an answer completes, False for no, None when it is no answer to this question."""
        c = self.question
        if not c.options:
            if set(words) & NO:
                return False
            return c.intent if set(words) & YES else None
        labels = list(c.options)
        chosen = [CHOICE_WORDS[w] for w in words if w in CHOICE_WORDS and CHOICE_WORDS[w] in c.options]
        if chosen:
            label = chosen[0]
        elif set(words) & SECOND and len(labels) > 1:
            label = labels[1]
        elif set(words) & ANY:
            label = labels[0]
        elif set(words) & NO:
            return False
        else:
            return None
        slot = c.slot
        target = replace(getattr(c.intent, slot), pos=c.options[label])
        return replace(c.intent, **{slot: target})


class DialogueManager:
    """Checks, parses and routes messages; answers questions; turns commands into intents."""

    def __init__(self, parser: LoadedParser, executor: Executor, judge: CommandJudge | None = None):
        self.parser, self.ex, self.judge = parser, executor, judge
        self.stack: list[Pending] = []
        self.vocabulary = set(parser.network.config.vocab)

    def handle(self, text: str, current: str | None = None) -> Handled:
        """Handle one message (`current`: what the agent is working on, for questions about it)."""
        refusal = refuse(text)
        if refusal:
            return Handled(refusal)
        words = tokenize(text)
        if self.stack:
            pending = self.stack[-1]
            answer = pending.resolve(words)
            if answer is False:
                self.stack.pop()
                return Handled("OK, I won't.", "CLARIFICATION", pending.action_dict, answered=True)
            if isinstance(answer, Intent):
                self.stack.pop()
                return Handled("", "CLARIFICATION", pending.action_dict, intent=answer)
        t0 = time.perf_counter()
        parse = self.parser.parse(text)
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
        self.stack.clear()  # a new request replaces an unanswered question
        if kind == "GET_MEMORY":
            reply = answer_question(d["filters"], words, self.ex, self.judge, current)
            return Handled(reply, kind, d, answered=True, parse_ms=ms)
        if kind == "PUT_MEMORY":
            return Handled(remember(d["upsert"], words, self.ex), kind, d, answered=True, parse_ms=ms)
        result = interpret(d, words, self.ex)
        if isinstance(result, Intent) and result.action == "RESUME":
            return Handled(f"Carrying on: {current or self.ex.stack[0].label}.", kind, d, answered=True, resume=True,
                           parse_ms=ms)
        if isinstance(result, Intent) and result.action == "STOP":
            cancelled = self.ex.cancel_all()
            return Handled(f"Stopped: cancelled {', '.join(repr(t.label) for t in cancelled[-1:])}.", kind, d,
                           answered=True, parse_ms=ms)
        if isinstance(result, Refusal):
            return Handled(result.reply, kind, d, parse_ms=ms)
        if isinstance(result, Clarify):
            self.stack.append(Pending(result, d))
            return Handled(result.question, kind, d, clarification=result.question, parse_ms=ms)
        return Handled("", kind, d, intent=result, parse_ms=ms)

