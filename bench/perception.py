"""MP5's tables for the learned model as the Percipient (issue 27).

1. Reliability per condition type: precision, recall and F1 of the Percipient's `yes` answers
   against the simulator's ground truth on frames of held-out worlds (an unsure answer on a true
   condition counts as a miss), with the share of unsure answers, for the trained artifact and an
   untrained model of the same architecture (each with thresholds fitted on training worlds).
   In first person, on the same frames, each model's answers about a thing the frame shows by how
   much of the frame it fills (under 0.5%, 0.5-2%, 2% and more; the label counts it from one pixel).
2. Success per level (1, 2, 3, 4-6 conditions) of the Patroller on the context tasks, over
   `--episodes` held-out worlds per task, with three perceivers on the same worlds: the simulator's
   ground truth (the upper bound), the learned model condition by condition (active), and the
   learned model asked about the whole description once (one-shot; `--perceivers` picks among
   them); with MP5's two failure modes: declared done while a condition was false, never declared
   although all held.

    python bench/perception.py                           # runs/default/artifact
    python bench/perception.py --model DIR --json        # one JSON object: per-condition F1, per-level success
    python bench/perception.py --refit                   # fit the head and thresholds again
    python bench/perception.py --no-head                 # every condition asked in words (the head not used)
    python bench/perception.py --no-judge                # skip table 3
    python bench/perception.py --judge-only --labels "" --per-label 20 --context-purpose perception \
        --context-dir runs/default/perception/context-valset   # table 3 on a validation set of training worlds

   `--agent seeker` plays them with the Seeker instead (`mineclip.perception.seeker`: it sees only
   its view, remembers what its perceiver confirmed, and walks there from memory), and
   `--placement hidden` places each scene out of sight, farther by level (`mineclip.tasks.placement`).
   `--success-only` measures table 2 alone (no fitting; the ground-truth perceiver needs no model):

    python bench/perception.py --success-only --agent seeker --placement hidden --view first_person \
        --perceivers ground_truth --episodes 10

   `--encoders trained,untrained` plays the learned perceivers once more with the Percipient of an
   untrained model of the same architecture (its own head fitted on the same frames): MP5 table 5's
   question (does the encoder matter?) asked of the success per level, not only of the conditions:

    python bench/perception.py --model runs/default-first_person/artifact --view first_person \
        --agent seeker --placement hidden --perceivers active --encoders trained,untrained \
        --episodes 30 --fit-worlds 480 --eval-worlds 60 --no-judge

   `--process` measures MP5's process-dependent tasks instead (its table 4 in kind,
   `mineclip.perception.process`): success per level (basic, wooden, stone, iron, diamond) of the
   planning agent (`mineclip.perception.planner`), without perception during execution and without
   situation-aware planning, on `--episodes` held-out worlds per task, with Wilson intervals;
   `--drop P` adds MP5's Random Drop. No model needed (the ground-truth perceiver):

    python bench/perception.py --process --view first_person --episodes 30 --workers 2
    python bench/perception.py --process --view first_person --episodes 30 --drop 0.25

3. The judge by conditions (soft AND of per-condition P, abstaining when a needed condition is
   unsure) against the whole-prompt judge: mean F1 on the pipeline's evaluation set and on the
   context tasks recorded on held-out worlds (runs/default/evalset/context, what the pipeline recorded).

The measurements are `mineclip.perception.benchmark` (`run_benchmark`, `run_judges`), the tables
`mineclip.perception.tables`; this script parses the options and prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mineclip.perception.benchmark import (
    AGENTS,
    ENCODERS,
    BenchSettings,
    ContextSettings,
    JudgeSettings,
    check_encoders,
    check_perceivers,
    run_benchmark,
    run_context,
    run_judges,
    success_markdown,
)
from mineclip.perception.patroller import PERCEIVERS
from mineclip.perception.process import ProcessSettings, process_markdown, run_process
from mineclip.perception.tables import tables_json, tables_markdown
from mineclip.pipeline import load_preset
from mineclip.reward import MODES
from mineclip.sim.view import DEFAULT_VIEW, VIEWS
from mineclip.tasks.placement import DEFAULT_PLACEMENT, PLACEMENTS


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="runs/default/artifact", help="the artifact directory")
    p.add_argument("--episodes", type=int, default=30, help="held-out worlds per task and perceiver")
    p.add_argument("--fit-worlds", type=int, default=160, help="training worlds whose frames fit the thresholds")
    p.add_argument("--eval-worlds", type=int, default=160, help="held-out worlds whose frames measure reliability")
    p.add_argument("--tasks", default="", help="comma-separated context task ids, for both tables (default: all)")
    p.add_argument("--refit", action="store_true",
                   help="fit the head and thresholds again and overwrite perception_head.safetensors and perception.json")
    p.add_argument("--no-head", action="store_true",
                   help="ask every condition in words (thresholds fitted for that, not saved), not the trained head")
    p.add_argument("--no-judge", action="store_true", help="skip the judge by conditions (table 3)")
    p.add_argument("--judge-only", action="store_true",
                   help="only the judge by conditions (table 3), with the artifact's saved head and thresholds")
    p.add_argument("--per-label", type=int, default=10,
                   help="successes and failures per context task when the context set is recorded")
    p.add_argument("--context-purpose", default="evalset", choices=("evalset", "perception"),
                   help="record the context set on held-out worlds (evalset) or, as a validation set, on "
                        "the Percipient's training worlds (perception)")
    p.add_argument("--labels", default="runs/default/evalset/evalset.jsonl",
                   help="the pipeline's evaluation set (\"\": only the context tasks)")
    p.add_argument("--context-dir", default="runs/default/evalset/context",
                   help="where the context tasks' labelled set is recorded (once) and read")
    p.add_argument("--mode", default=load_preset("default").mode, choices=MODES,
                   help="the reward formula whose mean step reward both judges score (default: the built-in "
                        "default's, `eval.mode` of its preset, as its perception stage judges)")
    p.add_argument("--agent", default="patroller", choices=AGENTS,
                   help="who plays the context tasks: the Patroller (its Performer reads the map) or the Seeker "
                        "(sees only its view)")
    p.add_argument("--placement", default=DEFAULT_PLACEMENT, choices=PLACEMENTS,
                   help="where the context tasks' scenes are placed: as the tasks say (scene) or out of sight, "
                        "farther by level (hidden)")
    p.add_argument("--view", default=DEFAULT_VIEW, choices=VIEWS, help="the view everything is measured in")
    p.add_argument("--success-only", action="store_true",
                   help="only the success per level (table 2), without fitting; see --perceivers")
    p.add_argument("--perceivers", default=None,
                   help=f"comma-separated, among {list(PERCEIVERS)}: who plays the context tasks (default: all "
                        "three; with --success-only or --process: ground_truth; the learned ones read the "
                        "artifact's saved head and thresholds)")
    p.add_argument("--encoders", default="trained",
                   help=f"comma-separated, among {list(ENCODERS)}: whose Percipient the learned perceivers ask in "
                        "the success table (the untrained model's head is fitted on the same frames; MP5 table 5's "
                        "question)")
    p.add_argument("--process", action="store_true",
                   help="MP5's process-dependent tasks per level: the planning agent and its ablations (no model "
                        "needed); --perceivers takes ground_truth or active")
    p.add_argument("--ablations", default="full,blind,fixed",
                   help="with --process: comma-separated agents, of full, blind, fixed, no_memory")
    p.add_argument("--drop", type=float, default=0.0,
                   help="with --process: MP5's Random Drop, its probability at the start of each sub-objective")
    p.add_argument("--workers", type=int, default=1, help="with --process: processes playing the episodes")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    a = p.parse_args(argv)
    tasks = [t for t in a.tasks.split(",") if t]
    chosen = [n for n in (a.perceivers or "").split(",") if n]
    encoders = [e for e in a.encoders.split(",") if e]
    try:
        check_encoders(encoders)
        if chosen:
            check_perceivers(chosen)
    except ValueError as e:
        p.error(str(e))
    if encoders != ["trained"] and (a.process or a.success_only or a.judge_only):
        p.error("--encoders is for the full bench, which fits the untrained model's head; --process, --success-only "
                "and --judge-only read the artifact's saved head alone")
    if a.process:
        perceiver = (chosen or ["ground_truth"])[0]
        if perceiver != "ground_truth" and not Path(a.model).is_dir():
            print(f"no artifact at {a.model}: the {perceiver} perceiver needs one", file=sys.stderr)
            return 1
        result = run_process(ProcessSettings([x for x in a.ablations.split(",") if x], a.episodes, tasks, a.view,
                                             perceiver, a.model if perceiver != "ground_truth" else None, a.drop,
                                             a.workers, not a.json))
        print(json.dumps({k: result[k] for k in ("settings", "success", "tasks", "seconds")}, indent=1)
              if a.json else process_markdown(result))
        return 0
    if a.success_only:
        perceivers = chosen or ["ground_truth"]
        learned = set(perceivers) - {"ground_truth"}
        if learned and not Path(a.model).is_dir():
            print(f"no artifact at {a.model}: the {', '.join(sorted(learned))} perceivers need one", file=sys.stderr)
            return 1
        result = run_context(ContextSettings(a.agent, perceivers, a.episodes, tasks, a.placement, a.view,
                                             a.model if learned else None, not a.no_head, not a.json))
        print(json.dumps({k: result[k] for k in ("settings", "success", "tasks", "seconds")}, indent=1)
              if a.json else success_markdown(result))
        return 0
    if not Path(a.model).is_dir():
        print(f"no artifact at {a.model}: run `mineclip pipeline` first or pass --model", file=sys.stderr)
        return 1
    if a.judge_only and a.no_judge:
        print("--judge-only and --no-judge leave nothing to do", file=sys.stderr)
        return 2
    result = None if a.judge_only else run_benchmark(BenchSettings(
        a.model, a.episodes, a.fit_worlds, a.eval_worlds, a.refit, head=not a.no_head, tasks=tasks,
        progress=not a.json, view=a.view, agent=a.agent, placement=a.placement,
        perceivers=chosen or list(PERCEIVERS), encoders=encoders))
    judges = None if a.no_judge else run_judges(JudgeSettings(
        a.model, a.labels or None, a.context_dir, a.per_label, mode=a.mode, context_purpose=a.context_purpose,
        tasks=tasks, head=not a.no_head, progress=not a.json, view=a.view))
    print(json.dumps(tables_json(result, judges, a.mode), indent=1) if a.json else tables_markdown(result, judges))
    return 0


if __name__ == "__main__":
    sys.exit(main())
