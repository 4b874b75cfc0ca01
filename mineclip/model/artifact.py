"""The artifact: a directory a reward or a judge is loaded from, with nothing to unpickle.

    model.safetensors   every tensor of MineCLIP.state_dict(), fp32, under MineCLIP's names
    config.json         architecture (ModelConfig.to_dict()), frames, resolution, normalisation,
                        tokenizer, reward defaults, provenance and validation metrics
    README.md           model card: training data, metrics, how to load it
    judge.json          (optional) calibrated thresholds: per task (`tasks`, `mineclip eval --calibrate`)
                        and for free-form commands (`commands`, `bench/assist.py --write-threshold`)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import torch

from .config import ModelConfig
from .mineclip import MineCLIP

FORMAT = "mineclip-artifact"
FORMAT_VERSION = 1
WEIGHTS = "model.safetensors"
CONFIG = "config.json"
CARD = "README.md"
JUDGE = "judge.json"
DEFAULT_WINDOW = 16  # frames per clip (MineDojo paper, sec. 4.2)


class ArtifactError(ValueError):
    """A directory is not a readable MineCLIP artifact."""


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
                          "std": list(cfg.image_std)},
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
  mean {tuple(config['normalisation']['mean'])}, std {tuple(config['normalisation']['std'])}
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


def save_artifact(model: MineCLIP, out_dir: str | os.PathLike, *, source: dict | None = None,
                  training: dict | None = None, window: int = DEFAULT_WINDOW, frame_stride: int = 1,
                  resize: str = "pad", name: str | None = None) -> Path:
    """Write model.safetensors + config.json + README.md into out_dir."""
    from safetensors.torch import save_file

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu").contiguous() for k, v in model.state_dict().items()}
    seen: dict[int, str] = {}
    for k, v in list(state.items()):  # safetensors refuses tensors sharing memory
        ptr = v.untyped_storage().data_ptr()
        if ptr in seen:
            state[k] = v.clone()
        seen.setdefault(ptr, k)
    tmp = out / (WEIGHTS + ".part")
    save_file(state, str(tmp), metadata={"format": FORMAT, "format_version": str(FORMAT_VERSION)})
    os.replace(tmp, out / WEIGHTS)
    source = dict(source or {})
    source.setdefault("out", str(out))
    config = build_config(model, window=window, frame_stride=frame_stride, source=source, training=training,
                          resize=resize)
    config["sha256"] = _sha256(out / WEIGHTS)
    (out / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
    (out / CARD).write_text(model_card(config, name))
    return out


def read_artifact_config(artifact_dir: str | os.PathLike) -> dict:
    """The artifact's config.json, checked for format."""
    d = Path(artifact_dir)
    if not (d / CONFIG).is_file() or not (d / WEIGHTS).is_file():
        found = sorted(p.name for p in d.iterdir()) if d.is_dir() else "no such directory"
        raise ArtifactError(f"{d}: expected an artifact directory with {CONFIG} and {WEIGHTS}, found {found}")
    config = json.loads((d / CONFIG).read_text())
    if config.get("format") != FORMAT:
        raise ArtifactError(f"{d / CONFIG}: expected format {FORMAT!r}, got {config.get('format')!r}")
    if int(config.get("format_version", 0)) > FORMAT_VERSION:
        raise ArtifactError(f"{d / CONFIG}: format_version {config['format_version']} is newer than this "
                            f"library reads ({FORMAT_VERSION}); upgrade mineclip")
    return config


def load_artifact(artifact_dir: str | os.PathLike, device: str | torch.device = "cpu",
                  verify: bool = False) -> MineCLIP:
    """The MineCLIP model of an artifact, in eval mode (reads safetensors + JSON; never unpickles)."""
    from safetensors.torch import load_file

    d = Path(artifact_dir)
    config = read_artifact_config(d)
    if verify and config.get("sha256") and _sha256(d / WEIGHTS) != config["sha256"]:
        raise ArtifactError(f"{d / WEIGHTS}: sha256 does not match config.json (file changed or truncated)")
    try:
        model = MineCLIP(ModelConfig.from_dict(config["architecture"]))
    except (TypeError, ValueError) as e:
        raise ArtifactError(f"{d / 'config.json'}: its architecture does not fit this version: {e}") from e
    state = load_file(str(d / WEIGHTS), device="cpu")
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ArtifactError(f"{d / WEIGHTS}: weights do not match config.json's architecture: "
                            f"missing {missing[:8]}, unexpected {unexpected[:8]}")
    return model.to(device).eval()


def read_judge(artifact_dir: str | os.PathLike) -> dict:
    """Calibrated thresholds saved with the artifact ({} when none)."""
    p = Path(artifact_dir) / JUDGE
    return json.loads(p.read_text()) if p.is_file() else {}


def write_judge(artifact_dir: str | os.PathLike, judge: dict[str, Any]) -> Path:
    """Save calibrated thresholds with the artifact (judge.json)."""
    p = Path(artifact_dir) / JUDGE
    p.write_text(json.dumps(judge, indent=2) + "\n")
    return p
