"""Negative prompts: what a task's prompt is scored against when it becomes a reward or a judgement.

The reward is the softmax probability of the prompt among itself and its negatives (MineDojo
paper, sec. 4.2), so the negatives decide what "more like the prompt" means. One policy, by name,
for the reward library's users, `mineclip eval`, `mineclip rl` and the pipeline:

    suite           the suite's other task prompts (the paper's choice: other task descriptions)
    distinct        those, minus special cases of the prompt ("chop a tree near water" for
                    "chop a tree"), which an agent solving the task satisfies as well
    scene           the suite's other task prompts and the narrator's event-free captions
                    ("a cow nearby", "water in the distance", "just walking around"): they take the
                    probability of windows that show a task's scene without its action
    distinct+scene  both
    PATH            a text file with one prompt per line

The reward library itself (`mineclip.reward`) imports none of this: it takes the list it is given.
"""

from __future__ import annotations

from pathlib import Path

from mineclip.evaluate.suite import read_prompts

from .registry import all_prompts
from .scenes import scene_captions

POLICIES = ("suite", "distinct", "scene", "distinct+scene")


def scene_prompts() -> list[str]:
    """The narrator's event-free captions that are no task's prompt (the `scene` policy's additions)."""
    prompts = set(all_prompts())
    return [c for c in scene_captions() if c not in prompts]


def is_policy(policy: str) -> bool:
    """Whether `policy` names a policy or an existing prompt file."""
    return policy in POLICIES or Path(policy).is_file()


def negative_pool(policy: str = "suite") -> list[str]:
    """Every prompt a policy may use as a negative (each task's own prompt is removed later)."""
    if policy not in POLICIES:
        if not Path(policy).is_file():
            raise ValueError(f"negatives must be one of {POLICIES} or a file with one prompt per line, "
                             f"got {policy!r} (no such file)")
        return read_prompts(policy)
    pool = list(dict.fromkeys(all_prompts()))
    return pool + scene_prompts() if policy.endswith("scene") else pool


def negatives_for(prompt: str, policy: str = "suite") -> list[str]:
    """The negatives of one prompt under a policy (see the module docstring)."""
    distinct = policy.startswith("distinct")
    return [p for p in negative_pool(policy) if p != prompt and not (distinct and prompt in p)]


def describe(policy: str) -> str:
    """One line on what a policy scores against, for reports and logs."""
    pool = negative_pool(policy)
    if policy not in POLICIES:
        return f"negatives from {policy} ({len(pool)} prompts)"
    scene = len(scene_prompts()) if policy.endswith("scene") else 0
    text = f"negatives: the task suite's other prompts ({len(pool) - scene} prompts)"
    if policy.startswith("distinct"):
        text += " without special cases of the task's own"
    if scene:
        text += f" and the narrator's {scene} event-free captions (--negatives {policy})"
    return text
