"""The crafter task suite as the judge asks for it (`mineclip.evaluate.suite.TaskSuite`): task
prompts from the registry, negatives by policy (`mineclip.tasks.negatives`), and MCU's difficulty
bands (`mineclip.tasks.difficulty`). `mineclip eval`, the pipeline and the labelling app judge
with `SUITE` by default; the judge itself imports nothing of the suite."""

from __future__ import annotations

from . import difficulty, negatives
from .registry import get_task


class CrafterSuite:
    """The bundled suite (and $MINECLIP_TASKS_PATH's additions) for the judge."""

    policies = negatives.POLICIES

    def prompt(self, task_id: str) -> str:
        return get_task(task_id).prompt

    def negative_pool(self, policy: str) -> tuple[list[str], str]:
        return negatives.negative_pool(policy), negatives.describe(policy)

    def difficulty(self):
        scores = difficulty.load_scores()
        if not scores:
            return None
        return difficulty.BANDS, difficulty.SCORES, scores, difficulty.bands(None, scores)


SUITE = CrafterSuite()
