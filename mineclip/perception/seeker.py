"""An agent that finds things by looking: the Seeker sees only its view, remembers what its perceiver
confirmed, and walks to it from memory. Made for the first-person view (MP5's agent sees what a
player sees); it runs from above too.

**What it reads** (`Observation`, built by `observe` outside the agent): the frame, the inventory
(and crafter's record of its achievements), and its own pose: where it is relative to where the episode started and which way it faces (the
compass and odometry MineDojo gives its agents: it knows how it moved, not what is around). Each step
the episode's runner asks the perceiver about the frame (`look`): the answers about the task's
conditions (`yes`, `no`, `unsure`) and where in the view it sees things (`Sight`: tiles ahead and to
the right). The Seeker never holds the environment, the world or its maps: `Seeker.act(obs, sight)`
is all of its decision, and `tests/perception/test_perception_seeker.py` runs it with the world's
maps replaced by objects that raise.

**Perceivers** are the Patroller's (`patroller.make_perceiver`), each with `answer` and `locate`:
`ground_truth` answers from what the frame shows (`Condition.seen` on `WorldState.view`, in first
person the renderer's `in_view`) and locates every tile and creature the frame shows at least one
pixel of: the upper bound, a perfect eye. `active` is the learned Percipient: its answers, and where
its head's patches see each kind it knows (`head.place_patches`: in first person a patch's column
is a bearing and its bottom edge a distance by the renderer's projection, a thing that stands up
placed by the lowest patch that sees it, where it meets the ground; so places are rough, and above
the horizon it sees a kind but not how far, and does not place it).

**What it remembers** (`Memory`, the agent's own map in the coordinates of its odometry, its start at
(0, 0)): per tile, the last kind it saw there and when; which tiles it saw at all; the tiles it tried
to step on and could not. A creature is remembered where it was last seen, and forgotten when the
view shows that tile again without it. A thing the task asks about is remembered only from a frame
on which the perceiver confirmed it (`confirmed`: it answered `yes` about it). Tiles it never saw
count as free when it plans a path (optimistic: a blocked step marks the tile, and it plans
again); lava and water never do.

**The loop**: look round first (in first person three quarter turns show every way), then, while the
target (the thing the task says to be near, else its first thing) is nowhere in memory, walk a leg
of a few steps toward the least seen side and look round again. **Find ends** when the perceiver
answers `yes` for the target on the current frame (`Seeker.found_at`). Then it walks to it along a
path on its memory, to a standpoint within the task's `near` distance from which its memory says
every thing the task wants in view is in the view's cone, turns to face the target, and declares
done when the perceiver answers `yes` for every condition on that frame and its memory says the
near-by checks hold. If it does not, it turns to look (and after a full turn tries another
standpoint). The scripted map-reading agent (`mineclip.play.agents`) stays the demonstrator that
records data; it is never the measured agent here.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from mineclip.sim.view import action_id, actions, check_view, move_action, turn, turn_action
from mineclip.sim.vocab import CREATURES, WALKABLE
from mineclip.tasks.env import CrafterTaskEnv
from mineclip.tasks.placement import DEFAULT_PLACEMENT, check_placement, placement_init

from .conditions import THINGS, Condition, conditions_of
from .patroller import Outcome

FP = "first_person"
NOOP = 0
LEG = 5  # steps walked between two looks round while searching
FORGET = 40  # steps after which a remembered creature is no longer trusted (it wanders)
BLOCKED_FOR = 20  # steps a tile it could not step on stays blocked (a creature may have stood there)
NEVER = ("water", "lava", "tree", "stone", "coal", "iron", "diamond", "table", "furnace", "plant")
CONE = 12  # tiles of the view's cone a standpoint is chosen by (first person; the frame shows 16)
WINDOW = ((-8, 7), (-4, 4))  # from above: the offsets the 16x9 window shows (x, y)
MARGIN = 6  # tiles around what it knows that a path may go through


@dataclass(frozen=True)
class Observation:
    """What the Seeker reads each step: the frame, the inventory, its pose from its own odometry."""

    frame: np.ndarray
    inventory: dict
    pose: tuple[int, int]  # tiles from where the episode started (crafter's axes: x right, y down)
    facing: tuple[int, int]
    step: int
    achievements: dict = field(default_factory=dict)  # the player's own record (crafter's info), counts since reset


@dataclass
class Sight:
    """What a perceiver says about one frame: answers per condition and where things are, as tiles
    (ahead, right) of the player; `visible`: every tile the frame shows (None: not known)."""

    answers: dict = field(default_factory=dict)  # Condition -> yes / no / unsure
    where: dict = field(default_factory=dict)  # kind -> [(ahead, right), ...]
    visible: set | None = None


def observe(env, start: tuple[int, int]) -> Observation:
    """The Seeker's observation of `env` now: its frame, inventory, and pose relative to `start` (the
    player's tile at reset). Reads the player, never the world's maps."""
    player = env.player
    pos = (int(player.pos[0]) - start[0], int(player.pos[1]) - start[1])
    return Observation(np.array(env.render(), copy=True), dict(player.inventory), pos,
                       (int(player.facing[0]), int(player.facing[1])), int(env.state.step),
                       dict(player.achievements))


def look(perceiver, env, frame, conditions: list[Condition], facing) -> Sight:
    """Ask `perceiver` about every condition on `frame` and where it sees things (a perceiver without
    `locate` places nothing)."""
    answers = perceiver.answer(env, frame, [c for c in conditions if c.perceivable], conditions)
    located = perceiver.locate(env, frame, facing) if hasattr(perceiver, "locate") else ({}, None)
    return Sight(answers, *located)


def confirmed(sight: Sight) -> dict:
    """`sight.where` less the kinds a condition asks about that no answer on this frame confirms (`yes`):
    the learned eye places things on frames it is unsure of too, and there its places were wrong (its
    cows placed on frames it did not confirm had one within a tile 0-9% of the time, validation
    worlds, 2026-11-30). Kinds no condition asks about keep their places."""
    asked: dict[str, bool] = {}
    for c, answer in sight.answers.items():
        asked[c.subject] = asked.get(c.subject, False) or answer == "yes"
    return {kind: offs for kind, offs in sight.where.items() if asked.get(kind, True)}


def to_world(facing, ahead: int, right: int) -> tuple[int, int]:
    """An (ahead, right) offset as an offset on crafter's axes, for a player facing `facing`."""
    r = turn(facing, "right")
    return ahead * facing[0] + right * r[0], ahead * facing[1] + right * r[1]


def to_ego(facing, offset) -> tuple[int, int]:
    """An offset on crafter's axes as (ahead, right) of a player facing `facing`."""
    r = turn(facing, "right")
    return (int(offset[0]) * facing[0] + int(offset[1]) * facing[1],
            int(offset[0]) * r[0] + int(offset[1]) * r[1])


def _dist(a, b) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


class Memory:
    """The Seeker's map, in the coordinates of its odometry: what it saw where, and where it could
    not step. Filled only from `Sight`s (what the perceiver said about frames it received) and from
    its own moves."""

    def __init__(self):
        self.kind: dict[tuple[int, int], str] = {}  # material or thing last seen on a tile
        self.creatures: dict[str, dict[tuple[int, int], int]] = {}  # kind -> tile -> step last seen
        self.seen: dict[tuple[int, int], int] = {}  # tile -> step it was last in view
        self.blocked: dict[tuple[int, int], int] = {}  # tile -> step a step onto it failed
        self.visited: set[tuple[int, int]] = set()
        self.occupied: set[tuple[int, int]] = set()  # tiles a creature stood on in the last steps

    def update(self, obs: Observation, sight: Sight) -> None:
        pose, facing, step = obs.pose, obs.facing, obs.step
        self.visited.add(pose)
        at = {kind: {(pose[0] + dx, pose[1] + dy) for dx, dy in (to_world(facing, a, r) for a, r in offs)}
              for kind, offs in confirmed(sight).items()}
        visible = ({(pose[0] + dx, pose[1] + dy) for dx, dy in (to_world(facing, a, r) for a, r in sight.visible)}
                   if sight.visible is not None else set().union(*at.values()) if at else set())
        for tile in visible:
            self.seen[tile] = step
        for kind, tiles in self.creatures.items():  # a creature not where it was is gone from there
            for tile in [t for t in tiles if t in visible and t not in at.get(kind, ())]:
                del tiles[tile]
        for kind, tiles in at.items():
            if kind in CREATURES:
                self.creatures.setdefault(kind, {}).update(dict.fromkeys(tiles, step))
            elif kind != "arrow":
                for tile in tiles:
                    if kind != "plant" or tile not in self.kind:
                        self.kind[tile] = kind
        self.occupied = {t for tiles in self.creatures.values() for t, s in tiles.items() if step - s <= 2}

    def where(self, kind: str, step: int, within: int | None = None) -> list[tuple[int, int]]:
        """Tiles it remembers `kind` on (creatures seen in the last `within` steps, `FORGET` by default)."""
        if kind in CREATURES:
            within = FORGET if within is None else within
            return [t for t, s in self.creatures.get(kind, {}).items() if step - s <= within]
        return [t for t, k in self.kind.items() if k == kind]

    def free(self, tile, step: int, target=None) -> bool:
        """Whether it may plan a step onto `tile`: not a material it cannot enter, no creature it saw
        there lately (but `target`), no failed step lately; tiles never seen count as free."""
        if tile in self.blocked and step - self.blocked[tile] <= BLOCKED_FOR:
            return False
        if self.kind.get(tile, "grass") not in WALKABLE:
            return False
        return tile not in self.occupied


class Seeker:
    """Finds the task's things by looking and walks to them from memory (see the module). `act(obs,
    sight)` -> an action of `view`, or `done_action` to declare done."""

    name = "seeker"

    def __init__(self, conditions: list[Condition], view: str = FP, done_action: int = 17, seed: int = 0):
        self.conditions = list(conditions)
        self.view = check_view(view)
        self.done_action = done_action
        things = [c for c in self.conditions if c.aspect in THINGS]
        near = [c for c in things if any(k == "near" for k, _ in c.checks)]
        self.target: Condition | None = (near or things or [None])[0]
        self.near = min([a for k, a in self.target.checks if k == "near"] or [1]) if self.target else 0
        self.rng = np.random.RandomState(seed)
        self.reset()

    def reset(self) -> None:
        self.memory = Memory()
        self.found_at: int | None = None  # the step the perceiver first confirmed the target in view
        self.turns_left = 3 if self.view == FP else 0  # look round before anything else
        self.leg: tuple[int, int] | None = None  # where the current search leg ends
        self.walked = 0  # steps into the current leg
        self.heading: tuple[int, int] | None = None
        self.expect: tuple[int, int] | None = None  # the tile a step was meant to reach, from `_from`
        self._from: tuple[int, int] | None = None
        self.last: int | None = None
        self.looked = 0  # turns made at a standpoint without every condition confirmed
        self.avoid: set[tuple[int, int]] = set()  # standpoints tried without success
        self.stand: tuple | None = None  # the standpoint it walks to (`_standpoint`)

    # -- the decision ---------------------------------------------------------------------------
    def act(self, obs: Observation, sight: Sight) -> int:
        mem = self.memory
        if self.expect is not None and obs.pose != self.expect and obs.pose == self._from:
            mem.blocked[self.expect] = obs.step  # the step did not happen: something is there
        self.expect = None
        mem.update(obs, sight)
        answers = sight.answers
        if self.target is not None and answers.get(self.target) == "yes" and self.found_at is None:
            self.found_at = obs.step
        if self._all_hold(obs, answers):
            return self._act(obs, self.done_action)
        targets = mem.where(self.target.subject, obs.step) if self.target is not None else []
        if not targets and self.found_at is not None and answers.get(self.target) == "yes":
            # confirmed in view but not placed (a perceiver that cannot say where): it is ahead
            return self._step(obs, obs.facing)
        if not targets:
            return self._search(obs)
        return self._approach(obs, targets)

    def _all_hold(self, obs: Observation, answers: dict) -> bool:
        """Every condition a frame can show is `yes` on this frame, and memory says the near-by checks hold."""
        for c in self.conditions:
            if c.perceivable and answers.get(c) != "yes":
                return False
            for key, arg in c.checks:
                # a creature counts where this frame shows it (one remembered there may have walked off)
                tiles = self.memory.where(c.subject, obs.step, 0 if c.subject in CREATURES else None)
                if key == "near" and not any(_dist(t, obs.pose) <= arg for t in tiles):
                    return False
                if key == "facing" and (obs.pose[0] + obs.facing[0], obs.pose[1] + obs.facing[1]) not in tiles:
                    return False
        return True

    def _search(self, obs: Observation) -> int:
        """Look round, then walk a leg toward the least seen side, then look round again."""
        if self.turns_left > 0:
            self.turns_left -= 1
            return self._act(obs, action_id(self.view, "turn_right"))
        if self.leg is None:
            self.heading = self._least_seen(obs)
            self.walked, self.leg = 0, obs.pose
            for k in range(1, LEG + 1):  # as far along it as memory says one can stand
                tile = (obs.pose[0] + k * self.heading[0], obs.pose[1] + k * self.heading[1])
                if not self.memory.free(tile, obs.step):
                    break
                self.leg = tile
        move = self._path(obs, {self.leg})
        self.walked += 1
        if move is None or self.walked > 2 * LEG:  # at the leg's end (or it cannot be reached): look round
            self.leg = None
            if self.view == FP:
                self.turns_left = 2
                return self._act(obs, action_id(self.view, "turn_right"))
            return self._step(obs, self._least_seen(obs))
        return self._step(obs, move)

    def _least_seen(self, obs: Observation) -> tuple[int, int]:
        """The way whose tiles 2-10 ahead (a cone) it has seen least, not where it came from."""
        best, score = None, None
        for d in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            unseen = 0
            for a in range(2, 11):
                for r in range(-a // 2, a // 2 + 1):
                    dx, dy = to_world(d, a, r)
                    unseen += (obs.pose[0] + dx, obs.pose[1] + dy) not in self.memory.seen
            first = (obs.pose[0] + d[0], obs.pose[1] + d[1])
            s = unseen - (100 if not self.memory.free(first, obs.step) else 0) + self.rng.uniform(0, 1)
            if self.heading is not None and d == (-self.heading[0], -self.heading[1]):
                s -= 20
            if score is None or s > score:
                best, score = d, s
        return best

    def _approach(self, obs: Observation, targets: list[tuple[int, int]]) -> int:
        """Walk to a standpoint near the target (from memory), face it, and look."""
        stand = self._standpoint(obs, targets)
        kept = self.stand
        if kept is not None and kept[2] in targets and kept[0] not in self.avoid and kept[3] >= (stand or kept)[3] \
                and (kept[0] == obs.pose or self.memory.free(kept[0], obs.step)):
            stand = kept  # keep to the standpoint chosen (two equally good ones would be turned between)
        self.stand = stand
        if stand is None:  # nowhere to stand that is known free: go as near as a path allows
            return self._search(obs)
        tile, face = stand[:2]
        if obs.pose != tile:
            self.looked = 0
            move = self._path(obs, {tile})
            if move is None:
                self.avoid.add(tile)
                return self._search(obs)
            return self._step(obs, move)
        if self.view == FP and obs.facing != face and self.looked == 0:
            return self._act(obs, turn_action(self.view, obs.facing, face) or NOOP)
        # here and facing the right way, but not every condition is confirmed: look round
        self.looked += 1
        if self.looked > (4 if self.view == FP else 2):
            self.avoid.add(tile)
            self.looked = 0
        if self.view == FP:
            return self._act(obs, action_id(self.view, "turn_right"))
        return self._act(obs, NOOP)

    def _standpoint(self, obs: Observation, targets) -> tuple | None:
        """(tile, facing, target, conditions covered): the nearest free tile within `near` of a target
        (facing it) from which the view's cone holds, by memory, what most other conditions want in view."""
        others = [c for c in self.conditions if c.aspect in THINGS and c != self.target]
        best, best_key = None, None
        for t in targets:
            for dx in range(-self.near, self.near + 1):
                for dy in range(-self.near, self.near + 1):
                    tile = (t[0] + dx, t[1] + dy)
                    d = abs(dx) + abs(dy)
                    if d == 0 or d > self.near or tile in self.avoid:
                        continue
                    if tile != obs.pose and not self.memory.free(tile, obs.step):
                        continue
                    face = _toward((-dx, -dy))
                    covered = sum(self._in_cone(tile, face, c, obs.step) for c in others)
                    key = (-covered, _dist(obs.pose, tile) + (0 if face == obs.facing else 1))
                    if best_key is None or key < best_key:
                        best, best_key = (tile, face, t, covered), key
        return best

    def _in_cone(self, tile, face, c: Condition, step: int) -> bool:
        """Whether memory has `c.need` of `c.subject` in the view from `tile` facing `face`."""
        n = 0
        for t in self.memory.where(c.subject, step):
            a, r = to_ego(face, (t[0] - tile[0], t[1] - tile[1]))
            if self.view == FP:
                n += 0 < a <= CONE and abs(r) <= a
            else:
                dx, dy = t[0] - tile[0], t[1] - tile[1]
                n += WINDOW[0][0] <= dx <= WINDOW[0][1] and WINDOW[1][0] <= dy <= WINDOW[1][1]
        return n >= c.need

    def _path(self, obs: Observation, goals: set) -> tuple[int, int] | None:
        """The first grid move of a shortest path on memory from the pose to a goal tile (None: none)."""
        start = obs.pose
        if start in goals:
            return None
        known = list(self.memory.kind) + list(goals) + [start]
        xs, ys = [t[0] for t in known], [t[1] for t in known]
        box = (min(xs) - MARGIN, max(xs) + MARGIN, min(ys) - MARGIN, max(ys) + MARGIN)
        first: dict = {start: None}
        queue = deque([start])
        order = [(obs.facing)] + [d for d in ((0, 1), (1, 0), (0, -1), (-1, 0)) if d != obs.facing]
        while queue:
            cur = queue.popleft()
            for d in order:
                nxt = (cur[0] + d[0], cur[1] + d[1])
                if nxt in first or not (box[0] <= nxt[0] <= box[1] and box[2] <= nxt[1] <= box[3]):
                    continue
                if not self.memory.free(nxt, obs.step):
                    continue
                first[nxt] = d if cur == start else first[cur]
                if nxt in goals:
                    return first[nxt]
                queue.append(nxt)
        return None

    def _step(self, obs: Observation, move) -> int:
        """The action that makes progress on grid move `move` (turning first in first person)."""
        fp_back = self.view == FP and self.last == action_id(FP, "move_back")
        action, made = move_action(self.view, obs.facing, move,
                                   lambda m: self.memory.free((obs.pose[0] + m[0], obs.pose[1] + m[1]), obs.step),
                                   fp_back)
        name = _name(self.view, action)
        if name.startswith("move_"):
            way = move if name != "move_forward" else obs.facing
            self.expect, self._from = (obs.pose[0] + way[0], obs.pose[1] + way[1]), obs.pose
        return self._act(obs, action)

    def _act(self, obs: Observation, action: int) -> int:
        self.last = int(action)
        return int(action)


def _toward(offset) -> tuple[int, int]:
    """The grid direction nearest to `offset` (x first on a tie)."""
    dx, dy = offset
    if abs(dx) >= abs(dy):
        return (1 if dx > 0 else -1), 0
    return 0, (1 if dy > 0 else -1)


def _name(view: str, action: int) -> str:
    names = actions(view)
    return names[action] if 0 <= action < len(names) else "done"


def seek(task, perceiver, world_seed: int, view: str = FP, placement: str = DEFAULT_PLACEMENT,
         max_steps: int | None = None, init: dict | None = None, agent: Seeker | None = None) -> Outcome:
    """Play one episode of a context task with the Seeker and `perceiver` (`patroller.make_perceiver`),
    in `view`, with the scene placed as `placement` says (`mineclip.tasks.placement`; `init` adds to
    it). The runner reads the environment (to build the agent's `Observation` and to let the
    perceiver look); the agent reads only what it is given."""
    from mineclip.tasks.registry import get_task

    task = get_task(task) if isinstance(task, str) else task
    check_view(view)
    fitted = getattr(getattr(perceiver, "percipient", None), "view", None)
    if fitted is not None and fitted != view:
        raise ValueError(f"the {perceiver.name} perceiver's Percipient was fitted in the {fitted} view; "
                         f"this episode is in the {view} view")
    extra = {**(placement_init(task, check_placement(placement), world_seed) or {}), **(init or {})}
    env = CrafterTaskEnv(task, declare_done=True, max_steps=max_steps, view=view)
    frame, _ = env.reset(seed=world_seed, options={"init": extra} if extra else None)
    conds = conditions_of(task)
    agent = agent or Seeker(conds, view, env.done_action, seed=world_seed)
    agent.reset()
    start = (int(env.player.pos[0]), int(env.player.pos[1]))
    questions, info = 0, {}
    for _ in range(env.max_steps):
        obs = observe(env, start)
        sight = look(perceiver, env, obs.frame, conds, obs.facing)
        questions += len(sight.answers)
        action = agent.act(obs, sight)
        frame, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    declared, success = bool(info.get("declared")), bool(info.get("success"))
    return Outcome(task.id, perceiver.name, world_seed, success, declared, declared and not success,
                   not declared and bool(info.get("held")), int(env.state.step), questions,
                   agent="seeker", placement=placement, found_at=agent.found_at)

