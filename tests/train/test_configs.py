import os

import pytest

from mineclip.train.cli import build_cli
from mineclip.train.module import MineCLIPModule

from .conftest import MICRO

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFIGS = sorted(f for f in os.listdir(os.path.join(ROOT, "configs")) if f.endswith(".yaml"))


def test_every_paper_and_setting_config_is_present():
    assert {"tiny.yaml", "overfit.yaml", "mineclip_attn.yaml", "mineclip_avg.yaml", "single_gpu.yaml", "one_node.yaml", "multi_node.yaml"} <= set(CONFIGS)


@pytest.mark.parametrize("name", CONFIGS)
def test_config_parses_and_builds_trainer_model_and_data(name, tmp_path):
    import json

    cli = build_cli(
        ["--config", os.path.join(ROOT, "configs", name),
         # build on this CPU machine with a small model; the file's own values are checked below
         "--trainer.accelerator", "cpu", "--trainer.devices", "1", "--trainer.num_nodes", "1",
         "--model.model_overrides", json.dumps(MICRO), "--checkpoint.dirpath", str(tmp_path),
         "--trainer.logger", "false"],
        run=False,
    )
    assert isinstance(cli.model, MineCLIPModule)
    assert cli.datamodule.batch_size > 0
    raw = cli.parser.parse_args(["--config", os.path.join(ROOT, "configs", name)])
    if name.startswith("mineclip_"):
        assert raw.trainer.devices == 8 and raw.data.init_args.batch_size == 64 and raw.data.init_args.num_frames == 16
        assert list(raw.data.init_args.resolution) == [160, 256] and raw.trainer.precision in ("bf16-mixed", "16-mixed")
        assert raw.trainer.strategy["class_path"].endswith("DeepSpeedStrategy") and raw.trainer.strategy["init_args"]["stage"] == 2
        assert raw.model.model_config == name.removesuffix(".yaml")
        assert (raw.model.lr, raw.model.final_lr, raw.model.warmup_steps) == (1.5e-4, 1e-5, 500)


def test_paper_model_is_built_at_full_size_once():
    module = MineCLIPModule("mineclip_avg")
    assert module.model.num_parameters() == 150_118_402
