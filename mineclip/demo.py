"""`mineclip demo`: build the full-size and tiny models, print their sizes, score prompts against a clip."""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from .model import MineCLIP, get_config

DEFAULT_PROMPTS = ["chop a tree", "hunt a cow", "drink water", "fight a zombie", "place a crafting table"]
DEFAULT_CONFIGS = ["mineclip_attn", "mineclip_avg", "tiny_attn", "tiny_avg"]


def crafter_clip(num_frames: int, seed: int = 0) -> np.ndarray:
    """uint8 [T, 160, 256, 3] from crafter with random actions."""
    import crafter

    env = crafter.Env(size=(256, 160), seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.reset()]
    while len(frames) < num_frames:
        obs, _, done, _ = env.step(int(rng.integers(env.action_space.n)))
        frames.append(env.reset() if done else obs)
    return np.stack(frames)


def synthetic_clip(num_frames: int, seed: int = 0) -> np.ndarray:
    """uint8 [T, 160, 256, 3]: a green field with a square drifting across it."""
    rng = np.random.default_rng(seed)
    frames = np.zeros((num_frames, 160, 256, 3), np.uint8)
    frames[..., 1] = 120
    frames[:, :60] = (110, 160, 230)  # sky
    frames += rng.integers(0, 20, frames.shape, dtype=np.uint8)
    for t in range(num_frames):
        x = 20 + 12 * t
        frames[t, 80:120, x:x + 30] = (120, 80, 40)
    return frames


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mineclip demo", description=__doc__)
    p.add_argument("--configs", default=",".join(DEFAULT_CONFIGS),
                   help=f"comma-separated model configs (default: {','.join(DEFAULT_CONFIGS)})")
    p.add_argument("--frames", type=int, default=16, help="frames in the clip (1-32, default 16)")
    p.add_argument("--source", choices=["crafter", "synthetic"], default="crafter",
                   help="where the clip comes from (crafter falls back to synthetic if unavailable)")
    p.add_argument("--prompts", nargs="+", default=DEFAULT_PROMPTS, help="prompts to score against the clip")
    p.add_argument("--seed", type=int, default=0, help="seed of the random weights and of the clip")
    return p


def main(argv: list[str] | None = None) -> int:
    p = build_parser()
    args = p.parse_args(argv)
    if not 1 <= args.frames <= 32:
        p.error(f"--frames must be 1 to 32, got {args.frames}")

    torch.manual_seed(args.seed)
    source = args.source
    try:
        frames = crafter_clip(args.frames, args.seed) if source == "crafter" else synthetic_clip(args.frames, args.seed)
    except ImportError:
        source, frames = "synthetic", synthetic_clip(args.frames, args.seed)
    video = torch.from_numpy(frames).permute(0, 3, 1, 2).unsqueeze(0).contiguous()  # [1, T, 3, 160, 256]
    print(f"clip: {source}, {args.frames} frames of 160x256; weights: random init (no checkpoint loaded)\n")

    rows = []
    for name in [c.strip() for c in args.configs.split(",") if c.strip()]:
        t0 = time.perf_counter()
        model = MineCLIP(get_config(name)).eval()
        with torch.no_grad():
            logits = model.score(model.encode_video(video), model.encode_text(args.prompts))
        probs = logits.softmax(dim=-1)[0]
        rows.append((name, model.num_parameters(), model.num_parameters(trainable_only=True),
                     time.perf_counter() - t0, probs))
        print(f"{name:<14} {model.num_parameters():>12,} parameters ({model.num_parameters(True):,} trainable), "
              f"built and scored in {rows[-1][3]:.1f}s")
        for prompt, prob in sorted(zip(args.prompts, probs.tolist()), key=lambda x: -x[1]):
            print(f"    {prob:6.3f}  {prompt}")
        del model
    print(f"\nsummary: {len(rows)} models scored {len(args.prompts)} prompts against one {args.frames}-frame clip; "
          "probabilities are from untrained weights (load one with mineclip.load_official for real scores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
