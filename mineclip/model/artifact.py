"""The artifact: a directory a reward or a judge is loaded from, with nothing to unpickle. One class,
`Artifact`, reads and writes every file in it; each write is atomic (`mineclip.atomic`), and the
weights are checked against the sha256 that config.json records when the model is loaded.

    model.safetensors            every tensor of MineCLIP.state_dict(), fp32, under MineCLIP's names
    config.json                  architecture (ModelConfig.to_dict()), frames, resolution,
                                 normalisation, tokenizer, reward defaults, provenance, validation
                                 metrics, the weights' sha256
    README.md                    model card: training data, metrics, how to load it
    judge.json                   (optional) the judge's settings (`settings`: negatives, reward mode,
                                 top-k; what `mineclip eval`, the labelling app, the pipeline and the
                                 assistant judge with unless told otherwise), its calibrated per-task
                                 thresholds (`calibration`, `mineclip eval --calibrate`, with the
                                 settings they were fitted under) and the assistant's threshold for
                                 free-form commands (`commands`)
    perception.json              (optional) the Percipient's thresholds (`mineclip.perception.calibrate`)
    perception_head.safetensors  (optional) the Percipient's head (`mineclip.perception.head`)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch

from mineclip import atomic

from .config import CLIP_FRAMES, ModelConfig
from .mineclip import MineCLIP

FORMAT = "mineclip-artifact"
FORMAT_VERSION = 1
WEIGHTS = "model.safetensors"
CONFIG = "config.json"
CARD = "README.md"
JUDGE = "judge.json"
PERCEPTION = "perception.json"
PERCEPTION_HEAD = "perception_head.safetensors"
FILES = (WEIGHTS, CONFIG, CARD, JUDGE, PERCEPTION, PERCEPTION_HEAD)  # every file an artifact may hold
DEFAULT_WINDOW = CLIP_FRAMES  # frames per reward window (MineDojo paper, sec. 4.2)


class ArtifactError(ValueError):
    """A directory is not a readable MineCLIP artifact, or one of its files is damaged."""


@dataclass(frozen=True)
class JudgeSettings:
    """How an artifact judges unless told otherwise: the negatives policy (`mineclip.tasks.negatives`
    or a file of prompts), the reward formula each trajectory's score averages (`direct`,
    `direct-naive`, `delta`) and the k of the top-k score rule. The defaults are the paper's choices;
    an artifact exported by the pipeline records its preset's (`judge.json`, `settings`)."""

    negatives: str = "suite"
    mode: str = "direct"
    topk: int = CLIP_FRAMES  # one window's worth of steps

    @classmethod
    def from_dict(cls, d: dict | None) -> "JudgeSettings":
        d = d or {}
        return cls(**{k: type(getattr(cls, k))(d[k]) for k in ("negatives", "mode", "topk") if d.get(k) is not None})

    def override(self, **given) -> "JudgeSettings":
        """These settings with every given (non-None) value replacing its own."""
        return JudgeSettings(**{**asdict(self), **{k: v for k, v in given.items() if v is not None}})

    def to_dict(self) -> dict:
        return asdict(self)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_config(model: MineCLIP, *, window: int = DEFAULT_WINDOW, frame_stride: int = 1,
                 source: dict | None = None, training: dict | None = None, resize: str = "pad") -> dict:
    """The config.json of an artifact for this model."""
    cfg = model.config
    h, w = cfg.vision.resolution
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "architecture": cfg.to_dict(),
        "frames": {"window": window, "stride": frame_stride, "max_frames": cfg.temporal.max_frames,
                   "pooling": cfg.temporal.pooling},
        "resolution": {"height": h, "width": w, "resize": resize},
        "normalisation": {"input": "uint8 RGB, divided by 255", "mean": list(cfg.image_mean),
                          "std": list(cfg.image_std)}
        | ({"blank_bottom": {"rows": cfg.vision.blank_bottom, "fill": "round(255 * mean)", "when": "before normalising"}}
           if cfg.vision.blank_bottom else {}),
        "tokenizer": {"name": "clip-bpe", "context_length": cfg.text.context_length,
                      "vocab_size": cfg.text.vocab_size, "sot_token": 49406, "eot_token": 49407,
                      "cleaning": "mineclip.model.tokenize", "lower_case": True},
        "score": "exp(logit_scale) * cosine(adapter(video), text)",
        "reward": {"default_mode": "direct", "window": window, "frame_stride": frame_stride,
                   "first_steps": "repeat the first frame to fill the window"},
        "parameters": model.num_parameters(),
        "source": source or {},
        "training": training or {},
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }


def _fmt_metrics(metrics: dict) -> str:
    if not metrics:
        return "No validation metrics were recorded in the checkpoint."
    rows = ["| metric | value |", "|---|---|"]
    for k, v in sorted(metrics.items()):
        rows.append(f"| {k} | {v:.4f} |" if isinstance(v, float) else f"| {k} | {v} |")
    return "\n".join(rows)


def _blank_line(config: dict) -> str:
    rows = (config["normalisation"].get("blank_bottom") or {}).get("rows")
    return f"\n- the bottom {rows} rows of every frame are filled with the mean colour first: the encoder never sees them" if rows else ""


def model_card(config: dict, name: str | None = None) -> str:
    """README.md of an artifact."""
    arch = config["architecture"]
    training = config.get("training") or {}
    data = training.get("data") or {}
    src = config.get("source") or {}
    name = name or src.get("name") or "MineCLIP artifact"
    data_lines = "\n".join(f"- {k}: `{v}`" for k, v in data.items()) or "- not recorded in the checkpoint"
    return front_matter(config) + f"""# {name}

A MineCLIP-style video-language model exported by `mineclip export`: a dense reward for RL and an
automatic success judge for video trajectories.

## Model
- temporal pooling: `{arch['temporal']['pooling']}`, embedding dim {arch['embed_dim']}, {config['parameters']:,} parameters
- frames: {config['frames']['window']} per clip, every {config['frames'].get('stride', 1)} step(s) of play, RGB uint8 {config['resolution']['height']}x{config['resolution']['width']}
  (other sizes are resized with aspect policy `{config['resolution']['resize']}`), normalised with
  mean {tuple(config['normalisation']['mean'])}, std {tuple(config['normalisation']['std'])}{_blank_line(config)}
- text: CLIP BPE tokenizer, {config['tokenizer']['context_length']} tokens
- exported from: {src.get('kind', '?')} checkpoint `{src.get('path', '?')}`

## Training data
{data_lines}

## Validation metrics
{_fmt_metrics(training.get('metrics') or {})}

## How to load
```python
from mineclip.reward import RewardModel
from mineclip.tasks.negatives import negatives_for
rm = RewardModel.load("path/to/{Path(src.get('out', 'ARTIFACT_DIR')).name}")
reward = rm.reward_fn("chop a tree", negatives_for("chop a tree", "suite"), mode="direct")
```
or the bare model: `from mineclip.model.artifact import load_artifact; model = load_artifact(DIR)`.
Loading reads `model.safetensors` and JSON only; nothing is unpickled.

Evaluate it as a success judge: `python eval.py --model DIR --labels trajectories.jsonl --out report/`.

## Intended use
- A dense reward for reinforcement learning in the world it was trained on (Direct or Delta reward
  of a prompt against negative prompts over a sliding window of frames; MineDojo paper, sec. 4.2).
- An automatic success judge of recorded trajectories (mean step reward, K-means threshold, F1
  against labels; sec. 5), and video-text retrieval.

## Limits
- It knows what its training clips showed and their captions said: other worlds, views, frame
  rates or wordings are out of distribution. A model trained on the bundled crafter suite is not a
  Minecraft model.
- Scores are relative: P of a prompt depends on the negative prompts it competes with, and the
  judge's threshold on the set being judged. Validate the judge on labelled trajectories of your own
  task before trusting it as a reward (`mineclip eval`).
- The reward can be exploited by a policy that finds views the model over-scores; watch episodes,
  not only returns.
"""


BASE_MODELS = {"clip": "openai/clip-vit-base-patch16", "official": "MineDojo/MineCLIP"}


def front_matter(config: dict) -> str:
    """The model card's YAML front-matter (the Hugging Face model card convention)."""
    init = str((config.get("training") or {}).get("init") or "")
    kind = (config.get("source") or {}).get("kind")
    base = BASE_MODELS.get("official" if kind == "official" else "clip" if init.startswith("clip") else "")
    lines = ["---", "license: mit", "library_name: mineclip",
             "tags: [mineclip, video-text, contrastive, reward-model, success-judge, minecraft, crafter]"]
    if base:
        lines.append(f"base_model: {base}")
    return "\n".join(lines + ["---", "", ""])


class Artifact:
    """An artifact directory and every file in it (see the module). `Artifact(path)` opens one (its
    directory, or its model.safetensors); `Artifact.create(model, out_dir, ...)` writes a new one."""

    def __init__(self, path: str | os.PathLike):
        path = Path(path)
        self.path = path.parent if path.suffix == ".safetensors" and path.name == WEIGHTS else path
        self._config: dict | None = None

    def __repr__(self) -> str:
        return f"Artifact({str(self.path)!r})"

    def file(self, name: str) -> Path:
        """The path of one of the artifact's `FILES` (ValueError for any other name)."""
        if name not in FILES:
            raise ValueError(f"an artifact holds {', '.join(FILES)}; not {name!r}")
        return self.path / name

    # ------------------------------------------------------------------ writing
    @classmethod
    def create(cls, model: MineCLIP, out_dir: str | os.PathLike, *, source: dict | None = None,
               training: dict | None = None, window: int = DEFAULT_WINDOW, frame_stride: int = 1,
               resize: str = "pad", name: str | None = None, judge: JudgeSettings | None = None) -> "Artifact":
        """Write model.safetensors + config.json + README.md (and the judge's settings, when given)
        into `out_dir`."""
        from safetensors.torch import save_file

        art = cls(out_dir)
        art.path.mkdir(parents=True, exist_ok=True)
        state = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
        seen: dict[int, str] = {}
        for k, v in list(state.items()):  # safetensors refuses tensors sharing memory
            ptr = v.untyped_storage().data_ptr()
            if ptr in seen:
                state[k] = v.clone()
            seen.setdefault(ptr, k)
        weights = art.file(WEIGHTS)
        tmp = weights.with_name(weights.name + ".part")
        save_file(state, str(tmp), metadata={"format": FORMAT, "format_version": str(FORMAT_VERSION)})
        atomic.replace_from(tmp, weights)
        source = dict(source or {})
        source.setdefault("out", str(art.path))
        config = build_config(model, window=window, frame_stride=frame_stride, source=source, training=training,
                              resize=resize)
        config["sha256"] = _sha256(weights)
        art.write_json(CONFIG, config)
        atomic.write_text(art.file(CARD), model_card(config, name))
        if judge is not None:
            art.write_judge_settings(judge)
        return art

    def write_json(self, name: str, data: dict) -> Path:
        """Write one of the artifact's JSON files, atomically."""
        path = self.file(name)
        if not path.name.endswith(".json"):
            raise ValueError(f"{name} is not one of the artifact's JSON files")
        if name == CONFIG:
            self._config = None
        return atomic.write_text(path, json.dumps(data, indent=2) + "\n")

    def write_tensors(self, name: str, tensors: dict[str, torch.Tensor], metadata: dict[str, str]) -> Path:
        """Write one of the artifact's safetensors files besides the weights (a perception head), atomically."""
        from safetensors.torch import save_file

        path = self.file(name)
        if name == WEIGHTS or not name.endswith(".safetensors"):
            raise ValueError(f"{name}: the weights are written by Artifact.create; other tensors go to "
                             f"{PERCEPTION_HEAD}")
        tmp = path.with_name(path.name + ".part")
        save_file(tensors, str(tmp), metadata=metadata)
        return atomic.replace_from(tmp, path)

    # ------------------------------------------------------------------ reading
    @property
    def config(self) -> dict:
        """config.json, checked for format (ArtifactError when this is not an artifact)."""
        if self._config is None:
            d = self.path
            if not self.file(CONFIG).is_file() or not self.file(WEIGHTS).is_file():
                found = sorted(p.name for p in d.iterdir()) if d.is_dir() else "no such directory"
                raise ArtifactError(f"{d}: expected an artifact directory with {CONFIG} and {WEIGHTS}, found {found}")
            try:
                config = json.loads(self.file(CONFIG).read_text())
            except (ValueError, UnicodeDecodeError) as e:
                raise ArtifactError(f"{self.file(CONFIG)}: not JSON ({e})") from None
            if not isinstance(config, dict) or config.get("format") != FORMAT:
                got = config.get("format") if isinstance(config, dict) else type(config).__name__
                raise ArtifactError(f"{self.file(CONFIG)}: expected format {FORMAT!r}, got {got!r}")
            if int(config.get("format_version", 0)) > FORMAT_VERSION:
                raise ArtifactError(f"{self.file(CONFIG)}: format_version {config['format_version']} is newer than "
                                    f"this library reads ({FORMAT_VERSION}); upgrade mineclip")
            self._config = config
        return self._config

    def read_json(self, name: str) -> dict:
        """One of the artifact's optional JSON files ({} when it has none)."""
        path = self.file(name)
        if not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError) as e:
            raise ArtifactError(f"{path}: not JSON ({e})") from None
        if not isinstance(data, dict):
            raise ArtifactError(f"{path}: expected a JSON object, got {type(data).__name__}")
        return data

    def verify(self) -> None:
        """ArtifactError, naming the file, when the weights' sha256 is not the one config.json records."""
        recorded = self.config.get("sha256")
        if recorded and _sha256(self.file(WEIGHTS)) != recorded:
            raise ArtifactError(f"{self.file(WEIGHTS)}: sha256 does not match the one {CONFIG} records (the file "
                                "changed or is damaged); export the checkpoint again")

    def load_model(self, device: str | torch.device = "cpu", verify: bool = True) -> MineCLIP:
        """The MineCLIP model, in eval mode (reads safetensors + JSON; never unpickles); with `verify`,
        the weights are checked against their recorded sha256 first."""
        from safetensors.torch import load_file

        config = self.config
        if verify:
            self.verify()
        try:
            model = MineCLIP(ModelConfig.from_dict(config["architecture"]))
        except (KeyError, TypeError, ValueError) as e:
            raise ArtifactError(f"{self.file(CONFIG)}: its architecture does not fit this version: {e}") from e
        try:
            state = load_file(str(self.file(WEIGHTS)), device="cpu")
        except Exception as e:  # safetensors' own errors on a damaged file, with the file's name
            raise ArtifactError(f"{self.file(WEIGHTS)}: not readable as safetensors ({e})") from e
        missing, unexpected = model.load_state_dict(state, strict=False)
        if missing or unexpected:
            raise ArtifactError(f"{self.file(WEIGHTS)}: weights do not match config.json's architecture: "
                                f"missing {missing[:8]}, unexpected {unexpected[:8]}")
        return model.to(device).eval()

    # ------------------------------------------------------------------ the judge
    @property
    def window(self) -> int:
        return int(self.config.get("frames", {}).get("window", DEFAULT_WINDOW))

    @property
    def frame_stride(self) -> int:
        return int(self.config.get("frames", {}).get("stride", 1))

    def judge(self) -> dict:
        """judge.json ({} when none), with a calibration written by an earlier version (thresholds at
        the top level) read as the `calibration` section."""
        judge = self.read_json(JUDGE)
        if "tasks" in judge and "calibration" not in judge:
            legacy = {k: judge.pop(k) for k in ("labels", "mode", "topk", "window", "frame_stride", "tasks")
                      if k in judge}
            judge["calibration"] = legacy
        return judge

    def judge_settings(self) -> JudgeSettings:
        """The judge's settings this artifact records (the defaults where it records none)."""
        return JudgeSettings.from_dict(self.judge().get("settings"))

    def write_judge_settings(self, settings: JudgeSettings) -> Path:
        return self.write_json(JUDGE, {**self.judge(), "settings": settings.to_dict()})

    def write_judge_section(self, section: str, value: dict) -> Path:
        """Replace one section of judge.json (`calibration`, `commands`), keeping the others."""
        return self.write_json(JUDGE, {**self.judge(), section: value})


def save_artifact(model: MineCLIP, out_dir: str | os.PathLike, *, source: dict | None = None,
                  training: dict | None = None, window: int = DEFAULT_WINDOW, frame_stride: int = 1,
                  resize: str = "pad", name: str | None = None, judge: JudgeSettings | None = None) -> Path:
    """Write model.safetensors + config.json + README.md into out_dir (`Artifact.create`)."""
    return Artifact.create(model, out_dir, source=source, training=training, window=window,
                           frame_stride=frame_stride, resize=resize, name=name, judge=judge).path


def read_artifact_config(artifact_dir: str | os.PathLike) -> dict:
    """The artifact's config.json, checked for format (`Artifact.config`)."""
    return Artifact(artifact_dir).config


def load_artifact(artifact_dir: str | os.PathLike, device: str | torch.device = "cpu",
                  verify: bool = True) -> MineCLIP:
    """The MineCLIP model of an artifact, in eval mode (`Artifact.load_model`: safetensors + JSON,
    never unpickled; the weights' sha256 checked unless `verify` is False)."""
    return Artifact(artifact_dir).load_model(device, verify)


def read_judge(artifact_dir: str | os.PathLike) -> dict:
    """judge.json of an artifact ({} when none; `Artifact.judge`)."""
    return Artifact(artifact_dir).judge()


def write_judge(artifact_dir: str | os.PathLike, judge: dict[str, Any]) -> Path:
    """Write judge.json of an artifact, atomically (`Artifact.write_json`)."""
    return Artifact(artifact_dir).write_json(JUDGE, judge)
