"""Cost of the MineCLIP reward per environment step, as a multiple of encoding the step's frames, in
float32 and bfloat16; and how far the bf16 reward is from the float32 one.

    python bench/reward.py [--models tiny,mineclip_attn] [--envs 1,8] [--rounds 40] [--threads 1]
                           [--model ARTIFACT] [--trajectories FILE.jsonl|VIDEO ...] [--uncached]

For each model, env count N and precision, measured in one run with the two interleaved call by
call (the median of each is printed):
  encode  RewardModel.frame_features on the N frames of a step (uint8 [N, 160, 256, 3], as an
          environment gives them): one frame's encoding, batched over the envs;
  step    RewardStream.step on the same frames: the encoding above, plus the cached window's
          aggregation, the scoring against the prompts and the reward;
  x       step / encode: 1.0 would be a reward that costs nothing beyond encoding its frame.
With --uncached, also the cost without the cache (every env's whole window encoded each step, then
scored), timed after the others. Random weights for the named configs (timings do not depend on them).

Reward difference: the largest |reward_bf16 - reward_fp32| (and |P_bf16 - P_fp32|) per step over a
short random trajectory, scored by the streaming reward, for each model; with --model, also for
that artifact, on random frames and on --trajectories (a labels JSONL of the task-suite format,
or video files / frame folders).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from datetime import date

import numpy as np
import torch

from mineclip.model import build_model
from mineclip.model.precision import bf16_supported
from mineclip.reward import RewardModel

NEG = ["drink water from the lake", "hunt a cow", "place a crafting table", "find a sandy beach"]
PRECISIONS = ("fp32", "bf16")


def interleaved(fns: dict, rounds: int) -> dict:
    """Median seconds per call of each function, calling them in turn `rounds` times (after one warm-up
    round), so that a busy spell on a shared machine hits all of them alike."""
    times = {k: [] for k in fns}
    for r in range(rounds + 1):
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn(r)
            if r:
                times[k].append(time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def bench(model, envs: int, rounds: int, uncached: bool, window: int = 16) -> dict:
    """ms per call of encode / step (and uncached) for each precision, on one model."""
    h, w = model.config.vision.resolution
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (rounds + window + 2, envs, h, w, 3), dtype=np.uint8)
    out = {}
    for prec in PRECISIONS:
        fns = {}
        rm = RewardModel(model, window=window, precision=prec)
        fn = rm.reward_fn("chop a tree", NEG)
        stream = fn.stream(envs)
        stream.reset(frames[0])
        fns[f"{prec} encode"] = lambda r, rm=rm: rm.frame_features(frames[1 + r])
        fns[f"{prec} step"] = lambda r, s=stream: s.step(frames[1 + r])
        if uncached:
            video = torch.from_numpy(frames).permute(1, 0, 4, 2, 3)  # [N, T, 3, H, W]

            def full(r, rm=rm, fn=fn, video=video):
                with torch.inference_mode():
                    feats = rm.model.encode_images(video[:, r : r + window].flatten(0, 1), rm.dtype)
                    fn._score(feats.view(envs, window, -1))

        for k, v in interleaved(fns, rounds).items():
            out[k] = 1e3 * v
        if uncached:  # apart: its cache-flushing 16-frame forwards would slow the encode that follows them
            out[f"{prec} uncached"] = 1e3 * interleaved({"uncached": full}, max(2, rounds // 4))["uncached"]
    return out


def reward_difference(rm32: RewardModel, rm16: RewardModel, frames: np.ndarray) -> tuple[float, float]:
    """Largest |reward| and |P| difference per step, bf16 vs fp32, over one trajectory (streaming)."""
    per = []
    for rm in (rm32, rm16):
        s = rm.reward_fn("chop a tree", NEG).stream(1)
        outs = [s.reset(frames[:1])] + [s.step(frames[i : i + 1]) for i in range(1, len(frames))]
        per.append((np.array([float(o.reward[0]) for o in outs[1:]]), np.array([float(o.prob[0]) for o in outs])))
    return float(np.abs(per[0][0] - per[1][0]).max()), float(np.abs(per[0][1] - per[1][1]).max())


def trajectory_frames(paths: list[str], limit: int) -> list[tuple[str, np.ndarray]]:
    from pathlib import Path

    from mineclip.evaluate.trajectories import load_media, read_labels

    out = []
    for p in paths:
        if p.endswith(".jsonl"):
            trajs, _, _ = read_labels(p, lookup=False)
            out += [(t.id, load_media(t.source)) for t in trajs[:limit]]
        else:
            out.append((Path(p).name, load_media(Path(p))))
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default="tiny,mineclip_attn")
    p.add_argument("--envs", default="1,8")
    p.add_argument("--rounds", type=int, default=40,
                   help="timed calls of each kind (full-size models: a tenth, at least 3)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (1: stable timings on a shared machine)")
    p.add_argument("--uncached", action="store_true", help="also time re-encoding the whole window every step")
    p.add_argument("--model", default=None, help="an artifact: also its bf16 vs fp32 reward difference")
    p.add_argument("--trajectories", nargs="*", default=[],
                   help="with --model: a labels JSONL (its first --limit trajectories) or videos / frame folders")
    p.add_argument("--limit", type=int, default=20, help="trajectories read from a labels JSONL")
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    print(f"{date.today()}: torch {torch.__version__}, {args.threads} thread(s), "
          f"{platform.processor() or platform.machine()}, CPU capability {torch.backends.cpu.get_cpu_capability()}, "
          f"native bf16: {bf16_supported('cpu')}")
    print("ms per step for all envs; x = step / encode of the same frames (medians of interleaved calls)")
    head = f"{'model':<14} {'envs':>4}"
    for prec in PRECISIONS:
        head += f" | {prec + ' encode':>12} {'step':>8} {'x':>5}" + (f" {'uncached':>9}" if args.uncached else "")
    print(head + " | max |dr| bf16-fp32  max |dP|")
    for name in args.models.split(","):
        torch.manual_seed(0)
        model = build_model(name).eval()
        h, w = model.config.vision.resolution
        rounds = args.rounds if name.startswith(("tiny", "micro")) else max(3, args.rounds // 10)
        traj = np.random.default_rng(1).integers(0, 256, (24, h, w, 3), dtype=np.uint8)
        dr, dp = reward_difference(RewardModel(model, precision="fp32"), RewardModel(model, precision="bf16"), traj)
        for n in (int(e) for e in args.envs.split(",")):
            r = bench(model, n, rounds, args.uncached)
            line = f"{name:<14} {n:>4}"
            for prec in PRECISIONS:
                enc, step = r[f"{prec} encode"], r[f"{prec} step"]
                line += f" | {enc:>12.2f} {step:>8.2f} {step / enc:>5.2f}"
                if args.uncached:
                    line += f" {r[f'{prec} uncached']:>9.1f}"
            print(line + f" | {dr:>18.2e} {dp:>10.2e}", flush=True)
    if args.model:
        rm32, rm16 = RewardModel.load(args.model, precision="fp32"), RewardModel.load(args.model, precision="bf16")
        h, w = rm32.resolution
        rand = np.random.default_rng(1).integers(0, 256, (24, h, w, 3), dtype=np.uint8)
        items = [("random frames", rand)] + trajectory_frames(args.trajectories, args.limit)
        worst = (0.0, 0.0, "")
        for label, frames in items:
            dr, dp = reward_difference(rm32, rm16, frames)
            worst = max(worst, (dr, dp, label))
        print(f"{args.model}: {len(items)} trajectories ({sum(len(f) for _, f in items)} frames), window "
              f"{rm32.window}: max |reward bf16 - fp32| per step {worst[0]:.2e} ({worst[2]}), max |dP| {worst[1]:.2e}")


if __name__ == "__main__":
    main()
