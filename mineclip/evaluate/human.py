"""Human labels: merge the lines of one or more label files per trajectory, take people's majority,
and measure the judge against people beside the success criterion or oracle.

A line whose `labeller` is `human` or `human:<name>` is one person's vote (a later line of the same
person supersedes an earlier one); any other labelled line (`success-criterion`, `oracle`) is the
reference label, and so is a human line's `reference_label` (what `mineclip label` copies from the
set). A trajectory is one video (or frames folder) of one task. The label it is judged against is
people's majority where people labelled it, else the reference; ties and unlabelled trajectories
become problems.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Sequence

import numpy as np

from .agreement import cohen_kappa, fleiss_from_votes, majority, pairwise_kappas
from .estimate import estimate_f1
from .judge import binary_metrics
from .scoring import TrajectoryScore
from .trajectories import Problem, Trajectory

PEOPLE = "people"


def is_human(labeller: str) -> bool:
    """Whether a `labeller` value names a person (`human` or `human:<name>`)."""
    return labeller == "human" or labeller.startswith("human:")


def merge_labels(trajectories: Sequence[Trajectory]) -> tuple[list[Trajectory], list[Problem]]:
    """One trajectory per (task, video) with people's votes, the reference and the label to judge against."""
    groups: dict[tuple[str, str], list[Trajectory]] = {}
    for t in trajectories:
        groups.setdefault((t.task, str(t.source.resolve())), []).append(t)
    merged, problems = [], []
    for items in groups.values():
        votes: dict[str, int] = {}
        reference, ref_by, copied, copied_by = None, "", None, ""
        for t in items:
            if t.label is not None and is_human(t.labeller):
                votes.pop(t.labeller, None)  # re-insert: the latest vote counts
                votes[t.labeller] = t.label
                ref = t.record.get("reference_label")
                if ref in (0, 1) and not isinstance(ref, bool):
                    copied, copied_by = int(ref), str(t.record.get("reference_labeller") or "reference")
            elif t.label is not None:
                reference, ref_by = t.label, t.labeller or "reference"
        if reference is None:
            reference, ref_by = copied, copied_by
        first = items[0]
        people = majority(list(votes.values()))
        if people is not None:
            label, labeller = people, PEOPLE
        else:
            label, labeller = reference, ref_by
        if label is None:
            kind, msg = (("no_majority", f"people disagree ({dict(Counter(votes.values()))}) and there is no "
                          "criterion or oracle label") if votes else
                         ("unlabelled", "no label yet: neither the line nor a person labelled it"))
            problems.append(Problem(first.line, kind, msg, first.id, first.file or None))
            continue
        merged.append(replace(first, label=label, labeller=labeller, votes=votes, reference=reference,
                              reference_labeller=ref_by))
    return merged, problems


def _kappa_row(a: list[int], b: list[int]) -> dict:
    return {"n": len(a), "agreement": (sum(x == y for x, y in zip(a, b)) / len(a)) if a else None,
            "kappa": cohen_kappa(a, b)}


def _f1(labels: list[int], preds: list[int]) -> float | None:
    return binary_metrics(labels, preds)["f1"] if labels else None


def people_stats(scores: Sequence[TrajectoryScore], tasks: dict[str, dict], rule: str = "mean") -> dict | None:
    """The judge (its K-means verdicts under `rule`, from `judge_tasks`) against people and against the
    reference, agreement between labellers, people vs reference and people vs judge; None without votes."""
    if not any(ts.traj.votes for ts in scores):
        return None
    by_task: dict[str, list[TrajectoryScore]] = {}
    for ts in scores:
        by_task.setdefault(ts.traj.task, []).append(ts)
    rows, all_tasks, all_preds, all_people, pooled = {}, [], [], [], {"pr": ([], []), "pj": ([], [])}
    for task, items in by_task.items():
        preds = tasks[task]["rules"][rule]["kmeans"]["preds"]
        people = [majority(list(ts.traj.votes.values())) if ts.traj.votes else None for ts in items]
        refs = [ts.traj.reference for ts in items]
        lab = [i for i, p in enumerate(people) if p is not None]
        both = [i for i in lab if refs[i] is not None]
        with_ref = [i for i, r in enumerate(refs) if r is not None]
        rows[task] = {
            "n": len(items), "people": len(lab),
            "ties": sum(1 for ts, p in zip(items, people) if ts.traj.votes and p is None),
            "labellers": len({name for ts in items for name in ts.traj.votes}),
            "f1_people": _f1([people[i] for i in lab], [preds[i] for i in lab]),
            "f1_reference_same": _f1([refs[i] for i in both], [preds[i] for i in both]),
            "f1_reference": _f1([refs[i] for i in with_ref], [preds[i] for i in with_ref]),
            "people_vs_reference": _kappa_row([people[i] for i in both], [refs[i] for i in both]),
            "people_vs_judge": _kappa_row([people[i] for i in lab], [preds[i] for i in lab]),
            "reference_labellers": sorted({items[i].traj.reference_labeller for i in with_ref}),
        }
        pooled["pr"][0].extend(people[i] for i in both)
        pooled["pr"][1].extend(refs[i] for i in both)
        pooled["pj"][0].extend(people[i] for i in lab)
        pooled["pj"][1].extend(preds[i] for i in lab)
        all_tasks += [task] * len(items)
        all_preds += list(preds)
        all_people += people
    votes = {i: ts.traj.votes for i, ts in enumerate(scores) if ts.traj.votes}
    fleiss, fleiss_n = fleiss_from_votes(votes)
    judged = [r["f1_people"] for r in rows.values() if r["f1_people"] is not None]
    same = [r["f1_reference_same"] for r in rows.values() if r["f1_reference_same"] is not None]
    return {
        "rule": rule,
        "tasks": rows,
        "labellers": dict(Counter(name for v in votes.values() for name in v)),
        "pairwise": pairwise_kappas(votes),
        "fleiss": {"kappa": fleiss, "n": fleiss_n},
        "people_vs_reference": _kappa_row(*pooled["pr"]),
        "people_vs_judge": _kappa_row(*pooled["pj"]),
        "mean_f1_people": float(np.mean(judged)) if judged else None,
        "mean_f1_reference_same": float(np.mean(same)) if same else None,
        "estimate": estimate_f1(all_tasks, all_preds, all_people).to_dict(),
    }
