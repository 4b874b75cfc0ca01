"""`mineclip train` / `python train.py`: the Lightning CLI over MineCLIPModule and the clip data modules.

    mineclip train fit --config tiny                    # a packaged config, by name
    mineclip train fit --config tiny --config my.yaml --trainer.max_epochs 2
    mineclip train fit --print_config --config mineclip_attn

`--config` takes a packaged name (`mineclip.train.configs.list_configs()`) or a path; configs that
build on others (`defaults:`) are composed first (mineclip.train.configs). Logs go to
`trainer.default_root_dir` (TensorBoard `tb/`, CSV `csv/`), checkpoints to its `checkpoints/`
unless `checkpoint.dirpath` says otherwise.
"""

from __future__ import annotations

import json
import os
import sys

from pytorch_lightning.callbacks import ModelCheckpoint
from pytorch_lightning.cli import LightningCLI, SaveConfigCallback
from pytorch_lightning.loggers import CSVLogger, TensorBoardLogger

from mineclip.data.datamodule import ClipDataModule

from . import strategies  # noqa: F401  (registers the "mineclip_deepspeed" strategy names)
from .callbacks import LastCheckpoint
from .configs import ConfigError, load_config, needs_composing
from .module import MONITOR, MineCLIPModule
from .optim import GRADIENT_CLIP

CONFIG_NAME = "config.yaml"
TRAINER_DEFAULTS = {"gradient_clip_val": GRADIENT_CLIP, "log_every_n_steps": 10}


class SaveConfigBesideCheckpoints(SaveConfigCallback):
    """Save the resolved config in the log folder and in the checkpoint folder."""

    def save_config(self, trainer, pl_module, stage: str) -> None:
        ckpt = trainer.checkpoint_callback
        if not trainer.is_global_zero or ckpt is None or not ckpt.dirpath:
            return
        os.makedirs(ckpt.dirpath, exist_ok=True)
        self.parser.save(self.config, os.path.join(ckpt.dirpath, CONFIG_NAME), skip_none=False, overwrite=True, multifile=False)


class MineCLIPCLI(LightningCLI):
    """`checkpoint.*`: the best k by val/R@1_mean (at validation). `last_checkpoint.*`: last.ckpt,
    refreshed every `last_checkpoint.every_n_train_steps` and at the end of each epoch, in the same folder
    (Lightning defers a monitored checkpoint until its metric exists, so `last` needs its own).
    Unless set, the checkpoint folder is `<trainer.default_root_dir>/checkpoints` and the loggers are
    TensorBoard (`tb/`) and CSV (`csv/`) under `trainer.default_root_dir`."""

    def add_arguments_to_parser(self, parser) -> None:
        parser.add_lightning_class_args(ModelCheckpoint, "checkpoint")
        parser.add_lightning_class_args(LastCheckpoint, "last_checkpoint")
        parser.link_arguments("checkpoint.dirpath", "last_checkpoint.dirpath")
        parser.set_defaults(
            {
                "checkpoint.monitor": MONITOR,
                "checkpoint.mode": "max",
                "checkpoint.save_top_k": 3,
                "checkpoint.save_last": False,
                "checkpoint.filename": "epoch{epoch:03d}-step{step:07d}",
                "checkpoint.auto_insert_metric_name": False,
                "last_checkpoint.monitor": None,
                "last_checkpoint.save_top_k": 0,
                "last_checkpoint.save_last": True,
                "last_checkpoint.every_n_train_steps": 100,
            }
        )

    def _root_dir(self) -> str:
        config = self.config.get(str(self.subcommand), self.config)
        return config.trainer.default_root_dir or os.getcwd()

    def before_instantiate_classes(self) -> None:
        config = self.config.get(str(self.subcommand), self.config)
        if config.checkpoint.dirpath is None:
            config.checkpoint.dirpath = config.last_checkpoint.dirpath = os.path.join(self._root_dir(), "checkpoints")

    def instantiate_trainer(self, **kwargs):
        trainer = self._get(self.config_init, "trainer", default={})
        if trainer.get("logger") in (None, True) and "logger" not in kwargs:
            root = self._root_dir()
            kwargs["logger"] = [TensorBoardLogger(root, name="tb"), CSVLogger(root, name="csv")]
        return super().instantiate_trainer(**kwargs)


def build_cli(args: list[str] | dict | None, run: bool = True) -> MineCLIPCLI:
    """The CLI over `args`: command-line words (with a subcommand when `run`), or a config mapping."""
    return MineCLIPCLI(
        MineCLIPModule,
        ClipDataModule,
        subclass_mode_data=True,
        args=args,
        run=run,
        trainer_defaults=TRAINER_DEFAULTS,
        save_config_callback=SaveConfigBesideCheckpoints,
        save_config_kwargs={"overwrite": True},
        parser_kwargs={"prog": "mineclip train", "description": "Train MineCLIP contrastively (Lightning CLI)."},
        auto_configure_optimizers=False,
    )


def compose_config_args(argv: list[str]) -> list[str]:
    """`--config NAME` (a packaged config) or `--config FILE` with `defaults:` -> the composed mapping,
    as LightningCLI takes it (JSON is YAML); other words unchanged."""
    out, i = [], 0
    while i < len(argv):
        word = argv[i]
        value = None
        if word == "--config" and i + 1 < len(argv):
            value, i = argv[i + 1], i + 2
        elif word.startswith("--config="):
            value, i = word.split("=", 1)[1], i + 1
        else:
            out.append(word)
            i += 1
            continue
        out.append(f"--config={json.dumps(load_config(value))}" if needs_composing(value) else f"--config={value}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Run `fit`, `validate`, ... as LightningCLI does; returns 0 on success, 1 on a failed run."""
    from mineclip.allocator import keep_freed_memory
    from mineclip.data.cache import NoClipsError

    from .callbacks import NonFiniteLossError

    argv = list(sys.argv[1:] if argv is None else argv)
    # the arguments go in explicitly; LightningCLI warns when the process's own argv (`mineclip
    # train ...`, `mineclip pipeline`, pytest's) is non-empty besides them
    outer, sys.argv = sys.argv, sys.argv[:1]
    keep_freed_memory()  # ~1.2x the CPU step: no mmap/munmap of activation buffers per step
    try:
        cli = build_cli(compose_config_args(argv))
    except (ConfigError, NonFiniteLossError, NoClipsError) as e:
        print(f"mineclip train: {e}", file=sys.stderr)
        return 1
    except SystemExit as e:  # --help, parse errors
        return int(e.code or 0) if not isinstance(e.code, str) else 2
    finally:
        sys.argv = outer
    trainer = cli.trainer
    ckpts = trainer.checkpoint_callbacks
    if trainer.is_global_zero:
        print(f"done: {trainer.global_step} steps, epoch {trainer.current_epoch}", end="")
        if ckpts and ckpts[0].dirpath:
            best = ckpts[0].best_model_path or "-"
            last = next((c.last_model_path for c in ckpts if c.last_model_path), "-")
            print(f"; checkpoints in {ckpts[0].dirpath} (best {best}, last {last})", end="")
        print()
    return 0
