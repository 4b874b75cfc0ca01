"""The packaged training configs: found by name, composed from their pieces, each builds a trainer,
a model and data; the paper recipe refuses to train frozen random towers."""

import json

import pytest

from mineclip.train.cli import build_cli, compose_config_args
from mineclip.train.configs import ConfigError, config_root, list_configs, load_config
from mineclip.train.module import MineCLIPModule

from helpers.models import MICRO

CONFIGS = list_configs()


def test_every_paper_and_setting_config_is_packaged():
    assert {"tiny", "overfit", "mineclip_attn", "mineclip_avg", "single_gpu", "one_node", "multi_node"} <= set(CONFIGS)
    assert {"cpu", "gpu", "ddp", "deepspeed"} <= set(list_configs("trainer"))
    assert {"default", "quick", "large"} <= set(list_configs("pipeline"))


@pytest.mark.parametrize("name", CONFIGS)
def test_config_parses_and_builds_trainer_model_and_data(name, tmp_path):
    cli = build_cli(
        compose_config_args(["--config", name])
        # build on this CPU machine with a small model; the file's own values are checked below
        + ["--trainer.accelerator", "cpu", "--trainer.devices", "1", "--trainer.num_nodes", "1",
           "--model.model_config", MICRO, "--checkpoint.dirpath", str(tmp_path), "--trainer.logger", "false"],
        run=False,
    )
    assert isinstance(cli.model, MineCLIPModule)
    assert cli.datamodule.batch_size > 0
    raw = cli.parser.parse_args(compose_config_args(["--config", name]))
    if name.startswith("mineclip_"):
        assert raw.trainer.devices == 8 and raw.data.init_args.batch_size == 64 and raw.data.init_args.num_frames == 16
        assert list(raw.data.init_args.resolution) == [160, 256] and raw.trainer.precision in ("bf16-mixed", "16-mixed")
        assert raw.trainer.strategy["class_path"].endswith("DeepSpeedStrategy") and raw.trainer.strategy["init_args"]["stage"] == 2
        assert raw.model.model_config == name
        assert (raw.model.lr, raw.model.final_lr, raw.model.warmup_steps) == (1.5e-4, 1e-5, 500)
        assert raw.trainer.default_root_dir == f"runs/{name}"


def test_configs_are_composed_from_their_defaults_and_later_ones_win(tmp_path):
    avg, attn = load_config("mineclip_avg"), load_config("mineclip_attn")
    assert avg["model"]["model_config"] == "mineclip_avg" and attn["model"]["model_config"] == "mineclip_attn"
    assert avg["trainer"]["strategy"] == attn["trainer"]["strategy"]  # from trainer/deepspeed
    assert avg["trainer"]["precision"] == "bf16-mixed"  # from trainer/gpu, under trainer/deepspeed
    mine = tmp_path / "mine.yaml"
    mine.write_text("defaults: [tiny]\ntrainer: {max_epochs: 1}\ndata: {init_args: {batch_size: 4}}\n")
    config = load_config(str(mine))
    assert config["trainer"]["max_epochs"] == 1 and config["data"]["init_args"]["batch_size"] == 4
    assert config["data"]["init_args"]["cache_train"] is True and config["model"]["model_config"] == "tiny"
    assert config["data"]["init_args"]["text_dropout"] == 0.15  # the crafter narration's word dropout (data/crafter)
    # a path given to --config is composed the same way; a plain LightningCLI file passes through
    (composed,) = compose_config_args(["--config", str(mine)])
    assert json.loads(composed.split("=", 1)[1]) == config
    plain = tmp_path / "plain.yaml"
    plain.write_text("trainer: {max_epochs: 3}\n")
    assert compose_config_args([f"--config={plain}"]) == [f"--config={plain}"]
    loop = tmp_path / "loop.yaml"
    loop.write_text("defaults: [loop.yaml]\n")
    with pytest.raises(ConfigError, match="includes itself"):
        load_config(str(loop))
    with pytest.raises(ConfigError, match="not found"):
        load_config("tinny")
    assert (config_root() / "tiny.yaml").is_file()


def test_partial_fine_tuning_from_scratch_is_refused_with_what_to_pass():
    # the paper's configs train the last 2 blocks of each tower: from random towers that would
    # leave 10 random blocks frozen under them
    with pytest.raises(ValueError, match=r"clip:/path/to/ViT-B-16.pt.*trainable_blocks.*-1"):
        MineCLIPModule("mineclip_avg")
    with pytest.raises(ValueError, match="trains only the last 1 block"):
        MineCLIPModule(MICRO, {"trainable_blocks": 1})
    assert MineCLIPModule(MICRO, {"trainable_blocks": -1}).model.config.trainable_blocks == -1


def test_paper_model_is_built_at_full_size_once():
    module = MineCLIPModule("mineclip_avg", {"trainable_blocks": -1})
    assert module.model.num_parameters() == 150_118_402
