"""`mineclip rl`: PPO with the learned reward vs. the success bonus vs. the manual dense reward.

    mineclip rl --model ARTIFACT --tasks harvest_wood,eat_plant,find_cow --seeds 3 --steps 3000 --out DIR

For each task, reward variant and seed it trains a PPO policy on the frozen frame encoder's
features, evaluates its success rate on held-out worlds, and writes DIR/table.md, table.json and
curves.png (table 1 of the MineDojo paper). Finished runs (DIR/runs/...) are reused on a re-run.
`--view first_person` trains and evaluates on the player's eyes with the first-person controls
(`mineclip.sim.view`); the symbolic input stays the map's local window in both views.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from mineclip.cli import count, error_message
from mineclip.sim.view import DEFAULT_VIEW, VIEWS
from mineclip.tasks.negatives import POLICIES

from .envs import VARIANTS
from .features import OBS
from .runs import UNTRAINED
from .train import PROXIMITY_REWARD_MODES, REWARD_MODES, PPOSettings, RunConfig

DEFAULT_TASKS = "harvest_wood,eat_plant,find_cow"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mineclip rl", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--model", required=True,
                   help=f"artifact directory (mineclip export), or {UNTRAINED!r}: an untrained tiny model "
                        "(for smoke runs; its reward is meaningless)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--tasks", default=DEFAULT_TASKS, help="comma-separated task ids (mineclip tasks list)")
    p.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated reward variants")
    p.add_argument("--seeds", type=int, default=3, help="number of seeds (FIRST..FIRST+N-1)")
    p.add_argument("--first-seed", type=int, default=0, metavar="FIRST",
                   help="the first seed: more seeds for a study already run go into the same --out (its table "
                        "then holds them all)")
    p.add_argument("--steps", type=int, default=RunConfig.steps, help="PPO env steps per run")
    p.add_argument("--num-envs", type=int, default=RunConfig.num_envs, help="envs per run (one batch to encode)")
    p.add_argument("--eval-episodes", type=int, default=RunConfig.eval_episodes, help="episodes per policy")
    p.add_argument("--eval-deterministic", action="store_true", help="greedy actions when evaluating")
    p.add_argument("--obs", default=RunConfig.obs, choices=OBS,
                   help="policy input: the frozen frame features, the symbols MineDojo's agent had besides them "
                        "(local view one-hot, inventory, position, facing; mineclip.rl.symbolic), or both. "
                        "The learned reward is computed from the frames whatever the input")
    p.add_argument("--stack", type=int, default=RunConfig.stack, help="frames whose features form the input")
    p.add_argument("--reward-mode", default=RunConfig.reward_mode, choices=REWARD_MODES,
                   help="learned reward formula: the paper's Direct, Direct-Naive, Delta of the task's prompt, "
                        "progress (Direct's gain over the episode's best so far: nothing for lingering), or "
                        "how near the task's target looks to the Percipient's head: proximity pays +1 per tile "
                        "nearer and -1 per tile away, proximity-progress +1 per tile nearer than ever before "
                        "in the episode, like the dense reward (try --reward-coef 0.05, the dense reward's 10/200)")
    p.add_argument("--reward-coef", type=float, default=RunConfig.reward_coef,
                   help="learned reward weight per step (the success bonus is 1)")
    p.add_argument("--negatives", default=RunConfig.negatives, metavar="|".join(POLICIES) + "|FILE",
                   help="learned reward negatives: the suite's other prompts, or without special cases of the "
                        "task's prompt (distinct: e.g. 'chop a tree near water' for 'chop a tree'); scene adds "
                        "the narrator's event-free captions, as the pipeline's judge does")
    p.add_argument("--max-steps", type=int, default=None, help="episode length (default: the task's)")
    p.add_argument("--worlds", type=int, default=RunConfig.worlds,
                   help="world seeds per run for training (and, disjoint, for evaluation)")
    p.add_argument("--n-steps", type=int, default=PPOSettings.n_steps, help="PPO rollout length per env")
    p.add_argument("--batch-size", type=int, default=PPOSettings.batch_size, help="PPO minibatch size")
    p.add_argument("--n-epochs", type=int, default=PPOSettings.n_epochs, help="PPO epochs per rollout")
    p.add_argument("--lr", type=float, default=PPOSettings.learning_rate, help="PPO learning rate")
    p.add_argument("--ent-coef", type=float, default=PPOSettings.ent_coef, help="PPO entropy bonus coefficient")
    p.add_argument("--view", default=DEFAULT_VIEW, choices=VIEWS,
                   help="what the frames show and the policy's controls: from above (crafter's moves) or the "
                        "player's eyes (turn, step forward and back); the frame features, the learned reward and "
                        "the evaluation see it, the symbolic input stays the map's local window")
    p.add_argument("--view-net", default=PPOSettings.view_net, choices=["conv", "mlp"],
                   help="with symbolic input: a small convolution over the local window of symbols, or the "
                        "one-hot window flat into the MLP (not the frame's --view)")
    p.add_argument("--workers", type=count, default=2, help="runs trained in parallel (processes, 1 thread each)")
    p.add_argument("--force", action="store_true", help="re-run runs that already have a result")
    p.add_argument("--report-only", action="store_true", help="only rebuild the table from DIR/runs")
    return p


def run_configs(args: argparse.Namespace, artifact: str) -> list[RunConfig]:
    """The runs `mineclip rl` trains for its arguments (checked without reading the artifact)."""
    if args.seeds < 1 or args.first_seed < 0:
        raise ValueError(f"expected --seeds >= 1 and --first-seed >= 0, got {args.seeds} and {args.first_seed}")
    tasks = [t for t in args.tasks.split(",") if t]
    variants = [v for v in args.variants.split(",") if v]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise ValueError(f"unknown reward variant(s) {bad}; expected some of {sorted(VARIANTS)}")
    from mineclip.tasks import get_task
    from mineclip.tasks.negatives import is_policy

    for t in tasks:
        get_task(t)  # fail before any training on a typo
    if not is_policy(args.negatives):
        raise ValueError(f"--negatives must be one of {POLICIES} or a file of prompts, got {args.negatives!r}")
    ppo = PPOSettings(n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
                      learning_rate=args.lr, ent_coef=args.ent_coef, view_net=args.view_net)
    configs = [RunConfig(task=t, variant=v, seed=s, artifact=artifact, steps=args.steps, num_envs=args.num_envs,
                         stack=args.stack, obs=args.obs, reward_mode=args.reward_mode, reward_coef=args.reward_coef,
                         negatives=args.negatives,
                         eval_episodes=args.eval_episodes, eval_deterministic=args.eval_deterministic,
                         max_steps=args.max_steps, worlds=args.worlds, ppo=ppo, view=args.view)
               for s in range(args.first_seed, args.first_seed + args.seeds) for t in tasks for v in variants]
    return configs


def check_learned_reward(configs: list[RunConfig], artifact: str) -> None:
    """Build the proximity reward of every task that trains with it: an artifact with no head, or a
    target its head cannot see, fails here, before training."""
    from .train import learned_reward, reward_model

    for cfg in {c.task: c for c in configs if c.variant == "mineclip"
                and c.reward_mode in PROXIMITY_REWARD_MODES}.values():
        learned_reward(cfg, reward_model(artifact))


def _commands_stored(out: Path) -> list[str]:
    """The commands that ran the runs in `out`, in order (one per line of `command.txt`: a study extended
    with `--first-seed` holds two)."""
    stored = out / "command.txt"
    return [line for line in stored.read_text().splitlines() if line.strip()] if stored.is_file() else []


def _commands_that_ran(out: Path) -> list[str] | None:
    """The commands stored with the runs in `out`, if they name every task found there: runs copied in
    from other folders were not made by them, and the report's own command then describes them."""
    commands = _commands_stored(out)
    if not commands:
        return None
    ran = {t for c in commands for t in build_parser().parse_known_args(shlex.split(c)[2:])[0].tasks.split(",")}
    found = [d.name for d in (out / "runs").iterdir() if d.is_dir()] if (out / "runs").is_dir() else []
    return commands if set(found) <= ran else None


def main(argv: list[str] | None = None) -> int:
    from .table import markdown, write_report
    from .runs import UNTRAINED, artifact_meta, run_all, untrained_artifact, untrained_artifact_path

    args = build_parser().parse_args(argv)
    out = Path(args.out)
    if not args.report_only and args.model != UNTRAINED:
        # every run loads the artifact (its frame features or reward): the checkpoint dispatcher tells a path
        # that is no checkpoint before a pool of runs fails on it one by one
        from mineclip.model.load import checkpoint_kind
        from mineclip.model.safe_load import CheckpointError

        try:
            checkpoint_kind(args.model)
        except CheckpointError as e:
            print(f"mineclip rl: --model: {e} (or {UNTRAINED})", file=sys.stderr)
            return 2
    artifact = untrained_artifact_path(out) if args.model == UNTRAINED else args.model
    if not args.report_only:
        try:  # a typo in a task or setting is refused before OUT (and the untrained artifact) is written
            configs = run_configs(args, artifact)
        except (ValueError, KeyError) as e:
            print(f"mineclip rl: {error_message(e)}", file=sys.stderr)
            return 2
    out.mkdir(parents=True, exist_ok=True)
    if args.model == UNTRAINED:
        untrained_artifact(out)
    command = "mineclip rl " + shlex.join(sys.argv[2:] if argv is None else argv)
    meta = {"command": command, **artifact_meta(artifact)}
    if args.report_only:  # the table's commands are the ones that ran its runs, if they ran them all
        commands = _commands_that_ran(out) or [command]
    else:  # runs already here (e.g. seeds 0-4 before `--first-seed 5`): the table names both commands
        earlier = _commands_stored(out) if (out / "runs").is_dir() else []  # read before this command's runs
        commands = [c for c in earlier if c != command] + [command]
        meta["view"] = args.view
        try:
            check_learned_reward(configs, artifact)
        except (ValueError, KeyError) as e:
            print(f"mineclip rl: {error_message(e)}", file=sys.stderr)
            return 2
        print(f"{len(configs)} runs, {args.steps:,} steps each, {args.workers} worker(s); artifact {artifact}")
        done = run_all(configs, out, args.workers, args.force)
        meta["wall time"] = (f"{done.seconds / 60:.1f} min for {len(configs) - done.reused} runs on "
                             f"{args.workers} worker(s)")
        for cfg, err in done.failures:
            print(f"FAILED {cfg.task}/{cfg.variant}/seed{cfg.seed}: {type(err).__name__}: {err}", file=sys.stderr)
    meta["command"] = "; then ".join(commands)
    try:
        summary = write_report(out, meta)
    except FileNotFoundError as e:
        print(f"mineclip rl: {e}", file=sys.stderr)
        return 1
    (out / "command.txt").write_text("\n".join(commands) + "\n")
    print(markdown(summary, meta))
    print(f"table: {out / 'table.md'}  json: {out / 'table.json'}  curves: {out / 'curves.png'}")
    return 1 if not args.report_only and done.failures else 0


if __name__ == "__main__":
    sys.exit(main())
