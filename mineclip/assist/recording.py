"""Interactions as data (as CraftAssist recorded its chats): each carried-out command becomes a
labelled trajectory in the suite's JSON-lines format (what `eval.py` reads; prompt = the command,
label = the simulator's ground truth) with its video, and a successful one also gets a transcript
beside its video, so `mineclip data build DIR/videos` turns it into training clips."""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path

import numpy as np

from mineclip.tasks.world_seeds import split_of

FPS = 8
LABELS = "trajectories.jsonl"


class Recorder:
    """Appends one trajectory per finished command to `out/trajectories.jsonl` (+ videos/)."""

    def __init__(self, out_dir: str | os.PathLike):
        self.out = Path(out_dir)
        # ids unique across sessions writing to one folder (the same world seed twice, two chats)
        self.tag = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"
        (self.out / "videos").mkdir(parents=True, exist_ok=True)
        self.path = self.out / LABELS

    def write(self, rid: str, prompt: str, frames: np.ndarray, label: bool, world_seed: int, actions: list[int],
              events: list[list[str]], success: list[bool], extra: dict) -> dict:
        """Write a command's video (and transcript when it succeeded) and its JSON line; return the record."""
        from mineclip.data.video import write_mp4

        video = f"videos/{rid}.mp4"
        write_mp4(self.out / video, frames, fps=FPS, preset="superfast", threads=1)
        if label:
            cue = [{"start": 0.0, "end": round(len(frames) / FPS, 3), "text": prompt}]
            (self.out / "videos" / f"{rid}.json").write_text(json.dumps(cue))
        record = {"id": rid, "prompt": prompt, "video": video, "label": int(label), "labeller": "success-criterion",
                  "seed": int(world_seed), "world_seed": int(world_seed), "agent": "assist", "noise": 0.0, "fps": FPS,
                  "num_steps": len(actions), "actions": actions, "events": events, "success": success,
                  "split": split_of(world_seed), **extra}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        return record
