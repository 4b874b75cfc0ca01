"""Answers to questions (GET_MEMORY) and what naming and feedback (PUT_MEMORY) do: from the memory,
the agent's state, and what the learned model sees."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import lexicon as lx
from .tokens import span_text

if TYPE_CHECKING:
    from .executor import Executor
    from .judge import CommandJudge

ITEMS_SHOWN = ("sapling", "wood", "stone", "coal", "iron", "diamond", "wood_pickaxe", "stone_pickaxe",
               "iron_pickaxe", "wood_sword", "stone_sword", "iron_sword")


def _where(dx: int, dy: int) -> str:
    parts = []
    if dx:
        parts.append(f"{abs(dx)} {'left' if dx < 0 else 'right'}")
    if dy:
        parts.append(f"{abs(dy)} {'up' if dy < 0 else 'down'}")
    return " and ".join(parts) + " from me" if parts else "right here"


def _count_phrase(n: int, thing: str) -> str:
    name = lx.display(thing)
    return f"{n} {name}" if n != 1 else f"a {name}"


def answer_question(filters: dict, words: list[str], ex: Executor, judge: CommandJudge | None,
                    current: str | None) -> str:
    """The reply to a GET_MEMORY dictionary."""
    kind = filters["memory_type"]
    if kind == "OTHER":
        return ("I can't answer that from what I know in this world. I can tell you what I have, what I see, where "
                "things and named places are, what I'm doing and how I feel.")
    ref = filters.get("reference_object", {}).get("has_name")
    text = span_text(words, ref) if ref else ""
    inv = ex.state.inventory
    if kind == "INVENTORY":
        if text:
            words_ = [lx.singular(w) for w in text.split()]
            tool = next((t for t, names in lx.TOOL_WORDS.items() if any(w in names for w in words_)), None)
            if tool and not any(w in names for names in lx.TOOL_MATERIALS.values() for w in words_):
                have = {t: inv[t] for t in inv if t.endswith(tool) and inv[t]}
                return f"I have {', '.join(_count_phrase(n, t) for t, n in have.items())}." if have else \
                    f"I have no {tool}."
            item = lx.tool_of(text) if tool else lx.item_of(text)
            if item is None:
                return f"I don't know what '{text}' is, so I have none."
            return f"I have {inv.get(item, 0)} {lx.display(item)}."
        held = [_count_phrase(inv[i], i) for i in ITEMS_SHOWN if inv.get(i, 0)]
        return "I'm carrying " + ", ".join(held) + "." if held else "My inventory is empty."
    if kind == "SCENE":
        seen = [f"{k} x{len(v)}" for k, v in sorted(ex.state.view.items(), key=lambda kv: -len(kv[1]))
                if k not in ("grass", "player") and v]
        reply = "In view: " + (", ".join(seen) if seen else "just grass") + "."
        if judge is not None:
            frames = ex.frames_between(max(ex.frame_base, ex.frame_index - 64), ex.frame_index)
            top = judge.describe_view(frames)
            reply += " The model says: " + "; ".join(f"'{c}' ({p:.2f})" for c, p in top) + "."
        else:
            reply += " (No model loaded: pass --model ARTIFACT for what the model sees.)"
        return reply
    if kind == "PLACE":
        if not text:
            return f"I'm at {ex.pos}, facing {_facing_word(ex.facing)}."
        named = ex.memory.place(text)
        built = ex.memory.built_named(text)
        if named is None and built is not None:
            named = min(built["tiles"], key=lambda p: abs(p[0] - ex.pos[0]) + abs(p[1] - ex.pos[1]))
            return f"{text.capitalize()} (the {built['shape']} I built) is {_where(named[0] - ex.pos[0], named[1] - ex.pos[1])}."
        if named is not None:
            return f"{text.capitalize()} is {_where(named[0] - ex.pos[0], named[1] - ex.pos[1])}."
        what = lx.kind_of(text)
        if what is None:
            return f"I don't know a place or thing called '{text}'."
        pos = ex.memory.nearest(what, ex.pos)
        if pos is None:
            return f"I haven't seen any {lx.display(what)} yet."
        return f"The nearest {lx.display(what)} I've seen is {_where(pos[0] - ex.pos[0], pos[1] - ex.pos[1])}."
    if kind == "TASK":
        if current:
            return f"I'm working on: {current}."
        done = [t for t in ex.memory.tasks() if t["status"] != "running"]
        return f"Nothing right now. Last: '{done[-1]['label']}' ({done[-1]['status']})." if done else \
            "Nothing yet: give me a command."
    s = ex.state
    return (f"Health {inv.get('health')}/9, food {inv.get('food')}/9, drink {inv.get('drink')}/9, energy "
            f"{inv.get('energy')}/9; it is {s.time_of_day}" + (", and I'm asleep." if s.sleeping else "."))


def _facing_word(f: tuple[int, int]) -> str:
    return {(-1, 0): "left", (1, 0): "right", (0, -1): "up", (0, 1): "down"}.get(tuple(f), str(f))


def remember(upsert: dict, words: list[str], ex: Executor) -> str:
    """Do what a PUT_MEMORY dictionary says (name this spot; feedback on the last task); the reply."""
    if upsert["memory_type"] == "NAME":
        if "has_name" not in upsert:
            return "Call it what? Say, for example, 'call this spot home'."
        name = span_text(words, upsert["has_name"])
        if "reference_object" in upsert:
            ref = upsert["reference_object"]
            thing = span_text(words, ref["has_name"])
            if ref.get("built_by_agent") or ref.get("coref"):  # something the agent built can be named
                from .intent import Intent, Refusal, resolve_place

                target = resolve_place(words, ref, ex, Intent("MOVE"))
                if isinstance(target, Refusal):
                    return target.reply
                if getattr(target, "built_id", None) is not None:
                    if ex.memory.place(name) is not None or lx.kind_of(name) not in (None, "path"):
                        return f"'{name}' is already the name of a place or a kind of thing; pick another name."
                    obj = ex.memory.built_object(target.built_id)
                    ex.memory.name_built(obj["id"], name)
                    return (f"OK, the {obj['shape']} I built ({len(obj['tiles'])} {lx.display(obj['block'])} "
                            f"tile{'s' if len(obj['tiles']) != 1 else ''}) is now '{name}'.")
            return (f"I can only name the spot I'm standing on or something I built, not the {thing}: take me there "
                    f"and say 'call this spot {name}'.")
        if lx.kind_of(name) is not None and lx.kind_of(name) not in ("path",):
            return f"'{name}' is already the name of a kind of thing; pick another name for this spot."
        ex.memory.name_place(name, ex.pos, ex.total_steps)
        return f"OK, this spot {ex.pos} is now '{name}'."
    history = [t for t in ex.memory.tasks() if t["status"] != "running"]
    if not history:
        return "Thanks, but I haven't done anything yet."
    last = history[-1]
    ex.memory.tag(f"task:{last['id']}", "has_feedback", upsert["has_feedback"])
    if upsert["has_feedback"] == "POSITIVE":
        return f"Thanks! Noted for '{last['label']}'."
    return f"Sorry about '{last['label']}'. Noted; say 'undo' to revert it, or tell me what you meant."
