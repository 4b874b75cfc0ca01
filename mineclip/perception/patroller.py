"""MP5's active perception: a Patroller that asks a perceiver about the conditions not yet
confirmed, moves when one is missing, and declares done itself when all hold.

The Performer is the scripted agent of `mineclip.play.agents` running the task's plan (its
sub-objectives: approach the target, `goto`). When the plan is done (the target is reached), each
round the Patroller asks the perceiver about every condition not yet confirmed on the current
ego-view frame; `yes` confirms it (until the agent moves), `no` sends the agent on a detour toward
the missing thing (a few steps of `goto` toward it, or a walk when none is known) and back to the
target, `unsure` waits a round (at most `patience` rounds, then it counts as missing). How near a
thing is (`near`, `facing`) is the agent's local sense of the tiles around it (MP5's 3x3x3 voxels),
the same for every perceiver; what is in view, the time and the light are perceived.

Perceivers: `ground_truth` (the simulator's state: the upper bound), `active` (the learned
Percipient, condition by condition) and `one_shot` (the learned model, the whole description once).

In first person (`patrol(..., view="first_person")`) the Performer walks and turns with the
first-person controls, the frames asked about are the player's eyes, and the ground truth is what
that frame shows (`WorldState.view`, the renderer's `in_view`): a cow behind the player is not seen
until the player turns round. How near things are stays the agent's local sense in both views.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass

from mineclip.play.agents import NOOP, ScriptedAgent
from mineclip.sim.view import DEFAULT_VIEW, turn
from mineclip.tasks.env import CrafterTaskEnv

from .conditions import Condition, conditions_of
from .percipient import Percipient

PERCEIVERS = ("ground_truth", "active", "one_shot")
VIEW_ASPECTS = ("creature", "terrain", "object")
DETOUR_STEPS = 4


class GroundTruthPerceiver:
    """Answers from the simulator's state: what a perfect Percipient would say."""

    name = "ground_truth"

    def answer(self, env, frame, pending: list[Condition], conditions: list[Condition]) -> dict[Condition, str]:
        return {c: "yes" if c.seen(env.state) else "no" for c in pending}

    def locate(self, env, frame, facing) -> tuple[dict[str, list[tuple[int, int]]], set[tuple[int, int]]]:
        """(kind -> the tiles the frame shows it on, as (ahead, right) of the player; every tile the
        frame shows): read from what the frame shows (`WorldState.view`: in first person the
        renderer's `in_view`, from above the window), as `answer` reads it."""
        state = env.state
        f, (rx, ry) = state.facing, turn(state.facing, "right")
        where = {k: [(dx * f[0] + dy * f[1], dx * rx + dy * ry) for dx, dy in offs] for k, offs in state.view.items()}
        return where, {t for tiles in where.values() for t in tiles}


class ActivePerceiver:
    """The learned Percipient asked about each pending condition on the current frame."""

    name = "active"

    def __init__(self, percipient: Percipient):
        self.percipient = percipient

    def answer(self, env, frame, pending, conditions):
        return {a.condition: a.decision for a in self.percipient.perceive(frame, pending)}

    def locate(self, env, frame, facing) -> tuple[dict[str, list[tuple[int, int]]], set[tuple[int, int]] | None]:
        """Where the Percipient's head sees each kind it knows on `frame` (`head_locate`); nothing
        without a head. Reads the frame (and the player's facing, to place a top-down window's tiles)."""
        return head_locate(self.percipient, frame, facing)


class OneShotPerceiver:
    """The learned model asked once about the whole description: one answer for every condition."""

    name = "one_shot"

    def __init__(self, percipient: Percipient):
        self.percipient = percipient

    def answer(self, env, frame, pending, conditions):
        decision = self.percipient.perceive_whole(frame, conditions).decision
        return dict.fromkeys(pending, decision)


def make_perceiver(name: str, percipient: Percipient | None = None):
    """A perceiver by name (`active` and `one_shot` need a Percipient)."""
    if name == "ground_truth":
        return GroundTruthPerceiver()
    if name not in PERCEIVERS:
        raise ValueError(f"expected a perceiver in {PERCEIVERS}, got {name!r}")
    if percipient is None:
        raise ValueError(f"the {name} perceiver needs a Percipient (a learned model and its thresholds)")
    return ActivePerceiver(percipient) if name == "active" else OneShotPerceiver(percipient)


@dataclass
class Outcome:
    """One episode of the Patroller: MP5's success and its two failure modes."""

    task: str
    perceiver: str
    world_seed: int
    success: bool  # declared done while every condition held
    declared: bool
    false_done: bool  # failure mode 1: declared done while a condition was false
    missed: bool  # failure mode 2: never declared although all conditions held at some step
    steps: int
    questions: int  # conditions asked about, summed over rounds
    agent: str = "patroller"  # who played: the Patroller (map-reading Performer) or the Seeker
    placement: str = "scene"  # where the task's scene was placed (`mineclip.tasks.placement`)
    found_at: int | None = None  # the Seeker: the step its perceiver first confirmed the target

    def to_dict(self) -> dict:
        return asdict(self)


def head_locate(percipient: Percipient, frame, facing) -> tuple[dict[str, list[tuple[int, int]]], set | None]:
    """(kind -> tiles (ahead, right) where the head's patches see it, the tiles the view shows) from
    the head's per-patch P on one frame (empty without a head): the patches with P >= `head.LOCATE_P`,
    placed by `head.place_patches`."""
    from .head import LOCATE_P, frame_tokens, place_patches
    from .percipient import as_frames

    head = percipient.head
    if head is None or not head.kinds:
        return {}, None
    p = head.tile_probs(frame_tokens(percipient.rm, as_frames(frame)[-1:]))[0].numpy()  # [16 * 9, K], x-major
    return place_patches(p >= LOCATE_P, head.kinds, head.view, facing)


def _detour(performer: ScriptedAgent, env, kind: str) -> Iterator[int]:
    """A few steps toward the nearest `kind` (or a walk when there is none near)."""
    steps = performer._goto(kind, budget=DETOUR_STEPS) if performer._targets(kind) else performer._explore(DETOUR_STEPS)
    for i, action in enumerate(steps):
        if i >= DETOUR_STEPS:
            return
        yield action


def patrol(task, perceiver, world_seed: int, patience: int = 2, max_steps: int | None = None,
           init: dict | None = None, view: str = DEFAULT_VIEW) -> Outcome:
    """Play one episode of a context task with the Patroller asking `perceiver` (`init` changes the
    task's initial conditions, e.g. `{"time": "night"}`), in `view` (`mineclip.sim.view`)."""
    from mineclip.tasks.registry import get_task

    task = get_task(task) if isinstance(task, str) else task
    fitted = getattr(getattr(perceiver, "percipient", None), "view", None)
    if fitted is not None and fitted != view:
        raise ValueError(f"the {perceiver.name} perceiver's Percipient was fitted in the {fitted} view; "
                         f"this patrol is in the {view} view")
    env = CrafterTaskEnv(task, declare_done=True, max_steps=max_steps, view=view)
    frame, _ = env.reset(seed=world_seed, options={"init": init} if init else None)
    conds = conditions_of(task)
    performer = ScriptedAgent(task.solution, seed=world_seed)
    performer.reset(env)
    confirmed: set[Condition] = set()
    detour: Iterator[int] | None = None
    waited = questions = 0
    where = env.state.pos
    info: dict = {}
    for _ in range(env.max_steps):
        state = env.state
        if state.pos != where:  # what was seen from elsewhere is asked again (MP5 resets its info set)
            confirmed, where = set(), state.pos
        action = next(detour, None) if detour is not None else None
        if action is None:
            detour = None
            if not performer.done:
                action = performer.act(env)
            if performer.done:
                if not all(c.local(state) for c in conds):  # the target walked off: approach again
                    performer.reset(env)
                    action = performer.act(env)
                else:
                    pending = [c for c in conds if c not in confirmed]
                    answers = perceiver.answer(env, frame, pending, conds) if pending else {}
                    questions += len(pending)
                    confirmed |= {c for c, d in answers.items() if d == "yes"}
                    missing = [c for c in conds if c not in confirmed]
                    no = [c for c in missing if answers.get(c) == "no"]
                    waited = waited + 1 if missing and not no else 0
                    if not missing:
                        action = env.done_action
                    elif no or waited > patience:
                        waited, action = 0, NOOP
                        view = [c for c in (no or missing) if c.aspect in VIEW_ASPECTS]
                        if view:  # go and look for the missing thing, then approach the target again
                            detour = _detour(performer, env, view[0].subject)
                            performer.reset(env)
                            action = next(detour, NOOP)
                    else:
                        action = NOOP
        frame, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    declared = bool(info.get("declared"))
    success = bool(info.get("success"))
    return Outcome(task.id, perceiver.name, world_seed, success, declared, declared and not success,
                   not declared and bool(info.get("held")), int(env.state.step), questions)
