"""The main job's stages, composed in one process: play the task suite -> narrated training shards and
held-out clips -> labelled evaluation set on held-out worlds -> train -> export -> judge -> MP5's
context tasks judged whole and by conditions (when the preset has a `perception` section; their
labelled set is recorded with the evaluation set). Every stage plays and draws in the preset's
view (`Preset.view`), the perception stage included.

Each stage calls one library function (`make_clips`, `record_evalset`, `fit`, `export_checkpoint`,
`evaluate`) and records its result in `<run>/stages/<stage>.json`; a stage whose record exists is
skipped (`force` redoes them), so a killed run continues where it stopped.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from mineclip.host import host_info
from mineclip.train.configs import ConfigError

from .presets import Preset

STAGES = ("clips", "evalset", "train", "export", "eval", "perception")
DATA_STAGES = {"clips": "shards", "evalset": "evalset"}  # stage -> the folder it writes


class StageError(RuntimeError):
    """A stage could not run or failed."""


def stage_record(run: Path, stage: str) -> dict | None:
    """The record a finished stage left, or None."""
    marker = run / "stages" / f"{stage}.json"
    return json.loads(marker.read_text()) if marker.is_file() else None


def _mark(run: Path, stage: str, info: dict) -> None:
    marker = run / "stages" / f"{stage}.json"
    marker.parent.mkdir(parents=True, exist_ok=True)
    tmp = marker.with_suffix(".part")
    tmp.write_text(json.dumps(info, indent=1) + "\n")
    tmp.replace(marker)


# Stages find their inputs through the run folder's layout, not through the paths in earlier
# stages' records: those are relative to where that stage ran, which differs for data reused from
# another run (data_from) or a moved run folder.
def shards_dir(run: Path, split: str) -> Path:
    return run / "shards" / split


def checkpoints_dir(run: Path) -> Path:
    return run / "train" / "checkpoints"


def artifact_dir(run: Path) -> Path:
    return run / "artifact"


def evalset_labels(run: Path) -> Path:
    from mineclip.play.evalset import FILE_NAME

    return run / "evalset" / FILE_NAME


def context_dir(run: Path) -> Path:
    """MP5's context tasks' labelled set: data like the evaluation set (no model in it), recorded by
    the evalset stage so that runs on the same data (`--data-from`, the seeds of bench/quality.py)
    share it."""
    return run / "evalset" / "context"


# --------------------------------------------------------------------------- stages
def clip_settings(preset: Preset) -> dict:
    """The narrated clips a preset trains on ("train") and retrieves on ("val")."""
    from mineclip.play.clips import ClipSettings

    sizes = preset.clips
    return {"train": ClipSettings(num_clips=sizes.num_clips, seed=0, prefix="train", worlds=sizes.worlds,
                                  task_weights=sizes.task_weights or None, scenery=sizes.scenery, in_view=sizes.in_view,
                                  view=preset.view),
            # held-out clips come from other training-split worlds than the training clips
            "val": ClipSettings(num_clips=sizes.val_clips, seed=1, prefix="val", purpose="val_clips",
                                in_view=sizes.in_view, view=preset.view)}


def evalset_settings(preset: Preset):
    """The labelled evaluation set a preset judges: successes go on for one reward window after the
    success, so every window that holds it is judged."""
    from mineclip.play.evalset import EvalsetSettings

    return EvalsetSettings(list(preset.evalset.tasks), preset.evalset.per_label, preset.evalset.worlds,
                           tail=preset.num_frames, view=preset.view)


def stage_clips(run: Path, preset: Preset, workers: int) -> dict:
    from mineclip.play.clips import make_clips

    try:
        settings = clip_settings(preset)
    except ValueError as e:  # the preset's clip sizes, checked by ClipSettings
        raise StageError(f"clips: {e}") from e
    out = {split: make_clips(shards_dir(run, split), s, workers) for split, s in settings.items()}
    return {**{split: asdict(r) for split, r in out.items()}, "train_clips": out["train"].clips,
            "val_clips": out["val"].clips}


def stage_evalset(run: Path, preset: Preset, workers: int) -> dict:
    """The labelled evaluation set, and the context tasks' set when the preset has a perception section."""
    from mineclip.play.evalset import record_evalset

    out = asdict(record_evalset(run / "evalset", evalset_settings(preset), workers))
    if preset.perception is not None:
        from mineclip.perception.benchmark import record_context

        sizes = preset.perception
        shutil.rmtree(context_dir(run), ignore_errors=True)  # recorded afresh with the set, as the set itself
        out["context"] = str(record_context(context_dir(run), sizes.tasks, sizes.per_label, preset.num_frames,
                                            workers=workers, view=preset.view))
    return out


def stage_train(run: Path, preset: Preset, workers: int, overrides: dict) -> dict:
    from mineclip.train.callbacks import NonFiniteLossError
    from mineclip.train.configs import merge
    from mineclip.train.fit import FitSettings, fit

    ours = {"trainer": {"default_root_dir": str(run / "train")},
            "data": {"init_args": {"train_urls": str(shards_dir(run, "train")), "val_urls": str(shards_dir(run, "val")),
                                   "num_workers": workers}}}  # decode the clip cache and the val set in parallel
    # a killed run resumes from its last.ckpt. The final weights are exported, not the best by
    # validation R@1: on a few hundred templated held-out clips that R@1 sits near chance for most of
    # a short run and picks early checkpoints, whose judge is worse (measured on the default:
    # programmatic F1 0.81 at step 200, 0.88 at 500)
    try:
        result = fit(FitSettings(preset.train, merge(ours, overrides), ckpt_path="last"))
    except (ConfigError, NonFiniteLossError, ValueError) as e:
        raise StageError(f"training failed: {e}; see {run / 'train'}") from e
    if not result.last:
        raise StageError(f"training wrote no last.ckpt into {result.checkpoint_dir}")
    return {**asdict(result), "checkpoint": result.last, "best_by_val_r1": result.best}


def stage_export(run: Path, preset: Preset) -> dict:
    from mineclip.export import ExportSettings, export_checkpoint
    from mineclip.model.artifact import JudgeSettings

    out = artifact_dir(run)
    if out.exists():
        shutil.rmtree(out)
    checkpoint = checkpoints_dir(run) / "last.ckpt"  # the final weights, as the train stage records
    settings = ExportSettings(str(checkpoint), str(out), name="mineclip (pipeline)", window=preset.num_frames,
                              judge=JudgeSettings(negatives=preset.negatives, mode=preset.mode))
    return asdict(export_checkpoint(settings))


def stage_eval(run: Path, preset: Preset) -> tuple[dict, dict]:
    """(the stage's record, the evaluation's metrics)."""
    from mineclip.evaluate.run import EvalSettings, evaluate

    # the judge's negatives and reward formula: the preset's, which the export recorded in the artifact
    result = evaluate(EvalSettings(model=str(artifact_dir(run)), labels=str(evalset_labels(run)),
                                   out=str(run / "report"), shards=str(shards_dir(run, "val"))))
    record = {"report": result.report, "metrics": str(Path(result.report).with_name("metrics.json")),
              "judged": result.judged, "mean_f1": result.mean_f1}
    return record, result.metrics


def stage_perception(run: Path, preset: Preset, workers: int) -> dict:
    """MP5's context tasks in the evaluation: the Percipient's head and thresholds fitted on training
    worlds (saved with the artifact), the context tasks recorded on held-out worlds and judged whole
    and by conditions beside the evaluation set; report/perception.md and report/perception.json; all
    in the preset's view (perception.json records it)."""
    if preset.perception is None:
        return {"skipped": "the preset has no perception section"}
    from mineclip.perception.context_report import evaluate_context

    return evaluate_context(artifact_dir(run), context_dir(run), run / "report", evalset_labels(run),
                            preset.perception.tasks, preset.perception.per_label, preset.perception.fit_worlds,
                            preset.negatives, preset.mode, workers, view=preset.view)


# --------------------------------------------------------------------------- the run
def reuse_data(run: Path, source: Path, preset: Preset) -> None:
    """Let `run` train and evaluate on the clips and evaluation set of the finished run `source`
    (links to its folders and copies of its stage records), e.g. to compare training seeds or
    options on identical data without playing it again."""
    records = {stage: stage_record(source, stage) for stage in DATA_STAGES}
    for stage, record in records.items():
        if record is None:
            raise StageError(f"--data-from {source}: its {stage} stage has not finished")
    theirs = json.loads((source / "preset.json").read_text()) if (source / "preset.json").is_file() else {}
    try:
        theirs = json.loads(json.dumps(Preset.data_sizes_of(theirs)))
    except ConfigError as e:
        raise StageError(f"--data-from {source}: cannot read its preset.json: {e}") from e
    ours = json.loads(json.dumps(preset.data_sizes()))
    if theirs["view"] != ours["view"]:
        raise StageError(f"--data-from {source}: its clips and evaluation set show the {theirs['view']} view, "
                         f"this run the {ours['view']} view; use a run of the same --view")
    differ = [k for k in ours if k in theirs and theirs[k] != ours[k]]
    if differ:
        raise StageError(f"--data-from {source}: its data were made with other sizes ({', '.join(differ)}); "
                         "use the same --preset")
    run.mkdir(parents=True, exist_ok=True)
    for stage, folder in DATA_STAGES.items():
        link, target = run / folder, (source / folder).resolve()
        if link.is_symlink() and link.resolve() == target and stage_record(run, stage) is not None:
            continue
        if link.exists() or link.is_symlink():
            raise StageError(f"--data-from {source}: {link} exists; use a new run folder")
        link.symlink_to(target, target_is_directory=True)
        _mark(run, stage, {**records[stage], "data_from": str(source)})


def check_run_view(run: Path, preset: Preset) -> None:
    """A StageError when the run folder holds stages of a run in another view (its stages would be
    skipped as done, and this run would train or judge the other view's data)."""
    recorded = run / "preset.json"
    if not recorded.is_file() or not (run / "stages").is_dir():
        return
    theirs = Preset.data_sizes_of(json.loads(recorded.read_text()))["view"]
    if theirs != preset.view:
        raise StageError(f"{run} holds a run in the {theirs} view; this run is in the {preset.view} view: "
                         "use another --out")


def run_pipeline(run: Path, preset: Preset, workers: int = 2, force: bool = False,
                 train_overrides: dict | None = None, data_from: Path | None = None,
                 until: str = STAGES[-1]) -> tuple[dict | None, dict[str, float]]:
    """Run every stage not done yet, up to and including `until`; returns (the evaluation's metrics,
    None where it stopped before the eval stage, and seconds per stage). `until="evalset"` makes only
    the data that other runs can share (`data_from`)."""
    if until not in STAGES:
        raise StageError(f"no stage {until!r}; the stages: {', '.join(STAGES)}")
    if data_from is not None:
        if force:
            raise StageError("--data-from and --force: the data stages belong to the other run")
        reuse_data(run, data_from, preset)
    check_run_view(run, preset)
    run.mkdir(parents=True, exist_ok=True)
    (run / "preset.json").write_text(json.dumps(preset.to_dict(), indent=1) + "\n")
    stages: dict[str, Callable[[], dict]] = {
        "clips": lambda: stage_clips(run, preset, workers),
        "evalset": lambda: stage_evalset(run, preset, workers),
        "train": lambda: stage_train(run, preset, workers, train_overrides or {}),
        "export": lambda: stage_export(run, preset),
        "perception": lambda: stage_perception(run, preset, workers),
    }
    times: dict[str, float] = {}
    metrics: dict | None = None
    for stage in STAGES[:STAGES.index(until) + 1]:
        prev = None if force else stage_record(run, stage)
        if prev is not None:
            print(f"[{stage}] done before ({prev['seconds']:.0f}s), skipping", flush=True)
            times[stage] = prev["seconds"]
            continue
        print(f"[{stage}] ...", flush=True)
        t0 = time.time()
        if stage == "eval":
            out, metrics = stage_eval(run, preset)
        else:
            out = stages[stage]()
        out["seconds"] = time.time() - t0
        out["host"] = host_info()
        _mark(run, stage, out)
        times[stage] = out["seconds"]
        force = force or stage in ("clips", "evalset", "train")  # later stages depend on this output
    if metrics is None and "eval" in times:  # judged by an earlier invocation
        metrics = json.loads((run / "report" / "metrics.json").read_text())
    return metrics, times
