"""Where each judged prompt lands among the narrator's events, in the text encoder alone: per task
of the built-in default's evaluation set (or the --task given), the narrated events whose phrases
the prompt's embedding is nearest (mean cosine similarity, `mineclip.evaluate.prompts`), per model.
A prompt nearest another event's captions than the one that decides its success ("hunt a cow" by
"found a cow") is rewarded on the wrong windows before any frame is seen (docs/quality.md).

    python bench/prompts.py --model runs/default/artifact --model runs/default-seed7/artifact
    python bench/prompts.py --model runs/default/artifact --task hunt_cow --task combat_zombie --top 6
"""

from __future__ import annotations

import argparse

import torch

from mineclip.evaluate.prompts import prompt_neighbours


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", action="append", required=True, help="artifact directory (repeatable)")
    p.add_argument("--task", action="append", help="task id (repeatable; default: the default preset's evaluation set)")
    p.add_argument("--top", type=int, default=4, help="events shown per prompt and model")
    args = p.parse_args()
    torch.set_num_threads(min(2, torch.get_num_threads()))

    from mineclip import RewardModel
    from mineclip.pipeline.presets import load_preset
    from mineclip.play.narrate import EVENTS
    from mineclip.tasks import get_task

    tasks = args.task or list(load_preset("default").evalset.tasks)
    prompts = {t: get_task(t).prompt for t in tasks}
    for model in args.model:
        near = prompt_neighbours(RewardModel.load(model).model, list(prompts.values()), EVENTS)
        print(f"\n{model}")
        for t, prompt in prompts.items():
            cells = ", ".join(f"{e} {s:.2f}" for e, s in near[prompt][:args.top])
            print(f"  {t:<20} {prompt!r:<40} {cells}")


if __name__ == "__main__":
    main()
