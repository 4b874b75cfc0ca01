"""A task of the suite as a gymnasium environment (registered as `mineclip/<task_id>-v0`, see
`mineclip.tasks.registration`)."""

from __future__ import annotations

from mineclip.sim.env import CrafterEnv
from mineclip.sim.state import WorldState

from .registry import get_task
from .spec import TaskSpec, compile_criterion

class CrafterTaskEnv(CrafterEnv):
    """One task on crafter: the simulator with the task's initial conditions, success criterion and
    rewards. Obs uint8 [160, 256, 3], 17 discrete actions.

    reward: the task's hand-written dense reward (`dense_reward=True`, when it has one), else 1 at
    the step the success criterion first holds. The episode ends on success
    (`terminate_on_success`), on death, or after `max_steps` (truncated). `info["success"]` and
    `info["is_success"]` (stable-baselines3's name, read by `EvalCallback` and `VecMonitor`) are the
    criterion so far (programmatic tasks); `judge()` labels a finished episode, by the criterion or
    by a creative task's oracle.
    """

    def __init__(self, task: TaskSpec | str | None = None, *, max_steps: int | None = None,
                 dense_reward: bool = True, terminate_on_success: bool = True, **kwargs):
        if isinstance(task, str):
            task = get_task(task)
        self.task = task
        self.dense_reward = dense_reward
        self.terminate_on_success = terminate_on_success
        self._criterion = compile_criterion(task.success) if task is not None and task.success else None
        self._success = False
        self._nav_best: float | None = None
        super().__init__(dict(task.init) if task else None,
                         max_steps=max_steps or (task.max_steps if task else 100), **kwargs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._success, self._nav_best = False, None
        return super().reset(seed=seed, options=options)

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
        newly = False
        if self._criterion is not None and not self._success and self._criterion(self.context):
            self._success = newly = True
        return self._reward(state, events, newly), self._success and self.terminate_on_success

    def _info(self, events: list[str], state: WorldState) -> dict:
        info = super()._info(events, state)
        if self._criterion is not None:
            info["success"] = info["is_success"] = self._success  # is_success: what SB3's callbacks read
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
