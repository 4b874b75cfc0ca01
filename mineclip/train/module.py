"""The LightningModule that trains MineCLIP contrastively and validates it by retrieval."""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from typing import Any

import pytorch_lightning as pl
import torch
import torch.distributed as dist

from mineclip.data.reader import meta_groups
from mineclip.model import MineCLIP, ModelConfig, get_config
from mineclip.model.tokenizer import tokenize
from mineclip.model.towers import trim_padding
from mineclip.model.load import checkpoint_kind, load_checkpoint

from .callbacks import NonFiniteLossError, make_checkpoints_atomic
from .loss import (ContrastiveLoss, clip_completion, clip_facts, fact_ids, named_shares, positive_targets, size_ranking_loss,
                   stable_id)
from .minimal_pairs import MODES as MINIMAL_PAIR_MODES
from .minimal_pairs import minimal_pairs as make_minimal_pairs
from .readout import FrameReadout, readout_loss
from .supervision import CRAFTER_FRAME_LABELS, CRAFTER_PHRASEBOOK, FrameLabels, Phrasebook, check_label_set, load_plugin
from .optim import (
    BETAS,
    EPS,
    FINAL_LR,
    LAYER_DECAY,
    PEAK_LR,
    PRETRAINED_LR_MULT,
    WARMUP_STEPS,
    WEIGHT_DECAY,
    OptimizerSettings,
    build_optimizer,
    build_scheduler,
)

FORMAT_VERSION = 1
MONITOR = "val/R@1_mean"
THROUGHPUT_WINDOW = 10  # training steps the samples/s and FLOPs/s are averaged over (logged once it is full)
ALL_PARTS = ("vision", "text", "temporal", "adapter", "logit_scale")
FACTS = 64  # facts kept per clip for `positives: truth` (the default's 6,000 clips hold at most 21)


def init_kind(init: str) -> str:
    """'scratch', 'clip' (an OpenAI CLIP / open_clip file: it initialises the towers) or 'mineclip'
    (any MineCLIP checkpoint `mineclip.model.load` reads: everything is initialised, for fine-tuning)."""
    if init in ("scratch", "", None):
        return "scratch"
    for prefix in ("clip:", "mineclip:"):
        if init.startswith(prefix):
            return prefix[:-1]
    if not os.path.exists(init):
        raise FileNotFoundError(f"init checkpoint {init!r} not found (expected 'scratch', a CLIP .pt or a MineCLIP "
                                "checkpoint)")
    return "clip" if checkpoint_kind(init) == "clip" else "mineclip"


def check_init(config: ModelConfig, kind: str, name: str) -> None:
    """Refuse the paper recipe's trap: partial fine-tuning of towers that were never trained."""
    if kind == "scratch" and config.trainable_blocks >= 0:
        n = config.trainable_blocks
        raise ValueError(
            f"model config {name!r} trains only the last {n} block(s) of each tower (trainable_blocks: {n}), but "
            f"init is 'scratch': the {config.vision.layers - n} vision and {config.text.layers - n} text blocks under "
            "them would stay frozen at random weights. Pass the towers' initialisation, as the paper does "
            "(--model.init clip:/path/to/ViT-B-16.pt, or a MineCLIP checkpoint to fine-tune), or train every "
            "block from scratch (--model.model_overrides '{\"trainable_blocks\": -1}')")


class MineCLIPModule(pl.LightningModule):
    """MineCLIP + symmetric InfoNCE over the global batch + AdamW with layer-wise LR decay.

    model_config / model_overrides: a named config (`mineclip.model.list_configs()`) and nested overrides.
    init: "scratch", a local OpenAI CLIP file (towers initialised, LR x pretrained_lr_mult on them)
    or any MineCLIP checkpoint: a released .pth, a Lightning .ckpt, an artifact (everything
    initialised; fine-tuning). Prefix "clip:" or "mineclip:" to skip auto-detection. A config that
    trains only some blocks (`trainable_blocks` >= 0, as the paper's) needs an init that is not
    "scratch" (`check_init`).
    total_steps: length of the cosine schedule; default: the trainer's estimated stepping batches.
    positives: which clips count as positives of each other in the InfoNCE targets: "caption"
    (identical captions; the default, for templated data where captions repeat in a batch),
    "meta.<field>" (equal metadata field, e.g. "meta.event" or "meta.task_id"), "truth" (a caption
    is a positive of every clip it is true of: the facts in its clip's meta "says" all hold in the
    other clip's meta "holds", as the crafter narrator writes them), or "none" (the paper's one
    positive per clip). With "caption" the loss equals the one-positive loss (identical
    captions embed identically) and only in-batch R@1 counts repeats as hits; a meta field that
    groups different captions changes the loss.
    minimal_pairs: "none", or how the absent thing is drawn ("uniform", "balanced"): each clip's caption
    with one statement about the scene made false (a thing in view that is not, the wrong time of
    day; `mineclip.train.minimal_pairs`, from the narrator's meta "says" and "holds") joins the
    texts as a negative of that clip alone (NegCLIP's hard negatives): the model is asked to tell
    "a cow nearby" from "a zombie is coming" on the same clip. "events": the event the caption states
    is swapped instead, for one another clip of the batch shows ("crafting a wooden sword" ->
    "crafting a wooden pickaxe").
    graded_targets: CLIP4MC's remedy for a reward that cannot tell near from far (Jiang et al. 2024):
    each clip's video->text target keeps its meta `completion` (how fully the clip shows what its
    caption names, in [0, 1]; the crafter narrator: 1 / tiles to the nearest thing the caption names
    in view) of the positive mass and spreads the rest over every caption (`ContrastiveLoss`).
    completion_floor: with `graded_targets`, the least share a clip keeps (completion c is taken as
    floor + (1 - floor) * c), so that a clip of a far target still pulls to its caption.
    size_ranking: weight of an auxiliary loss (0: off), CLIP4MC's task-completion degree as an order:
    for each caption that names kinds as seen or acts on one (meta `named`), and two clips of the
    batch where those kinds fill at least twice as much of one's last frame as of the other's
    (meta `shares`, from the renderer's semantic map: first-person clips), the caption's logit for
    the fuller clip is asked to exceed its logit for the other (`loss.size_ranking_loss`).
    frame_readout: weight of an auxiliary loss (0: off): a linear read-out of each frame's feature
    predicts what the simulator says the frame shows (kinds in view and next to the player, day,
    the inventory bar; `mineclip.train.readout`), from the clips' `frame_labels` metadata
    (`mineclip play clips` writes it); the read-out is not part of the model or its exports.
    frame_readout_labels: which labels the read-out predicts (`mineclip.train.supervision.LABEL_SETS`):
    "all", "inventory" (the bar: what the programmatic tasks' events change) or "scene" (kinds in
    view and next to the player, day).
    frame_labels / phrasebook: the world's plug-ins that the read-out and the minimal pairs read
    ("module:attribute", imported only when that loss is on; `mineclip.train.supervision`): by
    default the crafter suite's frame labels and narrator's phrases.
    compile: torch.compile the frame and text towers in place (parameter names unchanged, so
    checkpoints and exports are the same). Costs about half a minute of compiling per fit (and
    once more for validation); on a 2-core CPU the tiny model's step is then 1.07-1.2x faster
    (`python bench/train.py --compile`). Off by default: tests and short runs would not recoup it.
    """

    def __init__(
        self,
        model_config: str = "mineclip_attn",
        model_overrides: dict | None = None,
        init: str = "scratch",
        lr: float = PEAK_LR,
        final_lr: float = FINAL_LR,
        warmup_steps: int = WARMUP_STEPS,
        weight_decay: float = WEIGHT_DECAY,
        layer_decay: float = LAYER_DECAY,
        pretrained_lr_mult: float = PRETRAINED_LR_MULT,
        betas: tuple[float, float] = BETAS,
        eps: float = EPS,
        total_steps: int | None = None,
        positives: str = "caption",
        gather_with_grad: bool = True,
        minimal_pairs: str = "none",
        graded_targets: bool = False,
        completion_floor: float = 0.0,
        size_ranking: float = 0.0,
        frame_readout: float = 0.0,
        frame_readout_labels: str = "all",
        frame_labels: str = CRAFTER_FRAME_LABELS,
        phrasebook: str = CRAFTER_PHRASEBOOK,
        compile: bool = False,
    ):
        super().__init__()
        self.save_hyperparameters()
        config = get_config(model_config, **(model_overrides or {}))
        self.init_kind = init_kind(init)
        check_init(config, self.init_kind, model_config)
        self.model = self._build_model(config, init, self.init_kind)
        self.pretrained = {"scratch": (), "clip": ("vision", "text"), "mineclip": ALL_PARTS}[self.init_kind]
        self.optim_settings = OptimizerSettings(
            lr=lr, final_lr=final_lr, warmup_steps=warmup_steps, weight_decay=weight_decay, layer_decay=layer_decay,
            pretrained_lr_mult=pretrained_lr_mult, betas=tuple(betas), eps=eps,
        )
        if positives not in ("none", "caption", "truth") and not positives.startswith("meta."):
            raise ValueError(f"positives must be 'none', 'caption', 'truth' or 'meta.<field>', got {positives!r}")
        self.positives = positives
        if minimal_pairs not in ("none", *MINIMAL_PAIR_MODES):
            raise ValueError(f"minimal_pairs must be 'none' or one of {MINIMAL_PAIR_MODES}, got {minimal_pairs!r}")
        self.loss_fn = ContrastiveLoss(multi_positive=positives != "none", gather_with_grad=gather_with_grad)
        if not frame_readout >= 0:
            raise ValueError(f"frame_readout is the weight of the frame read-out's loss, >= 0, got {frame_readout}")
        if not size_ranking >= 0:
            raise ValueError(f"size_ranking is the weight of the size-ranking loss, >= 0, got {size_ranking}")
        if not 0.0 <= completion_floor <= 1.0:
            raise ValueError(f"completion_floor is the least share of its target a clip keeps, in [0, 1], got {completion_floor}")
        check_label_set(frame_readout_labels)  # also when off, so that a typo is not silently ignored
        # built after the model, and only when used: the model's initial weights stay those of its seed
        self.readout = None
        if frame_readout > 0:
            spec = load_plugin(frame_labels, FrameLabels, "frame_labels")
            self.readout = FrameReadout(config.embed_dim, frame_readout_labels, spec)
        self.phrasebook = load_plugin(phrasebook, Phrasebook, "phrasebook") if minimal_pairs != "none" else None
        self.skipped: Counter = Counter()
        self.best_metrics: dict[str, float] = {}
        self._val_outputs: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []

    @staticmethod
    def _build_model(config: ModelConfig, init: str, kind: str) -> MineCLIP:
        path = init.split(":", 1)[1] if init.startswith(("clip:", "mineclip:")) else init
        if kind == "scratch":
            return MineCLIP(config)
        if kind == "clip":
            from mineclip.model.clip_init import load_openai_clip  # lazy: only when asked

            model = MineCLIP(config)
            load_openai_clip(model, path)
            model.set_trainable(config.trainable_blocks)
            return model
        model = load_checkpoint(path, config=config).model
        model.set_trainable(config.trainable_blocks)
        return model

    # ------------------------------------------------------------------ hooks
    def setup(self, stage: str) -> None:
        make_checkpoints_atomic(self.trainer)
        if self.hparams.compile and stage == "fit":
            self.model.vision.compile()
            self.model.text.compile()

    def configure_callbacks(self):
        from pytorch_lightning.callbacks import ThroughputMonitor

        # samples/s per device and, on GPUs whose peak Lightning knows, MFU (from flops_per_batch)
        return [ThroughputMonitor(batch_size_fn=lambda batch: len(batch["video"]), window_size=THROUGHPUT_WINDOW)]

    @property
    def flops_per_batch(self) -> int | None:
        """FLOPs of one training step (forward and backward) on the batch shape last seen, counted on
        a meta-device copy of the model (no memory, no compute); None before the first batch."""
        shape = getattr(self, "_batch_shape", None)
        if shape is None:
            return None
        cache = self.__dict__.setdefault("_flops", {})
        if shape not in cache:
            cache[shape] = count_step_flops(self.model.config, *shape)
        return cache[shape]

    def configure_optimizers(self):
        optimizer = build_optimizer(self.model, self.optim_settings, self.pretrained)
        if self.readout is not None:  # full LR, no weight decay; `names` one per parameter, as param_groups
            named = list(self.readout.named_parameters())
            optimizer.add_param_group({"params": [p for _, p in named], "names": [f"readout.{n}" for n, _ in named],
                                       "lr_scale": 1.0, "weight_decay": 0.0, "lr": self.optim_settings.lr})
        total = self.hparams.total_steps or self.trainer.estimated_stepping_batches
        if not total or not math.isfinite(total):
            raise ValueError("cannot size the cosine schedule: set model.total_steps or trainer.max_steps / max_epochs")
        scheduler = build_scheduler(optimizer, int(total), self.optim_settings)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step", "frequency": 1}}

    def embed(self, batch: dict, video: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Normalised (adapted video, text) embeddings [B, D] of a batch (of its video features when given)."""
        video = self.model.encode_video(batch["video"]) if video is None else video
        text = self.model.encode_text(batch["tokens"])
        return self.model.embed_pair(video, text)

    def embed_with_pairs(self, batch: dict, video: torch.Tensor | None = None
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(video, text, minimal-pair text) embeddings [B, D]: the captions and their minimal pairs
        (`minimal_pairs`) go through the text tower together."""
        rng = random.Random(torch.initial_seed() * 1_000_003 + self.global_step * 1009 + self.global_rank)
        pairs = make_minimal_pairs(self.phrasebook, batch["text"], batch["meta"], rng, self.hparams.minimal_pairs)
        tokens = torch.cat([batch["tokens"], tokenize(pairs, self.model.config.text.context_length).to(batch["tokens"].device)])
        video = self.model.encode_video(batch["video"]) if video is None else video
        video, text = self.model.embed_pair(video, self.model.encode_text(tokens))
        b = len(video)
        return video, text[:b], text[b:]

    def positive_keys(self, batch: dict) -> torch.Tensor | None:
        """[B, K] rows whose equality marks positives (see `positives`), or None for one positive."""
        if self.positives in ("none", "truth"):
            return None
        if self.positives == "caption":
            return batch["tokens"]
        field = self.positives.removeprefix("meta.")
        digests = [stable_id(g) for g in meta_groups(batch["meta"], field)]
        return torch.tensor(digests, dtype=torch.long, device=batch["tokens"].device)[:, None]

    def facts(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor] | None:
        """(says, holds) fact ids [B, FACTS] of each clip for `positives: truth`, else None."""
        if self.positives != "truth":
            return None
        says, holds = clip_facts(batch["meta"], "positives: truth")
        device = batch["tokens"].device
        return fact_ids(says, FACTS).to(device), fact_ids(holds, FACTS).to(device)

    def logit_scale(self) -> torch.Tensor:
        # Clamped in the forward too: under ZeRO the optimiser's master copy is what steps.
        return self.model.logit_scale.clamp(max=self.model.config.logit_scale_max)

    def training_step(self, batch: dict, batch_idx: int) -> torch.Tensor:
        # texts per step: the captions, and with minimal pairs as many again
        texts = len(batch["tokens"]) * (1 if self.hparams.minimal_pairs == "none" else 2)
        self._batch_shape = (*batch["video"].shape[:2], int(trim_padding(batch["tokens"]).shape[1]), texts)
        hard = video = aux = None
        if self.readout is not None:  # the frame features feed both the aggregator and the read-out
            frames = self.model.encode_frames(batch["video"])
            video = self.model.aggregate(frames)
            aux = readout_loss(self.readout, frames, batch["meta"])
        if self.hparams.minimal_pairs != "none":
            v, t, hard = self.embed_with_pairs(batch, video)
        else:
            v, t = self.embed(batch, video)
        completion = None
        if self.hparams.graded_targets:
            floor = self.hparams.completion_floor
            completion = floor + (1 - floor) * clip_completion(batch["meta"]).to(v.device)
        out = self.loss_fn(v, t, self.logit_scale(), keys=self.positive_keys(batch), facts=self.facts(batch),
                           hard_text=hard, completion=completion)
        loss = out["loss"]
        b = len(v)
        if self.hparams.size_ranking > 0:  # local clips only: the order needs no other rank's metadata
            ranking = size_ranking_loss(self.logit_scale().exp() * t @ v.t(), named_shares(batch["meta"]))
            self.log("train/size_ranking_loss", ranking.detach(), batch_size=b)
            loss = loss + self.hparams.size_ranking * ranking
        if aux is not None:
            self.log("train/readout_loss", aux, batch_size=b)
            loss = loss + self.hparams.frame_readout * aux
        self._check_finite(loss, batch_idx)
        self.log("train/loss", loss, prog_bar=True, batch_size=b, sync_dist=False)
        self.log("train/R@1_in_batch", self._in_batch_r1(out), batch_size=b)
        self.log("train/logit_scale", self.logit_scale().detach().exp(), batch_size=b)
        self.log("train/lr", self.trainer.optimizers[0].param_groups[0]["lr"], batch_size=b)
        self.skipped.update(batch.get("skipped") or {})
        self.log("train/skipped", float(sum(self.skipped.values())), batch_size=b, reduce_fx="max")
        for reason, n in self.skipped.items():
            self.log(f"train/skipped_{reason}", float(n), batch_size=b, reduce_fx="max")
        return loss

    @staticmethod
    def _in_batch_r1(out: dict) -> torch.Tensor:
        """Share of local videos whose top-scoring text is a positive."""
        logits, targets = out["logits_v2t"], out["targets"]
        top = logits.argmax(dim=1)
        if targets.ndim == 2:
            return (targets.gather(1, top[:, None]).squeeze(1) > 0).float().mean()
        return (top == targets).float().mean()

    def _check_finite(self, loss: torch.Tensor, batch_idx: int) -> None:
        bad = (~torch.isfinite(loss.detach())).float()
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(bad, op=dist.ReduceOp.MAX)  # every rank stops together
        if bad.item() > 0:
            raise NonFiniteLossError(
                f"training loss is {loss.item()} at global step {self.global_step} (epoch {self.current_epoch}, "
                f"batch {batch_idx}); stopping before the update. Checkpoints on disk are untouched; "
                "resume from the last good one with --ckpt_path last and a lower LR, or check the data."
            )

    def on_train_batch_end(self, outputs, batch, batch_idx) -> None:
        self.model.clamp_logit_scale()

    # ------------------------------------------------------------- validation
    def on_validation_epoch_start(self) -> None:
        self._val_outputs = []

    def validation_step(self, batch: dict, batch_idx: int) -> None:
        v, t = self.embed(batch)
        self._val_outputs.append((v.float().cpu(), t.float().cpu(), batch["tokens"].cpu()))

    def on_validation_epoch_end(self) -> None:
        from mineclip.evaluate.retrieval import retrieval_metrics

        if self._val_outputs:
            v, t, tok = (torch.cat(x) for x in zip(*self._val_outputs))
        else:
            d = self.model.config.embed_dim
            v, t, tok = torch.zeros(0, d), torch.zeros(0, d), torch.zeros(0, self.model.config.text.context_length, dtype=torch.long)
        v, t, tok = (_gather_uneven(x, self.device) for x in (v, t, tok))
        self._val_outputs = []
        if len(v) == 0:
            return
        groups = torch.unique(tok, dim=0, return_inverse=True)[1]
        metrics = retrieval_metrics(v, t, groups=groups)
        scale = self.logit_scale().detach().exp().cpu()
        logits = scale * v @ t.t()
        targets = positive_targets(groups[:, None], groups[:, None])
        val_loss = (torch.nn.functional.cross_entropy(logits, targets) + torch.nn.functional.cross_entropy(logits.t(), targets)) / 2
        logged = {f"val/{k}": float(x) for k, x in metrics.items()}
        logged[MONITOR] = (metrics["v2t_R@1"] + metrics["t2v_R@1"]) / 2
        logged["val/loss"] = float(val_loss)
        logged["val/num_samples"] = float(len(v))
        for k, x in logged.items():
            self.log(k, x, prog_bar=k == MONITOR, sync_dist=False, rank_zero_only=False)
        if not self.trainer.sanity_checking and logged[MONITOR] >= self.best_metrics.get(MONITOR, -1.0):
            self.best_metrics = {k.removeprefix("val/"): x for k, x in logged.items()} | {"epoch": self.current_epoch, "step": self.global_step}

    # ------------------------------------------------------------ checkpoints
    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        dm = getattr(self.trainer, "datamodule", None) if self._trainer is not None else None
        data = {k: _jsonable(getattr(dm, k, None)) for k in ("train_urls", "val_urls", "num_frames", "batch_size", "epoch_length")} if dm else {}
        checkpoint["mineclip"] = {
            "model_config": self.model.config.to_dict(),
            "format_version": FORMAT_VERSION,
            "init": self.hparams.init,
            "data": data,
            "metrics": dict(self.best_metrics),
            "skipped": dict(self.skipped),
        }

    def on_load_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        meta = checkpoint.get("mineclip") or {}
        self.best_metrics = dict(meta.get("metrics") or {})
        self.skipped = Counter(meta.get("skipped") or {})


def count_step_flops(config: ModelConfig, batch: int, frames: int, tokens: int, texts: int | None = None) -> int:
    """FLOPs of a training step of MineCLIP (forward, contrastive logits, backward of what trains)
    for `batch` clips of `frames` frames and `texts` (default: `batch`) captions of `tokens` positions."""
    from lightning_fabric.utilities.throughput import measure_flops

    with torch.inference_mode(False), torch.enable_grad():  # the monitor asks from inside inference mode
        return _count_step_flops(config, batch, frames, tokens, texts or batch, measure_flops)


def _count_step_flops(config: ModelConfig, batch: int, frames: int, tokens: int, texts: int, measure_flops) -> int:
    with torch.device("meta"):
        model = MineCLIP(config)
    h, w = config.vision.resolution

    def step():
        video = model.aggregate(model.encode_frames(torch.empty(batch, frames, 3, h, w, dtype=torch.uint8,
                                                                device="meta")))
        text = model.text(torch.empty(texts, tokens, dtype=torch.long, device="meta"))
        v, t = model.embed_pair(video, text)
        return model.logit_scale.exp() * v @ t.t()

    return int(measure_flops(model, step, loss_fn=torch.Tensor.sum))


def _jsonable(x):
    if isinstance(x, (tuple, list)):
        return [_jsonable(i) for i in x]
    return x if x is None or isinstance(x, (str, int, float, bool, dict)) else str(x)


def _gather_uneven(x: torch.Tensor, device: torch.device) -> torch.Tensor:
    """Concatenate tensors of different lengths from all ranks (validation shards split unevenly)."""
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return x
    world = dist.get_world_size()
    backend_device = device if dist.get_backend() == "nccl" else torch.device("cpu")
    n = torch.tensor([len(x)], device=backend_device)
    sizes = [torch.zeros_like(n) for _ in range(world)]
    dist.all_gather(sizes, n)
    longest = int(max(s.item() for s in sizes))
    padded = torch.zeros((longest, *x.shape[1:]), dtype=x.dtype, device=backend_device)
    padded[: len(x)] = x.to(backend_device)
    out = [torch.zeros_like(padded) for _ in range(world)]
    dist.all_gather(out, padded)
    return torch.cat([o[: int(s.item())] for o, s in zip(out, sizes)]).cpu()
