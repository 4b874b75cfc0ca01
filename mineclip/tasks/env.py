"""A task of the suite as a gymnasium environment (registered as `mineclip/<task_id>-v0`, see
`mineclip.tasks.registration`)."""

from __future__ import annotations

import gymnasium as gym

from mineclip.sim.env import CrafterEnv
from mineclip.sim.state import WorldState
from mineclip.sim.view import DEFAULT_VIEW, actions, check_view

from .registry import get_task
from .spec import TaskSpec, compile_criterion

def declare_done_action(view: str = DEFAULT_VIEW) -> int:
    """The extra action of declare-done tasks, "I am done" (MP5's end of task): the one after the view's actions."""
    return len(actions(view))


DECLARE_DONE = declare_done_action()  # of the default view (17: both views have 17 actions)
DECLARE_TAG = "mp5-context"  # tasks whose agent declares done by default


class CrafterTaskEnv(CrafterEnv):
    """One task on crafter: the simulator with the task's initial conditions, success criterion and
    rewards. Obs uint8 [160, 256, 3], 17 discrete actions.

    `view` (`mineclip.sim.view.VIEWS`, default `top`): the picture and controls (`CrafterEnv`); what
    is in view (`state.view`: oracles, see-events) follows it.

    reward: the task's hand-written dense reward (`dense_reward=True`, when it has one), else 1 at
    the step the success criterion first holds. The episode ends on success
    (`terminate_on_success`), on death, or after `max_steps` (truncated). `info["success"]` and
    `info["is_success"]` (stable-baselines3's name, read by `EvalCallback` and `VecMonitor`) are the
    criterion so far (programmatic tasks); `judge()` labels a finished episode, by the criterion or
    by a creative task's oracle.

    `declare_done` (default: on for MP5's context tasks, tagged `mp5-context`): the agent ends the
    episode itself with one more action, `declare_done_action(view)` (17 in both views; 18 actions in
    all, `self.done_action`). The episode does not
    end on success; it is judged on the state when done is declared (`info["declared"]`), and
    `info["held"]` says whether the criterion held at any step so far, which tells MP5's two failure
    modes apart: declared while a condition was false (`declared` and not `success`), never declared
    although all held (truncated with `held`).
    """

    def __init__(self, task: TaskSpec | str | None = None, *, max_steps: int | None = None,
                 dense_reward: bool = True, terminate_on_success: bool = True,
                 declare_done: bool | None = None, view: str = DEFAULT_VIEW, **kwargs):
        check_view(view)  # before any other work: an unknown view is the error to report
        if isinstance(task, str):
            task = get_task(task)
        self.task = task
        self.dense_reward = dense_reward
        if declare_done is None:
            declare_done = task is not None and DECLARE_TAG in task.tags and task.kind == "programmatic"
        self.declare_done = bool(declare_done)
        self.terminate_on_success = terminate_on_success and not self.declare_done
        self._declared = self._held = False
        self._criterion = compile_criterion(task.success) if task is not None and task.success else None
        self._success = False
        self._nav_best: float | None = None
        super().__init__(dict(task.init) if task else None,
                         max_steps=max_steps or (task.max_steps if task else 100), view=view, **kwargs)
        self.done_action = declare_done_action(self.view)
        if self.declare_done:
            self.action_space = gym.spaces.Discrete(self.done_action + 1)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._success, self._nav_best = False, None
        self._declared = self._held = False
        return super().reset(seed=seed, options=options)

    def step(self, action):
        if not (self.declare_done and int(action) == self.done_action):
            return super().step(action)
        if self.context is None:
            raise RuntimeError("call reset() before step()")
        state = self.context.state  # judged on the state the agent declares done in
        self._declared = True
        self._success = bool(self._criterion(self.context)) if self._criterion is not None else False
        self._held = self._held or self._success
        reward = self._reward(state, [], self._success)
        return self._frame, reward, True, False, self._info(["declare_done"], state)

    def judge(self) -> bool:
        """The label of the episode so far: the success criterion, or the creative task's oracle.

        Oracles are for labelling recorded play only; agents never see them."""
        if self._criterion is not None:
            return self._success
        if self.task is not None and self.task.oracle:
            from .oracles import judge

            return judge(self.task.oracle, self.context, self.world)
        return False

    def _outcome(self, state: WorldState, events: list[str]) -> tuple[float, bool]:
        if self.declare_done:  # success only when declared; remember whether it ever held
            self._held = self._held or (self._criterion is not None and self._criterion(self.context))
            return 0.0, False
        newly = False
        if self._criterion is not None and not self._success and self._criterion(self.context):
            self._success = newly = True
        return self._reward(state, events, newly), self._success and self.terminate_on_success

    def _info(self, events: list[str], state: WorldState) -> dict:
        info = super()._info(events, state)
        if self._criterion is not None:
            info["success"] = info["is_success"] = self._success  # is_success: what SB3's callbacks read
        if self.declare_done:
            info["declared"], info["held"] = self._declared, self._held
        return info

    def _reward(self, state: WorldState, events: list[str], newly_succeeded: bool) -> float:
        spec = (self.task.reward if self.task else None) or {}
        if not self.dense_reward or not spec:
            return 1.0 if newly_succeeded else 0.0
        reward = 0.0
        kind = spec.get("navigate")
        if kind:
            d = state.distance(kind)
            if d != float("inf"):
                if self._nav_best is not None:
                    reward += 10.0 * max(self._nav_best - d, 0.0)
                self._nav_best = d if self._nav_best is None else min(self._nav_best, d)
        hit = spec.get("hit")
        if hit and f"hit_{hit}" in events:
            reward += float(spec.get("hit_bonus", 5.0))
        if newly_succeeded:
            reward += float(spec.get("success", 200.0))
        return reward


def make_env(task: TaskSpec | str, **kwargs) -> CrafterTaskEnv:
    """The gymnasium environment of a registered crafter task (see CrafterTaskEnv for the options)."""
    return CrafterTaskEnv(task, **kwargs)
