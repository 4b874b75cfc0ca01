"""`mineclip export`: a checkpoint becomes an artifact (or the released layout)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from .artifact import DEFAULT_WINDOW, load_artifact, save_artifact
from .checkpoint import CheckpointError, load_checkpoint


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mineclip export",
        description="Export a Lightning .ckpt, a DeepSpeed checkpoint directory, a released attn.pth/avg.pth "
                    "or an artifact as a reward/judge artifact (model.safetensors + config.json + README.md), "
                    "or with --format official as a released-layout .pth.")
    p.add_argument("checkpoint", help="checkpoint file or directory")
    p.add_argument("--out", required=True, help="artifact directory (or .pth file with --format official)")
    p.add_argument("--format", choices=("artifact", "official"), default="artifact")
    p.add_argument("--config", default=None, help="architecture name when the checkpoint has no model_config")
    p.add_argument("--tag", default=None, help="DeepSpeed tag (default: the 'latest' file)")
    p.add_argument("--name", default=None, help="name in the model card")
    p.add_argument("--resize", choices=("pad", "crop", "stretch"), default="pad",
                   help="how the reward resizes frames of another size (default: pad, keeps the whole view)")
    p.add_argument("--window", type=int, default=DEFAULT_WINDOW,
                   help="frames per reward window (default 16, the paper's; use the training frame count for "
                        "attn models trained on shorter clips, whose later position embeddings never trained)")
    p.add_argument("--frame-stride", type=int, default=1,
                   help="steps between the window's frames (default 1; 2 for a model trained on 8 frames sampled "
                        "from 16-frame clips, so that the reward sees play at the speed training did)")
    p.add_argument("--no-verify", action="store_true", help="skip the reload-and-score check")
    return p


def verify_round_trip(model, out: Path) -> float:
    """Max |score difference| between the model and the artifact reloaded from disk (expected 0.0)."""
    h, w = model.config.vision.resolution
    g = torch.Generator().manual_seed(0)
    video = torch.randint(0, 256, (1, 4, 3, h, w), dtype=torch.uint8, generator=g)
    texts = ["chop a tree", "drink water"]
    reloaded = load_artifact(out)
    with torch.no_grad():
        a = model.eval()(video, texts)
        b = reloaded(video, texts)
    return float((a - b).abs().max())


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    t0 = time.time()
    try:
        loaded = load_checkpoint(args.checkpoint, config=args.config, tag=args.tag)
    except (CheckpointError, FileNotFoundError) as e:
        print(f"mineclip export: {e}", file=sys.stderr)
        return 1
    model = loaded.model
    out = Path(args.out)
    if args.format == "official":
        from mineclip.model.official import save_official

        out.parent.mkdir(parents=True, exist_ok=True)
        save_official(model, out)
        print(f"wrote {out} (released layout) from {loaded.kind} checkpoint {args.checkpoint} in {time.time() - t0:.1f}s")
        return 0
    source = {"kind": loaded.kind, "path": str(Path(args.checkpoint).resolve()), "name": args.name}
    if not 1 <= args.window <= model.max_frames:
        print(f"mineclip export: --window must be 1 to {model.max_frames}, got {args.window}", file=sys.stderr)
        return 2
    if args.frame_stride < 1:
        print(f"mineclip export: --frame-stride must be at least 1, got {args.frame_stride}", file=sys.stderr)
        return 2
    save_artifact(model, out, source=source, training=loaded.info, resize=args.resize, name=args.name,
                  window=args.window, frame_stride=args.frame_stride)
    msg = ""
    if not args.no_verify:
        diff = verify_round_trip(model, out)
        if diff != 0.0:
            print(f"mineclip export: round trip changed scores by up to {diff:g} (expected 0)", file=sys.stderr)
            return 1
        msg = ", round trip verified (scores bit-identical)"
    print(f"wrote artifact {out} ({model.num_parameters():,} parameters, {model.config.temporal.pooling} pooling) "
          f"from {loaded.kind} checkpoint in {time.time() - t0:.1f}s{msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
