"""The assistant's memory: an SQLite database (as CraftAssist's) of named places, things seen and
where, the inventory, the chat history, the task history, a triple store for tags and feedback, the
objects the agent built (connected blocks it placed, with their shape and a name when given) and what
the conversation referred to last (what "it" means).

Positions are world tiles (x, y). `observe` files what one world state shows; queries answer the
dialogue manager (`GET_MEMORY`) and the interpreter (named places, things seen out of view).
"""

from __future__ import annotations

import json
import sqlite3

from mineclip.sim.state import CREATURES, WorldState

REMEMBERED = ("tree", "water", "stone", "coal", "iron", "diamond", "lava", "sand", "table", "furnace", "plant",
              "path") + CREATURES  # kinds worth remembering (grass is everywhere)

SCHEMA = """
CREATE TABLE IF NOT EXISTS places (name TEXT PRIMARY KEY, x INTEGER, y INTEGER, step INTEGER);
CREATE TABLE IF NOT EXISTS objects (kind TEXT, x INTEGER, y INTEGER, last_seen INTEGER, PRIMARY KEY (kind, x, y));
CREATE TABLE IF NOT EXISTS inventory (item TEXT PRIMARY KEY, count INTEGER);
CREATE TABLE IF NOT EXISTS chats (id INTEGER PRIMARY KEY, step INTEGER, speaker TEXT, text TEXT);
CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, turn INTEGER, label TEXT, action TEXT, status TEXT,
                    start_step INTEGER, end_step INTEGER, effects TEXT);
CREATE TABLE IF NOT EXISTS triples (subj TEXT, pred TEXT, obj TEXT);
CREATE TABLE IF NOT EXISTS built (id INTEGER PRIMARY KEY, name TEXT, shape TEXT, block TEXT, tiles TEXT,
                    task_id INTEGER, step INTEGER);
CREATE TABLE IF NOT EXISTS referents (id INTEGER PRIMARY KEY, turn INTEGER, kind TEXT, x INTEGER, y INTEGER,
                    built_id INTEGER);
"""
BUILT_SHAPES = ("block", "row", "wall", "bridge", "tunnel", "structure")


def shape_of_tiles(tiles) -> str:
    """The shape of connected tiles as people call it in this flat world: one tile a block, a line side
    by side (left to right) a row, a line top to bottom a wall (as `BUILD` makes them), else a structure."""
    tiles = sorted({tuple(t) for t in tiles})
    if len(tiles) == 1:
        return "block"
    if len({y for _, y in tiles}) == 1:
        return "row"
    if len({x for x, _ in tiles}) == 1:
        return "wall"
    return "structure"


def _touch(a, b) -> bool:
    return any(abs(x - u) + abs(y - v) <= 1 for x, y in a for u, v in b)


class Memory:
    """An SQLite memory (in RAM by default; a file path keeps it, and opening it again resumes it)."""

    def __init__(self, path: str = ":memory:"):
        # one session at a time uses its memory, but not always from one thread (the chat page's
        # requests run in a thread pool; ChatRoom serialises them per chat)
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.db.executescript(SCHEMA)

    # -- observations --------------------------------------------------------------------------
    def observe(self, state: WorldState) -> None:
        """File what a world state shows: the things in view (creatures: only where they are now)
        and the inventory."""
        px, py = state.pos
        rows = [(k, px + dx, py + dy, state.step) for k, offsets in state.view.items() if k in REMEMBERED
                for dx, dy in offsets]
        with self.db:
            for kind in CREATURES:  # creatures move: forget where they were
                self.db.execute("DELETE FROM objects WHERE kind = ?", (kind,))
            if state.view:  # a tile in view that shows something else now (mined, placed) is forgotten
                xs = [px + dx for offsets in state.view.values() for dx, _ in offsets]
                ys = [py + dy for offsets in state.view.values() for _, dy in offsets]
                self.db.execute("DELETE FROM objects WHERE x BETWEEN ? AND ? AND y BETWEEN ? AND ?",
                                (min(xs), max(xs), min(ys), max(ys)))
            self.db.executemany("INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?)", rows)
            self.db.execute("DELETE FROM inventory")
            self.db.executemany("INSERT INTO inventory VALUES (?, ?)", list(state.inventory.items()))

    def seen(self, kind: str) -> list[tuple[int, int]]:
        """Positions where a kind was last seen."""
        return [(x, y) for x, y in self.db.execute("SELECT x, y FROM objects WHERE kind = ?", (kind,))]

    def nearest(self, kind: str, pos: tuple[int, int]) -> tuple[int, int] | None:
        """The remembered position of a kind nearest `pos`, or None."""
        row = self.db.execute("SELECT x, y FROM objects WHERE kind = ? ORDER BY abs(x - ?) + abs(y - ?) LIMIT 1",
                              (kind, pos[0], pos[1])).fetchone()
        return (row[0], row[1]) if row else None

    def inventory(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT item, count FROM inventory"))

    # -- places ------------------------------------------------------------------------------------
    def name_place(self, name: str, pos: tuple[int, int], step: int) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO places VALUES (?, ?, ?, ?)", (name, pos[0], pos[1], step))
            self.db.execute("INSERT INTO triples VALUES (?, 'has_name', ?)", (f"place:{pos[0]},{pos[1]}", name))

    def place(self, name: str) -> tuple[int, int] | None:
        row = self.db.execute("SELECT x, y FROM places WHERE name = ?", (name,)).fetchone()
        return (row[0], row[1]) if row else None

    def places(self) -> dict[str, tuple[int, int]]:
        return {n: (x, y) for n, x, y in self.db.execute("SELECT name, x, y FROM places ORDER BY name")}

    # -- chats, tasks, tags --------------------------------------------------------------------------
    def log_chat(self, speaker: str, text: str, step: int) -> None:
        with self.db:
            self.db.execute("INSERT INTO chats (step, speaker, text) VALUES (?, ?, ?)", (step, speaker, text))

    def chats(self) -> list[tuple[str, str]]:
        return [(s, t) for s, t in self.db.execute("SELECT speaker, text FROM chats ORDER BY id")]

    def add_task(self, turn: int, label: str, action: dict, step: int) -> int:
        with self.db:
            cur = self.db.execute("INSERT INTO tasks (turn, label, action, status, start_step) VALUES (?, ?, ?, ?, ?)",
                                  (turn, label, json.dumps(action), "running", step))
        return int(cur.lastrowid)

    def end_task(self, task_id: int, status: str, step: int, effects: dict | None = None) -> None:
        with self.db:
            self.db.execute("UPDATE tasks SET status = ?, end_step = ?, effects = ? WHERE id = ?",
                            (status, step, json.dumps(effects or {}), task_id))

    def tasks(self) -> list[dict]:
        """The task history, oldest first."""
        rows = self.db.execute("SELECT id, turn, label, action, status, start_step, end_step, effects FROM tasks "
                               "ORDER BY id")
        return [{"id": i, "turn": t, "label": lb, "action": json.loads(a), "status": s, "start_step": s0,
                 "end_step": s1, "effects": json.loads(e) if e else {}} for i, t, lb, a, s, s0, s1, e in rows]

    def tag(self, subj: str, pred: str, obj: str) -> None:
        with self.db:
            self.db.execute("INSERT INTO triples VALUES (?, ?, ?)", (subj, pred, obj))

    def triples(self, subj: str | None = None) -> list[tuple[str, str, str]]:
        q = "SELECT subj, pred, obj FROM triples" + (" WHERE subj = ?" if subj else "") + " ORDER BY rowid"
        return [tuple(r) for r in self.db.execute(q, (subj,) if subj else ())]

    # -- objects the agent built ---------------------------------------------------------------------
    def add_built(self, tiles, block: str, task_id: int, step: int, shape: str | None = None) -> int:
        """File blocks the agent placed (or a tunnel it dug: `shape`) as one object, merged with the
        objects of the same block they touch; its id. The shape is the tiles' (`shape_of_tiles`) unless
        given (a bridge, a tunnel)."""
        tiles = {tuple(int(v) for v in t) for t in tiles}
        merged, name, kept_shape = set(tiles), None, shape
        with self.db:
            for obj in self.built():
                if obj["block"] == block and _touch(obj["tiles"], tiles):
                    merged |= set(obj["tiles"])
                    name = name or obj["name"]
                    kept_shape = kept_shape or (obj["shape"] if obj["shape"] in ("bridge", "tunnel") else None)
                    self.db.execute("DELETE FROM built WHERE id = ?", (obj["id"],))
            cur = self.db.execute("INSERT INTO built (name, shape, block, tiles, task_id, step) VALUES (?, ?, ?, ?, ?, ?)",
                                  (name, kept_shape or shape_of_tiles(merged), block,
                                   json.dumps(sorted(merged)), task_id, step))
        return int(cur.lastrowid)

    def built(self) -> list[dict]:
        """The objects the agent built, oldest first: id, name, shape, block, tiles, task_id, step."""
        rows = self.db.execute("SELECT id, name, shape, block, tiles, task_id, step FROM built ORDER BY step, id")
        return [{"id": i, "name": n, "shape": sh, "block": b, "tiles": [tuple(t) for t in json.loads(ts)],
                 "task_id": t, "step": st} for i, n, sh, b, ts, t, st in rows]

    def built_object(self, object_id: int) -> dict | None:
        return next((o for o in self.built() if o["id"] == object_id), None)

    def built_named(self, name: str) -> dict | None:
        return next((o for o in self.built() if o["name"] == name), None)

    def name_built(self, object_id: int, name: str) -> None:
        with self.db:
            self.db.execute("UPDATE built SET name = NULL WHERE name = ?", (name,))
            self.db.execute("UPDATE built SET name = ? WHERE id = ?", (name, object_id))
            self.db.execute("INSERT INTO triples VALUES (?, 'has_name', ?)", (f"built:{object_id}", name))

    def prune_built(self, still) -> None:
        """Forget the tiles of built objects that `still(tile, block)` says are gone (mined back,
        destroyed), and the objects with none left."""
        with self.db:
            for obj in self.built():
                left = [t for t in obj["tiles"] if still(t, obj["block"])]
                if not left:
                    self.db.execute("DELETE FROM built WHERE id = ?", (obj["id"],))
                elif len(left) < len(obj["tiles"]):
                    self.db.execute("UPDATE built SET tiles = ? WHERE id = ?", (json.dumps(sorted(left)), obj["id"]))

    # -- what "it" means -------------------------------------------------------------------------------
    def note_referent(self, turn: int, kind: str | None, pos: tuple[int, int] | None,
                      built_id: int | None = None) -> None:
        """What a message referred to (a kind, a tile, a built object), for the next 'it'."""
        with self.db:
            self.db.execute("INSERT INTO referents (turn, kind, x, y, built_id) VALUES (?, ?, ?, ?, ?)",
                            (turn, kind, pos[0] if pos else None, pos[1] if pos else None, built_id))

    def last_referent(self) -> dict | None:
        row = self.db.execute("SELECT turn, kind, x, y, built_id FROM referents ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        t, k, x, y, b = row
        return {"turn": t, "kind": k, "pos": (x, y) if x is not None else None, "built_id": b}

    # -- the whole memory, for checks that nothing changed ---------------------------------------------
    def snapshot(self, include_chats: bool = False) -> dict:
        """Every table's rows (the chat log only when asked)."""
        tables = ["places", "objects", "inventory", "tasks", "triples", "built", "referents"] + (["chats"] if include_chats else [])
        return {t: sorted(self.db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}

    def close(self) -> None:
        self.db.close()
