"""MCU pre-task dependency graphs over crafter's atom tasks.

A node is an atom task named like crafter's achievements: `collect_wood`, `make_wood_pickaxe`,
`place_table`, `defeat_zombie`, `eat_cow`, `wake_up`, plus `find_<kind>` (a search: walking until a
material or creature is next to you, never obtaining it), `hit_<creature>`, `sleep`, `survive` and
`obtain_food`. Each node lists its pre-tasks with a mode: `and` (all of them first) or `or` (any one
of them; MCU's green arrows), e.g. `obtain_food: {or: [eat_cow, eat_plant]}`. The roots are the
atoms the task itself asks for (MCU: the highest nodes in topological order). In YAML (a task's
`pre_tasks:` field):

    pre_tasks:
      roots: [make_wood_pickaxe]
      graph:
        make_wood_pickaxe: {and: [collect_wood, place_table]}
        place_table: {and: [collect_wood]}
        collect_wood: {and: [find_tree]}

A task without an explicit graph gets one derived from its success criterion (creative tasks: from
their plan), expanded through crafter's recipes (`crafter/data.yaml`: make, place, collect). The
union of two graphs (MCU's rule for molecule tasks) keeps every node and edge; a node that is `and`
in one graph and `or` in the other cannot be merged. `prune` removes what the initial conditions
already provide (held items, blocks and creatures placed in the world, the spawn's surroundings).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from mineclip.sim.vocab import ACHIEVEMENTS, COLLECT, CREATURE_ACHIEVEMENT, MAKE, PLACE, SOURCES, VITALS

MODES = ("and", "or")
ALWAYS_PRESENT = frozenset({"find_grass"})  # crafter spawns the player on grass


class GraphError(ValueError):
    """A malformed pre-task graph, or two graphs that cannot be merged."""


@dataclass(frozen=True)
class PreTaskGraph:
    """Atom -> (mode, pre-tasks): a DAG whose roots are what the task asks for."""

    nodes: dict  # str -> tuple[str, tuple[str, ...]]
    roots: tuple = ()  # the task's own atoms, never pruned

    def __post_init__(self):
        object.__setattr__(self, "roots", tuple(sorted(set(self.roots))))
        # leaves are implied (as pre-tasks or roots): one graph, one representation
        object.__setattr__(self, "nodes", {n: (m, tuple(p)) for n, (m, p) in sorted(self.nodes.items()) if p})
        for node, (mode, pre) in self.nodes.items():
            if mode not in MODES:
                raise GraphError(f"pre-task {node!r}: expected mode in {MODES}, got {mode!r}")
            if node in pre:
                raise GraphError(f"pre-task {node!r} lists itself")
        self.order()  # a cycle is an error

    @property
    def children(self) -> set[str]:
        return {c for _, pre in self.nodes.values() for c in pre}

    @property
    def vertices(self) -> set[str]:
        return set(self.nodes) | self.children | set(self.roots)

    def edges(self) -> set[tuple[str, str]]:
        """(pre-task, atom) pairs."""
        return {(c, n) for n, (_, pre) in self.nodes.items() for c in pre}

    def size(self) -> int:
        """MCU's planning complexity heuristic: E + V."""
        return len(self.edges()) + len(self.vertices)

    def mode(self, node: str) -> str:
        return self.nodes.get(node, ("and", ()))[0]

    def pre(self, node: str) -> tuple[str, ...]:
        return self.nodes.get(node, ("and", ()))[1]

    def order(self) -> list[str]:
        """Kahn's topological order, pre-tasks first (MCU's dependency resolution)."""
        indegree = {v: 0 for v in self.vertices}
        for n, (_, pre) in self.nodes.items():
            indegree[n] = len(set(pre))
        ready = sorted(v for v, d in indegree.items() if d == 0)
        needed_by: dict[str, list[str]] = {}
        for c, n in self.edges():
            needed_by.setdefault(c, []).append(n)
        out = []
        while ready:
            v = ready.pop(0)
            out.append(v)
            for n in sorted(needed_by.get(v, [])):
                indegree[n] -= 1
                if indegree[n] == 0:
                    ready.append(n)
        if len(out) != len(indegree):
            stuck = sorted(v for v, d in indegree.items() if d > 0)
            raise GraphError(f"pre-task graph has a cycle through {stuck}")
        return out

    def union(self, other: "PreTaskGraph") -> "PreTaskGraph":
        """Both graphs' atoms and edges (MCU: a molecule's pre-tasks are the union of its atoms')."""
        nodes = dict(self.nodes)
        for n, (mode, pre) in other.nodes.items():
            if n in nodes and pre and nodes[n][1]:
                if nodes[n][0] != mode:
                    raise GraphError(f"cannot merge pre-task graphs: {n!r} needs {nodes[n][0].upper()} of "
                                     f"{list(nodes[n][1])} in one and {mode.upper()} of {list(pre)} in the other")
                nodes[n] = (mode, tuple(dict.fromkeys(nodes[n][1] + pre)))
            elif n not in nodes or not nodes[n][1]:
                nodes[n] = (mode, tuple(pre))
        return PreTaskGraph(nodes, self.roots + other.roots)

    def prune(self, present: Iterable[str]) -> "PreTaskGraph":
        """Remove what is already there (never a root); an OR atom with one alternative present is done."""
        present = set(present) | ALWAYS_PRESENT
        roots = self.roots
        keep: dict[str, tuple[str, tuple[str, ...]]] = {}
        stack = list(roots)
        while stack:
            n = stack.pop()
            if n in keep:
                continue
            mode, pre = self.nodes.get(n, ("and", ()))
            if mode == "or" and any(c in present for c in pre):
                pre = ()
            pre = tuple(c for c in pre if c not in present or c in roots)
            keep[n] = (mode, pre)
            stack.extend(pre)
        return PreTaskGraph(keep, roots)

    def to_dict(self) -> dict:
        """The YAML form: {roots: [...], graph: {atom: {mode: [pre-tasks]}}} (atoms with pre-tasks)."""
        return {"roots": list(self.roots),
                "graph": {n: {mode: list(pre)} for n, (mode, pre) in sorted(self.nodes.items()) if pre}}

    @classmethod
    def from_dict(cls, d: dict, where: str = "pre_tasks") -> "PreTaskGraph":
        """Parse the YAML form; errors name `where`."""
        if not isinstance(d, dict) or set(d) - {"roots", "graph"} or not d.get("roots"):
            raise GraphError(f"{where}: expected {{roots: [atoms], graph: {{atom: {{and|or: [pre-tasks]}}}}}}, got {d!r}")
        roots, graph = d["roots"], d.get("graph") or {}
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise GraphError(f"{where}: expected roots: a list of atom names, got {roots!r}")
        if not isinstance(graph, dict):
            raise GraphError(f"{where}: expected graph: a mapping of atom -> {{and|or: [pre-tasks]}}, got {graph!r}")
        nodes = {}
        for n, spec in graph.items():
            if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in MODES:
                raise GraphError(f"{where}: atom {n!r} needs exactly one of and/or with a list, got {spec!r}")
            mode, pre = next(iter(spec.items()))
            if not isinstance(pre, list) or not all(isinstance(p, str) for p in pre):
                raise GraphError(f"{where}: atom {n!r}: expected a list of atom names, got {pre!r}")
            nodes[str(n)] = (mode, tuple(pre))
        try:
            return cls(nodes, tuple(roots))
        except GraphError as e:
            raise GraphError(f"{where}: {e}") from None


# -- crafter's atoms and their recipes ------------------------------------------------------------

def producer(item: str) -> str | None:
    """The atom that puts an item into the inventory (None for health)."""
    if item in SOURCES:
        return f"collect_{item}"
    if item in MAKE:
        return f"make_{item}"
    return {"food": "obtain_food", "energy": "sleep"}.get(item)


def requirements(atom: str) -> tuple[str, list[str]]:
    """(mode, pre-tasks) of one atom from crafter's recipes; unknown atoms are leaves."""
    kind, _, what = atom.partition("_")
    if atom == "obtain_food":
        return "or", ["eat_cow", "eat_plant"]
    if kind == "collect" and what in SOURCES:
        material = SOURCES[what]
        return "and", [f"find_{material}"] + [producer(t) for t in COLLECT[material]["require"]]
    if kind in ("make", "place"):
        recipe = (MAKE if kind == "make" else PLACE).get(what)
        if recipe is not None:
            uses = [producer(u) for u in recipe["uses"]]
            return "and", [u for u in uses if u] + [f"place_{u}" for u in recipe.get("nearby", [])]
    if atom in CREATURE_ACHIEVEMENT.values():
        return "and", [f"find_{next(k for k, v in CREATURE_ACHIEVEMENT.items() if v == atom)}"]
    if kind == "hit":
        return "and", [f"find_{what}"]
    if atom == "eat_plant":
        return "and", ["find_plant"]
    if atom == "wake_up":
        return "and", ["sleep"]
    return "and", []


def expand(atoms: Iterable[str], base: PreTaskGraph | None = None) -> PreTaskGraph:
    """The recipe closure of some atoms (added to `base`, whose own atoms keep their pre-tasks)."""
    nodes = dict(base.nodes) if base else {}
    stack = list(atoms) + [c for _, pre in nodes.values() for c in pre] + list(base.roots if base else ())
    while stack:
        a = stack.pop()
        if a in nodes:
            continue
        mode, pre = requirements(a)
        nodes[a] = (mode, tuple(pre))
        stack.extend(pre)
    return PreTaskGraph(nodes, tuple(base.roots if base else ()) + tuple(atoms))


def criterion_atoms(success: dict) -> tuple[list[str], dict]:
    """The atoms a success criterion asks for (roots), plus OR nodes made for its `any:` lists."""
    roots: list[str] = []
    extra: dict[str, tuple[str, tuple[str, ...]]] = {}

    def add(a):
        if a and a not in roots:
            roots.append(a)

    for key, arg in success.items():
        if key in ("all", "any"):
            branches = []
            for sub in arg:
                r, e = criterion_atoms(sub)
                extra.update(e)
                if len(r) > 1 and key == "any":
                    name = f"all({'+'.join(sorted(r))})"
                    extra[name] = ("and", tuple(r))
                    r = [name]
                branches.append(r)
            if key == "all":
                for r in branches:
                    for a in r:
                        add(a)
            else:
                alts = tuple(dict.fromkeys(a for r in branches for a in r))
                if len(alts) == 1:
                    add(alts[0])
                elif alts:
                    name = f"any({'|'.join(sorted(alts))})"
                    extra[name] = ("or", alts)
                    add(name)
        elif key == "achieve":
            for a in arg:
                add(a)
        elif key in ("gain", "have"):
            for item in arg:
                add(producer(item))
        elif key == "event":
            for e in arg:
                add(producer(e[5:]) if e.startswith("gain_") else e if e.startswith("hit_") or e in ACHIEVEMENTS else None)
        elif key in ("in_view", "view_fraction", "near"):
            for k in arg:
                add(f"find_{k}")
        elif key == "facing":
            add(f"find_{arg}")
        elif key == "sleeping" and arg:
            add("sleep")
        elif key == "survive":
            add("survive")
    return roots, extra


def solution_atoms(solution: list) -> list[str]:
    """The atoms a scripted plan works through (for tasks without a criterion: creative ones)."""
    out: list[str] = []
    for step in solution:
        name, arg = (step, None) if isinstance(step, str) else next(iter(step.items()))
        item = "plant" if arg == "sapling" else arg
        atoms = {
            "obtain": [producer(str(arg))], "goto": [f"find_{arg}"], "fight": [CREATURE_ACHIEVEMENT.get(str(arg))],
            "hit": [f"hit_{arg}"], "drink": ["collect_drink"], "eat_plant": ["eat_plant"],
            "place": [f"place_{item}"], "place_row": [f"place_{item}"], "tunnel": ["collect_stone"],
            "bridge": ["find_water", "place_stone"], "sleep": ["sleep"], "sleep_until_awake": ["wake_up"],
            "survive": ["survive"],
        }.get(name, [])
        out += [a for a in atoms if a and a not in out]
    return out


def derive(success: dict | None, solution: list | None = None) -> PreTaskGraph:
    """A task's graph from its success criterion (else its plan), expanded through the recipes."""
    if success:
        roots, extra = criterion_atoms(success)
    else:
        roots, extra = solution_atoms(solution or []), {}
    return expand(roots, PreTaskGraph(extra))


def task_graph(task) -> PreTaskGraph:
    """A task's pre-task graph before pruning: its `pre_tasks` field, else derived."""
    if task.pre_tasks:
        return PreTaskGraph.from_dict(task.pre_tasks, where=f"task {task.id}")
    return derive(task.success, task.solution)


def present_at_init(init: dict) -> set[str]:
    """Atoms the initial conditions already provide: held items, placed blocks and creatures, the
    spawn's surroundings."""
    present = set()
    for item, n in (init.get("inventory") or {}).items():
        if n > 0 and item not in VITALS and producer(item):
            present.add(producer(item))
    for entry in init.get("place") or []:
        what = entry["what"]
        present.add(f"find_{what}")
        if what in ("table", "furnace"):
            present.add(f"place_{what}")
    spawn = init.get("spawn") or {}
    present |= {f"find_{k}" for k in (spawn.get("near") or {})}
    if spawn.get("floor"):
        present.add(f"find_{spawn['floor']}")
    return present


def planning_graph(task) -> PreTaskGraph:
    """The graph MCU's planning complexity counts: the task's, minus what the initialisation provides."""
    return task_graph(task).prune(present_at_init(task.init))
