"""MP5's context tasks: the agent declares done; the episode is judged on the state it declares in."""

from mineclip.play.agents import ScriptedAgent
from mineclip.tasks import get_task
from mineclip.tasks.env import DECLARE_DONE, CrafterTaskEnv


def play(task_id: str, declare_after: int | None, steps: int = 40):
    env = CrafterTaskEnv(task_id)
    env.reset(seed=1_000_000)
    agent = ScriptedAgent(get_task(task_id).solution)
    agent.reset(env)
    for t in range(steps):
        action = DECLARE_DONE if declare_after is not None and t >= declare_after else agent.act(env)
        if declare_after is None and agent.done:
            action = 0
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return env, terminated, truncated, info


def test_context_tasks_do_not_end_on_success_and_have_a_done_action():
    env, terminated, truncated, info = play("find_a_cow", None, steps=64)
    assert env.action_space.n == DECLARE_DONE + 1 and not terminated and truncated
    assert info["held"] and not info["success"] and not info["declared"]  # MP5 failure mode: never declared


def test_declaring_done_judges_the_state_at_that_step():
    _, terminated, _, info = play("find_a_cow", 0)  # declared at once, the cow still far: failure mode one
    assert terminated and info["declared"] and not info["success"]
    env = CrafterTaskEnv("find_a_cow")
    env.reset(seed=1_000_000)
    agent = ScriptedAgent(get_task("find_a_cow").solution)
    agent.reset(env)
    while not agent.done:
        env.step(agent.act(env))
    _, _, terminated, _, info = env.step(DECLARE_DONE)
    assert terminated and info["success"] and info["declared"]


def test_other_tasks_keep_seventeen_actions_and_recording_can_switch_declaring_off():
    assert CrafterTaskEnv("harvest_wood").action_space.n == DECLARE_DONE
    assert CrafterTaskEnv("find_cow_day", declare_done=False).action_space.n == DECLARE_DONE
