"""`mineclip export` / `python export/export.py`: a checkpoint becomes an artifact (or the released layout)."""

from __future__ import annotations

import argparse
import sys

from mineclip.model.artifact import DEFAULT_WINDOW

from .convert import FORMATS, RESIZE


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mineclip export",
        description="Export a Lightning .ckpt, a DeepSpeed checkpoint directory, a released attn.pth/avg.pth "
                    "or an artifact as a reward/judge artifact (model.safetensors + config.json + README.md), "
                    "or with --format official as a released-layout .pth.")
    p.add_argument("checkpoint", help="checkpoint file or directory")
    p.add_argument("--out", required=True, help="artifact directory (or .pth file with --format official)")
    p.add_argument("--format", choices=FORMATS, default="artifact", help="artifact (default) or the released layout")
    p.add_argument("--config", default=None, help="architecture name when the checkpoint has no model_config")
    p.add_argument("--tag", default=None, help="DeepSpeed tag (default: the 'latest' file)")
    p.add_argument("--name", default=None, help="name in the model card")
    p.add_argument("--resize", choices=RESIZE, default="pad",
                   help="how the reward resizes frames of another size (default: pad, keeps the whole view)")
    p.add_argument("--window", type=int, default=DEFAULT_WINDOW,
                   help="frames per reward window (default 16, the paper's; use the training frame count for "
                        "attn models trained on shorter clips, whose later position embeddings never trained)")
    p.add_argument("--frame-stride", type=int, default=1,
                   help="steps between the window's frames (default 1; 2 for a model trained on 8 frames sampled "
                        "from 16-frame clips, so that the reward sees play at the speed training did)")
    p.add_argument("--no-verify", action="store_true", help="skip the reload-and-score check")
    return p


def main(argv: list[str] | None = None) -> int:
    from mineclip.model.safe_load import CheckpointError

    from .convert import ExportError, ExportSettings, ExportSettingsError, export_checkpoint

    a = build_parser().parse_args(argv)
    settings = ExportSettings(a.checkpoint, a.out, a.format, a.config, a.tag, a.name, a.resize, a.window,
                              a.frame_stride, verify=not a.no_verify)
    try:
        r = export_checkpoint(settings)
    except ExportSettingsError as e:
        print(f"mineclip export: {e}", file=sys.stderr)
        return 2
    except (CheckpointError, ExportError, FileNotFoundError) as e:
        print(f"mineclip export: {e}", file=sys.stderr)
        return 1
    if r.format == "official":
        print(f"wrote {r.out} (released layout) from {r.kind} checkpoint {a.checkpoint} in {r.seconds:.1f}s")
        return 0
    verified = "" if r.max_score_diff is None else ", round trip verified (scores bit-identical)"
    print(f"wrote artifact {r.out} ({r.parameters:,} parameters, {r.pooling} pooling) from {r.kind} checkpoint "
          f"in {r.seconds:.1f}s{verified}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
