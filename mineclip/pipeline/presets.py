"""Pipeline presets: the sizes of one pipeline run, as YAML files (`mineclip/configs/pipeline/`).

    view:     top | first_person                     what the clips and evaluation sets show, and the
                                                     agents' controls (mineclip.sim.view; default top)
    clips:    {num_clips, val_clips, task_weights, scenery, in_view}  narrated training clips and held-out clips
    evalset:  {tasks, per_label, worlds}             the labelled evaluation set on held-out worlds
    train:    a training config mapping (`defaults: [tiny]` plus changes; mineclip.train.configs)
    eval:     {negatives, mode}                      the judge's negative prompts (mineclip.tasks.negatives) and
                                                     reward formula (mineclip.reward.MODES) of the step rewards
                                                     each trajectory's score averages
    perception: {tasks, per_label, fit_worlds}       MP5's context tasks judged whole and by conditions
                                                     (mineclip.perception) in the preset's view (the
                                                     Percipient fitted on, and the context tasks recorded
                                                     in, that view's frames); no section: the stage is skipped

`mineclip pipeline --view first_person` runs any preset in first person (`Preset.with_view`).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from mineclip.sim.view import DEFAULT_VIEW, check_view
from mineclip.tasks.scenes import check_in_view
from mineclip.train.configs import ConfigError, config_root, load_config

PRESET_FOLDER = "pipeline"


@dataclass
class ClipSizes:
    num_clips: int = 6000
    val_clips: int = 256
    task_weights: dict[str, float] = field(default_factory=dict)  # {} plays every task equally often
    scenery: float = 0.0  # chance an event-free training clip is captioned by its whole scene
    in_view: str = "any"  # how captions name things in view: any distance, "ranged", "near" (tasks.scenes.IN_VIEW)
    worlds: int = 64  # distinct training worlds the clips are played on, in turn


@dataclass
class EvalsetSizes:
    tasks: list[str] = field(default_factory=list)
    per_label: int = 10  # successes and failures per task
    worlds: int = 20  # held-out worlds the attempts take in turn


@dataclass
class PerceptionSizes:
    tasks: list[str] = field(default_factory=list)  # context task ids; [] = every mp5-context task
    per_label: int = 10  # successes and failures per context task, on held-out worlds
    fit_worlds: int = 80  # training worlds whose frames fit the Percipient's thresholds


@dataclass
class Preset:
    """Sizes of one pipeline run."""

    name: str
    clips: ClipSizes
    evalset: EvalsetSizes
    train: dict  # a training config mapping
    negatives: str = "scene"
    mode: str = "direct"  # the judge's reward formula; the built-in default's preset says which and why
    perception: PerceptionSizes | None = None
    view: str = DEFAULT_VIEW  # what the clips and evaluation sets show (mineclip.sim.view)

    def with_view(self, view: str) -> "Preset":
        """This preset in `view`, every section kept: its clips, evaluation sets and perception stage
        (the Percipient's head and bands, the context tasks) all in that view."""
        check_view(view)
        return replace(self, view=view)

    @property
    def training_config(self) -> dict:
        """The composed training config (defaults expanded), before the run's own overrides."""
        return load_config(self.train)

    @property
    def num_frames(self) -> int:
        """Frames per training clip: the judge's reward window and the evaluation set's tail."""
        return int(self.training_config["data"]["init_args"]["num_frames"])

    def data_sizes(self) -> dict:
        """What decides the data stages' output (compared when a run reuses another's data; the
        evalset stage records the context tasks' set too)."""
        perception = {"perception": asdict(self.perception)} if self.perception else {}
        return {"view": self.view, "clips": asdict(self.clips), "evalset": asdict(self.evalset)} | perception

    @staticmethod
    def data_sizes_of(mapping: dict) -> dict:
        """`data_sizes` of a run's preset.json, its missing fields at their defaults (a run made before
        a field existed was made with its default)."""
        sections = {k: mapping[k] for k in ("view", "clips", "evalset", "perception") if k in mapping}
        return preset_from_dict(str(mapping.get("name", "run")), sections).data_sizes()

    def to_dict(self) -> dict:
        return {"name": self.name, **self.data_sizes(), "train": self.train,
                "eval": {"negatives": self.negatives, "mode": self.mode}}


def list_presets() -> list[str]:
    return sorted(p.stem for p in (config_root() / PRESET_FOLDER).glob("*.yaml"))


def preset_from_dict(name: str, d: dict) -> Preset:
    """A Preset from its mapping (the YAML file's contents); unknown sections and fields are errors."""
    unknown = sorted(set(d) - {"name", "view", "clips", "evalset", "train", "eval", "perception"})
    if unknown:
        raise ConfigError(f"preset {name!r}: unknown sections {unknown}; expected view, clips, evalset, train, eval, "
                          "perception")
    view = d.get("view", DEFAULT_VIEW)
    try:
        check_view(view)
    except ValueError as e:
        raise ConfigError(f"preset {name!r}: view: {e}") from None
    from mineclip.reward import MODES

    try:
        perception = PerceptionSizes(**d["perception"]) if d.get("perception") is not None else None
        preset = Preset(name, ClipSizes(**(d.get("clips") or {})), EvalsetSizes(**(d.get("evalset") or {})),
                        dict(d.get("train") or {}), **(d.get("eval") or {}), perception=perception, view=view)
    except TypeError as e:
        raise ConfigError(f"preset {name!r}: {e}") from e
    try:
        check_in_view(preset.clips.in_view)
    except ValueError as e:
        raise ConfigError(f"preset {name!r}: clips.{e}") from e
    if preset.mode not in MODES:
        raise ConfigError(f"preset {name!r}: eval.mode {preset.mode!r} is not a reward formula; expected one of "
                          f"{list(MODES)}")
    return preset


def load_preset(name: str | os.PathLike) -> Preset:
    """A packaged preset by name (default, quick, large) or a preset YAML file by path."""
    import yaml

    path = Path(name)
    if not path.is_file():
        path = config_root() / PRESET_FOLDER / f"{path.name}.yaml"
        if not path.is_file():
            raise ConfigError(f"pipeline preset {str(name)!r} not found: neither a file nor one of {list_presets()}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: cannot read the preset: {e}") from e
    return preset_from_dict(path.stem, data)
