"""The judge by conditions: a trajectory is scored by the soft AND of its task's conditions
(`mineclip.reward.factored`), says which condition failed, and abstains when a needed condition is
unsure; compared with the whole-prompt judge on the same labelled trajectories.

A task's conditions come from its success criterion (`conditions.conditions_of`): each condition
it can see in a frame is its narrator text against its minimal pairs; a task whose success needs
events (programmatic tasks such as "chop a tree") keeps its prompt against the policy's negatives
as one condition, and a task without a criterion (creative) its prompt alone: for those the two
judges score the same. Both judges use the paper's rule (mean step reward, the mean of two K-means
centroids per task). At the window where the combined P is highest, the condition with the lowest
P is the one reported as failed, and a condition whose P lies in its unsure band (the Percipient's
thresholds) makes the judge abstain on that trajectory. With the Percipient's trained head
(`mineclip.perception.head`), the conditions it knows take its P on each frame instead of their
words' (chance level 0 in the soft AND's chance instead of 1/N, so the judge's reward is then the
combined P itself), with a thing's `near` read from where its tiles are; its band (fitted on P of
what a frame shows) is applied to that P. Abstained trajectories can be written as a
trajectory file that `mineclip label` serves to people.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mineclip.reward.factored import FactoredRewardFunction

from .conditions import Condition, conditions_of
from .percipient import band_for, decide


JUDGES = ("whole", "factored")  # the whole-prompt judge and the judge by conditions (ConditionVerdict's fields)


@dataclass
class ConditionVerdict:
    """One trajectory under both judges."""

    id: str
    task: str
    label: int
    whole: float  # whole-prompt score (mean step reward)
    factored: float  # soft-AND score (mean step reward)
    conditions: list[str]
    at_best: list[float]  # each condition's P at the window of highest combined P
    failed: str | None = None  # the weakest condition there
    unsure: list[str] = field(default_factory=list)  # conditions in their unsure band there
    record: dict = field(default_factory=dict, repr=False)

    @property
    def abstain(self) -> bool:
        return bool(self.unsure)


def task_conditions(task_id: str, prompt: str, negatives_for: Callable[[str], list[str]]
                    ) -> list[tuple[str, str, list[str], Condition | None]]:
    """(key, text, negatives, condition) per condition of a task; the prompt alone (condition None)
    when it has no criterion."""
    from mineclip.tasks.registry import get_task

    try:
        task = get_task(task_id)
        conds = conditions_of(task) if task.success and "any" not in json.dumps(task.success) else []
    except KeyError:
        conds = []
    out = [(c.key, c.text, c.alternative_texts(), c) for c in conds if c.perceivable and c.alternative_texts()]
    if not out or any(not c.perceivable for c in conds):
        out.append(("prompt", prompt, list(negatives_for(prompt)), None))
    return out


def prompt_only(conds: list) -> bool:
    """Whether a task's conditions are its prompt alone: then both judges give it the same score."""
    return [key for key, *_ in conds] == ["prompt"]


def whole_scores(metrics_path: str | Path, model: str, labels: str, negatives: str,
                 mode: str = "direct") -> dict[str, float]:
    """Each trajectory's whole-prompt score (the mean step reward) in an evaluation's metrics.json
    (`eval.py`, the pipeline's eval stage), which must have judged `model` on `labels` under `negatives`
    with the `mode` reward."""
    metrics = json.loads(Path(metrics_path).read_text())
    st = metrics["settings"]
    same = (Path(st["model"]).resolve() == Path(model).resolve() and st["label_files"] == [str(Path(labels).resolve())]
            and st["negatives"] == negatives and st["mode"] == mode)
    if not same:
        raise ValueError(f"{metrics_path} judged {st['model']} on {st['label_files']} (negatives {st['negatives']}, "
                         f"{st['mode']} reward), not {model} on {labels} (negatives {negatives}, {mode} reward)")
    return {tid: float(score) for entry in metrics["models"][st["models"][0]].values()
            for tid, score in zip(entry["ids"], entry["rules"]["mean"]["kmeans"]["scores"])}


def conditions_reward(rm, conds: list, head=None, mode: str = "direct"):
    """The reward by a task's conditions (`task_conditions`): a `FactoredRewardFunction` in which the
    conditions the head knows take the head's P on each frame (chance level 0: a calibrated read-out
    of whether the condition holds, with no competing texts to share P with, says 0 where nothing is
    there; a thing's `near` is read from where its tiles are, since the labels say whether the whole
    criterion held), the others their text among their negatives on the window ending there (chance
    1/N). The judge's score and, streamed (`.stream(num_envs)`, the gymnasium wrappers), an RL reward."""
    return FactoredRewardFunction(rm, [(text, negs, cond) for _, text, negs, cond in conds], mode, head=head)


def task_reward(rm, task_id: str, negatives_for: Callable[[str], list[str]], head=None, mode: str = "direct"):
    """`conditions_reward` of a task of the suite, e.g. for RL on MP5's context tasks:
    `MineCLIPReward(env, reward=task_reward(rm, "find_cow_day", negatives, load_head(artifact, rm)))`."""
    from mineclip.tasks.registry import get_task

    return conditions_reward(rm, task_conditions(task_id, get_task(task_id).prompt, negatives_for), head, mode)


def score_trajectories(rm, trajectories, negatives_for, thresholds: dict | None = None, progress: bool = False,
                       head=None, known: dict[str, float] | None = None, mode: str = "direct"
                       ) -> tuple[list[ConditionVerdict], list]:
    """Both judges' scores of every trajectory (frames encoded once), and the unreadable ones: the mean
    of the `mode` step reward (`mineclip.reward.MODES`) by conditions and by the whole prompt. With a
    `head` (`mineclip.perception.head`), the conditions it knows are scored by it. `known`: whole-prompt
    scores by trajectory id (`whole_scores`, of the same `mode`), taken as both judges' scores of the
    trajectories whose task is judged by its prompt alone instead of scoring them again."""
    from tqdm import tqdm

    from mineclip.evaluate.scoring import step_rewards
    from mineclip.evaluate.trajectories import load_frames

    verdicts, problems = [], []
    for traj in tqdm(trajectories, desc="judging by conditions", disable=not progress, unit="traj"):
        conds = task_conditions(traj.task, traj.prompt, negatives_for)
        if known and traj.id in known and prompt_only(conds):
            score = known[traj.id]
            verdicts.append(ConditionVerdict(traj.id, traj.task, int(traj.label), score, score, ["prompt"], [float("nan")],
                                    "prompt", [], traj.record))
            continue
        try:
            frames = load_frames(traj)
        except Exception as e:  # noqa: BLE001 - reported, as the evaluation does
            problems.append((traj.id, str(e)))
            continue
        fn = conditions_reward(rm, conds, head, mode)
        feats = fn.encode(frames)  # the embedding, then the head's P of the conditions it knows: one pass
        whole = rm.reward_fn(traj.prompt, negatives_for(traj.prompt), mode).trajectory_from_features(
            feats[:, :rm.model.config.embed_dim])
        factored = fn.trajectory_from_features(feats)  # `mode`, at the combination's chance level
        per, prob = factored.logits, factored.prob
        best = int(np.argmax(prob[1:]) + 1) if len(prob) > 1 else 0
        at_best = [float(p) for p in per[best]]
        keys = [k for k, _, _, _ in conds]
        usable = [band_for(thresholds or {}, k, src) for k, src in zip(keys, fn.sources)]
        unsure = [k for k, p, band in zip(keys, at_best, usable) if band and decide(p, band)[0] == "unsure"]
        verdicts.append(ConditionVerdict(traj.id, traj.task, int(traj.label), float(step_rewards(whole.reward).mean()),
                                float(step_rewards(factored.reward).mean()), keys, at_best,
                                keys[int(np.argmin(at_best))], unsure, traj.record))
    return verdicts, problems


def compare(verdicts: list[ConditionVerdict]) -> dict[str, dict]:
    """Per task: F1 of the whole-prompt and the factored judge (K-means per task) with their 95%
    bootstrap intervals (`mineclip.evaluate.bootstrap`, seeded by the task's name as the eval stage's
    are: both judges are judged on the same resamples), the factored judge's F1 on the trajectories it
    does not abstain on, its abstain rate, what failed, and the scores and labels (`mean_intervals`)."""
    from collections import Counter

    from mineclip.evaluate.bootstrap import f1_interval
    from mineclip.evaluate.judge import binary_metrics, judge

    out = {}
    for task in dict.fromkeys(v.task for v in verdicts):
        vs = [v for v in verdicts if v.task == task]
        labels = [v.label for v in vs]
        scores = {j: [getattr(v, j) for v in vs] for j in JUDGES}
        whole, fact = (judge(scores[j], labels) for j in JUDGES)
        kept = [i for i, v in enumerate(vs) if not v.abstain]
        decided = binary_metrics([labels[i] for i in kept], [fact.preds[i] for i in kept]) if kept else None
        failed = Counter(v.failed for v, p in zip(vs, fact.preds) if p == 0)
        out[task] = {"n": len(vs), "conditions": vs[0].conditions, "whole_f1": whole.metrics["f1"],
                     "factored_f1": fact.metrics["f1"],
                     **{f"{j}_f1_interval": f1_interval(scores[j], labels, task) for j in JUDGES},
                     "decided_f1": decided["f1"] if decided else None,
                     "abstain": 1 - len(kept) / len(vs), "failed": dict(failed),
                     "labels": labels, **{f"{j}_scores": scores[j] for j in JUDGES}}
    return out


def mean_intervals(tasks: dict[str, dict]) -> dict[str, list[float] | None]:
    """95% bootstrap intervals of both judges' mean F1 over `tasks` (entries of `compare`), the tasks
    resampled independently as the evaluation's means are (`bootstrap.mean_f1_interval`)."""
    from mineclip.evaluate.bootstrap import mean_f1_interval

    return {j: mean_f1_interval({t: {"scores": e[f"{j}_scores"], "labels": e["labels"]} for t, e in tasks.items()})
            for j in JUDGES}


def write_abstained(verdicts: list[ConditionVerdict], path: str | Path) -> int:
    """The trajectories the factored judge abstained on, as a trajectory file for `mineclip label`
    (write it beside the labels file it came from, so that its video paths stay valid)."""
    lines = [json.dumps({**v.record, "abstained": {"unsure": v.unsure, "at_best": dict(zip(v.conditions, v.at_best))}})
             for v in verdicts if v.abstain and v.record]
    Path(path).write_text("".join(line + "\n" for line in lines))
    return len(lines)
