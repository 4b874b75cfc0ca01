import json
import os

import pytest
import pytorch_lightning as pl
import torch

from mineclip.train.callbacks import AtomicCheckpointIO, NonFiniteLossError
from mineclip.train.cli import main
from mineclip.train.data import CachedBatchesDataModule
from mineclip.model import get_config
from mineclip.train.module import MineCLIPModule

from helpers.models import MICRO
from helpers.training import data_args



def cli_args(config: str, shards: dict, tmp_path, *extra: str) -> list[str]:
    return [
        "fit", "--config", config,
        "--model.model_config", MICRO,
        "--data", "mineclip.data.datamodule.ClipDataModule",
        "--data.init_args", json.dumps(data_args(shards)),
        "--checkpoint.dirpath", str(tmp_path / "ckpt"),
        "--trainer.default_root_dir", str(tmp_path),
        "--trainer.logger", "[{class_path: CSVLogger, init_args: {save_dir: %s}}, {class_path: TensorBoardLogger, init_args: {save_dir: %s}}]" % (tmp_path, tmp_path),
        *extra,
    ]


def test_fast_dev_run_of_the_tiny_config_on_shards(shards, tmp_path, recwarn):
    assert main(cli_args("tiny", shards, tmp_path, "--trainer.fast_dev_run", "2")) == 0
    assert not [w for w in recwarn if "args parameter" in str(w.message)]  # pytest's own argv is hidden


def test_training_shards_that_name_nothing_end_the_run_with_one_line(tmp_path, capsys):
    # it was a traceback through Lightning's fit, the reason at its bottom
    missing = str(tmp_path / "nowhere" / "train-{000000..000001}.tar")
    argv = ["fit", "--config", "tiny", "--model.model_config", MICRO, "--data.init_args.train_urls", missing,
            "--trainer.max_epochs", "1", "--trainer.default_root_dir", str(tmp_path / "run")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"mineclip train: no readable clips in training source(s): {missing}" in err
    assert "Traceback" not in err


def test_tiny_config_trains_validates_and_writes_checkpoints_logs_and_config(shards, tmp_path):
    # 3 epochs of 4 steps: enough for one full window of the throughput monitor
    rc = main(cli_args("tiny", shards, tmp_path, "--trainer.max_epochs", "3", "--model.warmup_steps", "2", "--trainer.log_every_n_steps", "1"))
    assert rc == 0
    ckpt_dir = tmp_path / "ckpt"
    names = sorted(os.listdir(ckpt_dir))
    assert "last.ckpt" in names and "config.yaml" in names
    assert not [n for n in names if ".tmp" in n]
    ckpt = torch.load(ckpt_dir / "last.ckpt", weights_only=False)
    meta = ckpt["mineclip"]
    assert meta["format_version"] == 1 and meta["model_config"]["embed_dim"] == get_config(MICRO).embed_dim
    assert meta["data"]["train_urls"] and set(meta["metrics"]) >= {"R@1_mean", "v2t_R@1", "t2v_R@5", "v2t_median_rank"}
    assert all(k.startswith("model.") for k in ckpt["state_dict"])
    csv = next(p for p in tmp_path.rglob("metrics.csv"))
    header = csv.read_text().splitlines()[0]
    for col in ("train/loss", "train/lr", "train/logit_scale", "train/device/samples_per_sec", "train/device/flops_per_sec",
                "train/skipped", "val/R@1_mean", "val/t2v_R@10"):
        assert col in header, col
    assert list(tmp_path.rglob("events.out.tfevents*"))


def test_step_flops_are_counted_on_a_meta_copy_and_grow_with_the_batch():
    from mineclip.train.module import count_step_flops

    cfg = get_config(MICRO)
    small, large = count_step_flops(cfg, 2, 4, 16), count_step_flops(cfg, 4, 4, 16)
    assert small > 0 and large == pytest.approx(2 * small, rel=0.05)
    frozen = get_config(MICRO, trainable_blocks=0)
    assert count_step_flops(frozen, 2, 4, 16) < small  # no weight gradients for frozen blocks
    assert small < count_step_flops(cfg, 2, 4, 16, texts=4) < large  # minimal pairs: twice the texts


def test_last_ckpt_holds_the_final_step_when_training_ends_between_two_saves(shards, tmp_path):
    # 2 epochs of 4 steps, last.ckpt every 3 steps: Lightning alone stops at step 6
    rc = main(cli_args("tiny", shards, tmp_path, "--trainer.max_epochs", "2", "--trainer.limit_val_batches", "0",
                       "--checkpoint.monitor", "null", "--checkpoint.save_top_k", "0",
                       "--last_checkpoint.every_n_train_steps", "3"))
    assert rc == 0
    last = torch.load(tmp_path / "ckpt" / "last.ckpt", weights_only=False)
    assert last["global_step"] == 8 and last["epoch"] == 1


def _trainer(tmp_path, **kw):
    defaults = dict(accelerator="cpu", devices=1, logger=False, enable_progress_bar=False, enable_model_summary=False,
                    default_root_dir=tmp_path, limit_val_batches=0, num_sanity_val_steps=0)
    return pl.Trainer(**{**defaults, **kw})


def test_overfitting_two_batches_reaches_in_batch_r1_of_one(shards, tmp_path):
    pl.seed_everything(0)
    module = MineCLIPModule(MICRO, lr=2e-3, final_lr=2e-3, warmup_steps=1, weight_decay=0.0, positives="caption")
    dm = CachedBatchesDataModule(num_batches=2, **data_args(shards, batch_size=6, epoch_length=12))
    stop = _StopWhenMemorised()
    trainer = _trainer(tmp_path, max_epochs=40, enable_checkpointing=False, callbacks=[stop])
    trainer.fit(module, dm)
    assert stop.history[-2:] == [1.0, 1.0], stop.history  # both batches ranked perfectly


class _StopWhenMemorised(pl.Callback):
    def __init__(self):
        self.history: list[float] = []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.history.append(trainer.callback_metrics["train/R@1_in_batch"].item())
        if self.history[-2:] == [1.0, 1.0] and batch_idx == 1:
            trainer.should_stop = True


class _PoisonAt(pl.Callback):
    def __init__(self, step):
        self.step = step

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == self.step:
            with torch.no_grad():
                pl_module.model.logit_scale.fill_(float("nan"))


def test_nan_loss_stops_naming_the_step_and_keeps_the_last_good_checkpoint(shards, tmp_path):
    from pytorch_lightning.callbacks import ModelCheckpoint

    module = MineCLIPModule(MICRO, warmup_steps=1)
    ckpt = ModelCheckpoint(dirpath=tmp_path / "ckpt", save_last=True, every_n_train_steps=1, save_top_k=0)
    trainer = _trainer(tmp_path, max_steps=10, callbacks=[ckpt, _PoisonAt(3)])
    with pytest.raises(NonFiniteLossError, match="global step 3"):
        trainer.fit(module, CachedBatchesDataModule(num_batches=2, **data_args(shards)))
    last = torch.load(tmp_path / "ckpt" / "last.ckpt", weights_only=False)
    assert last["global_step"] == 3
    assert all(torch.isfinite(v).all() for v in last["state_dict"].values())


def test_atomic_checkpoint_io_never_leaves_a_partial_file(tmp_path, monkeypatch):
    path = tmp_path / "last.ckpt"
    io = AtomicCheckpointIO()
    io.save_checkpoint({"step": 1}, path)

    def broken_save(obj, f, *a, **k):
        f.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError):
        io.save_checkpoint({"step": 2}, path)
    monkeypatch.undo()
    assert torch.load(path)["step"] == 1
    assert os.listdir(tmp_path) == ["last.ckpt"]


def test_resume_from_an_epoch_boundary_reproduces_the_uninterrupted_run(shards, tmp_path):
    from pytorch_lightning.callbacks import ModelCheckpoint

    def run(max_epochs, folder, ckpt_path=None):
        pl.seed_everything(0)
        module = MineCLIPModule(MICRO, warmup_steps=2, total_steps=6)
        ckpt = ModelCheckpoint(dirpath=folder, save_last=True, save_top_k=0)
        trainer = _trainer(tmp_path, max_epochs=max_epochs, callbacks=[ckpt])
        trainer.fit(module, CachedBatchesDataModule(num_batches=2, **data_args(shards)), ckpt_path=ckpt_path)
        return module, trainer

    full, full_trainer = run(3, tmp_path / "a")
    run(1, tmp_path / "b")
    resumed, resumed_trainer = run(3, tmp_path / "b", ckpt_path="last")
    assert resumed_trainer.global_step == full_trainer.global_step == 6
    assert resumed_trainer.optimizers[0].param_groups[0]["lr"] == pytest.approx(full_trainer.optimizers[0].param_groups[0]["lr"])
    for (name, a), b in zip(full.state_dict().items(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b, msg=name)
    sa, sb = full_trainer.optimizers[0].state_dict()["state"], resumed_trainer.optimizers[0].state_dict()["state"]
    for k in sa:
        torch.testing.assert_close(sa[k]["exp_avg_sq"], sb[k]["exp_avg_sq"])


@pytest.mark.slow
def test_compiled_towers_train_like_eager_ones_and_keep_parameter_names(shards, tmp_path):
    def fit(compile):
        pl.seed_everything(0)
        module = MineCLIPModule(MICRO, warmup_steps=1, total_steps=2, compile=compile)
        trainer = _trainer(tmp_path, max_steps=2, enable_checkpointing=False)
        trainer.fit(module, CachedBatchesDataModule(num_batches=2, **data_args(shards)))
        return module

    eager, compiled = fit(False), fit(True)
    assert compiled.model.vision._compiled_call_impl is not None  # the towers did run compiled
    assert list(compiled.state_dict()) == list(eager.state_dict())  # checkpoints and exports unchanged
    for (name, a), b in zip(eager.state_dict().items(), compiled.state_dict().values()):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-3, msg=name)  # fused kernels round differently


def test_meta_positives_group_clips_by_event():
    # grouping idle clips by caption instead (each its own group, nearly) was tried on the default
    # pipeline: the model barely learned (mean F1 0.45); clips with no event are one group
    module = MineCLIPModule(MICRO, positives="meta.event")
    texts = ["chop a tree", "punching the tree for wood", "just walking around", "looking around", "x"]
    meta = [{"event": "collect_wood"}, {"event": "collect_wood"}, {"event": None}, {"event": None}, {}]
    keys = module.positive_keys({"text": texts, "meta": meta, "tokens": torch.zeros(5, 77, dtype=torch.long)})[:, 0]
    assert keys[0] == keys[1] and keys[2] == keys[3]
    assert len({int(keys[0]), int(keys[2]), int(keys[4])}) == 3  # a clip without the field is alone


def test_truth_positives_read_the_facts_of_each_clip():
    module = MineCLIPModule(MICRO, positives="truth")
    batch = {"meta": [{"says": ["event:none", "view:cow"], "holds": ["event:none", "view:cow", "time:day"]},
                      {"says": ["event:none"], "holds": ["event:none", "time:day"]}],
             "tokens": torch.zeros(2, 77, dtype=torch.long)}
    assert module.positive_keys(batch) is None
    says, holds = module.facts(batch)
    assert says.shape == holds.shape == (2, 64) and (says[0] != 0).sum() == 2 and (holds[0] != 0).sum() == 3
    with pytest.raises(ValueError, match="'says' and 'holds'"):
        module.facts({"meta": [{"event": None}, {}], "tokens": torch.zeros(2, 77, dtype=torch.long)})
    with pytest.raises(ValueError, match="truth"):
        MineCLIPModule(MICRO, positives="facts")


def test_a_training_step_with_truth_positives_hands_the_facts_to_the_loss(monkeypatch):
    from helpers.training import NUM_FRAMES, RESOLUTION

    from mineclip.model import tokenize

    module = MineCLIPModule(MICRO, positives="truth")
    batch = {"video": torch.zeros(2, NUM_FRAMES, 3, *RESOLUTION, dtype=torch.uint8),
             "tokens": tokenize(["looking around, a cow nearby", "looking around"]),
             "meta": [{"says": ["event:none", "view:cow"], "holds": ["event:none", "view:cow"]},
                      {"says": ["event:none"], "holds": ["event:none"]}]}
    seen = {}

    def record(v, t, scale, keys=None, facts=None, hard_text=None, completion=None):
        seen.update(keys=keys, facts=facts, hard_text=hard_text)
        raise RuntimeError("recorded")

    monkeypatch.setattr(module.loss_fn, "forward", record)
    with pytest.raises(RuntimeError, match="recorded"):
        module.training_step(batch, 0)
    assert seen["keys"] is None and seen["hard_text"] is None
    says, holds = seen["facts"]
    expected = module.facts(batch)
    torch.testing.assert_close(says, expected[0])
    torch.testing.assert_close(holds, expected[1])


def test_a_training_step_with_minimal_pairs_hands_each_clip_its_own_hard_negative(monkeypatch):
    from helpers.training import NUM_FRAMES, RESOLUTION

    from mineclip.model import tokenize

    module = MineCLIPModule(MICRO, positives="meta.event", minimal_pairs="balanced")
    texts = ["looking around, a cow nearby", "chop a tree"]
    batch = {"video": torch.zeros(2, NUM_FRAMES, 3, *RESOLUTION, dtype=torch.uint8), "tokens": tokenize(texts),
             "text": texts,
             "meta": [{"event": None, "says": ["event:none", "view:cow"], "holds": ["event:none", "view:cow", "time:day"]},
                      {"event": "collect_wood", "says": ["event:collect_wood"],
                       "holds": ["event:collect_wood", "time:day", "view:tree"]}]}
    seen = {}

    def record(v, t, scale, keys=None, facts=None, hard_text=None, completion=None):
        seen.update(t=t, hard_text=hard_text)
        raise RuntimeError("recorded")

    monkeypatch.setattr(module.loss_fn, "forward", record)
    with pytest.raises(RuntimeError, match="recorded"):
        module.training_step(batch, 0)
    t, hard = seen["t"], seen["hard_text"]
    assert hard.shape == t.shape and torch.allclose(hard.norm(dim=-1), torch.ones(2))
    torch.testing.assert_close(t, module.embed(batch)[1])  # the captions themselves are embedded as before
    assert not torch.allclose(hard, t, atol=1e-3)
    with pytest.raises(ValueError, match="'says' and 'holds'"):
        module.training_step(batch | {"meta": [{"event": None}, {"event": None}]}, 0)
    with pytest.raises(ValueError, match="minimal_pairs must be"):
        MineCLIPModule(MICRO, minimal_pairs="true")


def test_graded_targets_hand_each_clips_completion_to_the_loss(monkeypatch):
    from helpers.training import NUM_FRAMES, RESOLUTION

    from mineclip.model import tokenize

    module = MineCLIPModule(MICRO, positives="meta.event", graded_targets=True)
    batch = {"video": torch.zeros(2, NUM_FRAMES, 3, *RESOLUTION, dtype=torch.uint8),
             "tokens": tokenize(["a cow far off", "chop a tree"]),
             "meta": [{"event": None, "completion": 0.25}, {"event": "collect_wood", "completion": 1.0}]}
    seen = {}

    def record(v, t, scale, keys=None, facts=None, hard_text=None, completion=None):
        seen.update(completion=completion)
        raise RuntimeError("recorded")

    monkeypatch.setattr(module.loss_fn, "forward", record)
    with pytest.raises(RuntimeError, match="recorded"):
        module.training_step(batch, 0)
    torch.testing.assert_close(seen["completion"], torch.tensor([0.25, 1.0]))
    floored = MineCLIPModule(MICRO, positives="meta.event", graded_targets=True, completion_floor=0.5)
    monkeypatch.setattr(floored.loss_fn, "forward", record)
    with pytest.raises(RuntimeError, match="recorded"):
        floored.training_step(batch, 0)
    torch.testing.assert_close(seen["completion"], torch.tensor([0.625, 1.0]))  # 0.5 + 0.5 * c
    with pytest.raises(ValueError, match="completion_floor"):
        MineCLIPModule(MICRO, graded_targets=True, completion_floor=1.5)
    batch["meta"][1] = {"event": "collect_wood"}  # written before clips recorded it
    with pytest.raises(ValueError, match="graded_targets needs each clip's meta 'completion'.*1 of 2"):
        module.training_step(batch, 0)
    batch["meta"][1] = {"event": "collect_wood", "completion": 4}
    with pytest.raises(ValueError, match=r"must be in \[0, 1\]"):
        module.training_step(batch, 0)
    off = MineCLIPModule(MICRO, positives="meta.event")  # off: clips without the field train as before
    monkeypatch.setattr(off.loss_fn, "forward", record)
    with pytest.raises(RuntimeError, match="recorded"):
        off.training_step(batch, 0)
    assert seen["completion"] is None


def test_size_ranking_adds_its_weighted_loss_to_the_contrastive_one():
    from helpers.training import NUM_FRAMES, RESOLUTION

    from mineclip.model import tokenize

    torch.manual_seed(0)
    batch = {"video": torch.randint(0, 255, (3, NUM_FRAMES, 3, *RESOLUTION), dtype=torch.uint8),
             "tokens": tokenize(["a cow over there", "chop a tree", "it is day"]),
             "meta": [{"named": ["cow"], "shares": {"cow": 0.01}}, {"named": ["tree"], "shares": {"cow": 0.2, "tree": 0.1}},
                      {"named": [], "shares": {"tree": 0.002}}]}
    losses = {}
    for weight in (0.0, 2.0):
        torch.manual_seed(0)
        module = MineCLIPModule(MICRO, positives="none", size_ranking=weight)
        seen = losses.setdefault(weight, {})
        module.log = lambda name, value, **kw: seen.update({name: value})

        def stop(loss, batch_idx):  # the loss as it reaches the update, before any trainer is needed
            seen["total"] = loss
            raise RuntimeError("recorded")

        module._check_finite = stop
        with torch.no_grad(), pytest.raises(RuntimeError, match="recorded"):
            module.training_step(batch, 0)
    ranking = losses[2.0]["train/size_ranking_loss"]
    assert "train/size_ranking_loss" not in losses[0.0] and ranking > 0
    torch.testing.assert_close(losses[2.0]["total"], losses[0.0]["total"] + 2.0 * ranking)
    with pytest.raises(ValueError, match="size_ranking is the weight"):
        MineCLIPModule(MICRO, size_ranking=-1.0)
    module = MineCLIPModule(MICRO, positives="none", size_ranking=1.0)
    module.log = lambda *a, **kw: None
    with pytest.raises(ValueError, match="'named' and 'shares'"):
        module.training_step(batch | {"meta": [{}, {}, {}]}, 0)
