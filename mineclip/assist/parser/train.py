"""Training the parser on generated pairs and the crowd's train split, as CraftAssist trained on
generations and prompts (the hand-written set and the crowd's test split are never trained on, the
validation split only by a final fit that asks for it), and measuring it on held-out generated
pairs, the crowd's validation split and the hand-written set."""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch
from torch import nn

from ..crowd import load_crowd
from ..generate import generate_pairs
from ..semantic_frame import TAGS, flatten, tags_of
from .encoder import EncoderEnsemble, EncoderTraining, encoder_steps, train_encoder
from .infer import LoadedParser, save_parser
from .metrics import parse_metrics
from .model import PAD, UNK, Parser, ParserConfig
from .step import optimiser_step


@dataclass
class ParserTraining:
    """What `train_parser` does. The defaults train one network (about 8.5 minutes on one CPU thread); the packaged
    parser is `members=3, seed=0`, three of them."""

    examples: int = 20_000  # generated training pairs
    crowd_repeat: int = 3  # passes over the crowd's train split per pass over the generated pairs (0: none)
    crowd_splits: tuple[str, ...] = ("train",)  # crowd splits trained on: "train", and "validation" for a final fit
    test_examples: int = 2_000  # generated pairs of another seed, those seen in training removed
    epochs: int = 8
    batch_size: int = 64
    lr: float = 2e-3
    seed: int = 0
    oov: float = 0.2  # share of slot words replaced by made-up words in generation
    unk_prob: float = 0.15  # word dropout to <unk> during training
    min_count: int = 2  # words seen fewer times are <unk>
    dim: int = 64  # word and character n-gram features per word, each
    hidden: int = 96  # GRU units per direction
    kind_weight: float = 0.0  # class weights (count / mean count) ** -kind_weight on the dialogue and action types (0: none)
    members: int = 1  # networks of the ensemble, member k trained with seed + k (its own generated pairs and weights)
    # a pretrained sentence encoder fine-tuned on member 0's pairs and mixed in at this weight (0: none; the
    # packaged parser: 0.5, with encoder_members=3), `encoder.EncoderTraining`'s recipe
    encoder_weight: float = 0.0
    encoder_tag_weight: float | None = None  # its share of the tags (None: encoder_weight; the packaged: 1.0)
    encoder_epochs: int = 2
    encoder_members: int = 1  # encoders fine-tuned (encoder k with seed + k) and averaged (the packaged: 3)
    encoder_steps: int | None = None  # stop its fine-tuning early (tests)
    threads: int = 1  # one thread: a small GRU is 20x slower when two threads fight other jobs for 2 cores
    progress: bool = True

    def __post_init__(self):
        small = {k: v for k, v in (("dim", self.dim), ("hidden", self.hidden)) if v < 1}
        if small:
            raise ValueError(f"expected a positive network size, got {small}")
        if self.encoder_epochs < 1:
            raise ValueError(f"the encoder trains for at least one epoch, got {self.encoder_epochs}")
        if self.encoder_members < 1:
            raise ValueError(f"an ensemble of encoders needs at least one member, got {self.encoder_members}")
        if not 0.0 <= self.encoder_weight <= 1.0:
            raise ValueError(f"the encoder's weight in the mixture is in [0, 1] (0: no encoder), got {self.encoder_weight}")
        if self.encoder_tag_weight is not None and not 0.0 <= self.encoder_tag_weight <= 1.0:
            raise ValueError(f"the encoder's share of the tags is in [0, 1], got {self.encoder_tag_weight}")
        unknown = [x for x in self.crowd_splits if x not in ("train", "validation")]
        if unknown or not self.crowd_splits:
            raise ValueError(f"expected crowd splits among 'train' and 'validation' (the test split is never trained "
                             f"on), got {list(self.crowd_splits)}")


def build_vocab(pairs: list[dict], min_count: int) -> list[str]:
    """<pad>, <unk> and the words seen at least `min_count` times."""
    counts = Counter(w for p in pairs for w in p["words"])
    return [PAD, UNK] + sorted(w for w, c in counts.items() if c >= min_count)


def _labels(parser: Parser, pair: dict) -> tuple[list[int], dict[str, int]]:
    """Tag ids per word and class ids per field of one pair."""
    frame = flatten(pair["action_dict"])
    tag_index = {tag: i for i, tag in enumerate(parser.config.tags)}
    tags = [tag_index[t] for t in tags_of(frame.spans, len(pair["words"]))]
    if not pair.get("spans_known", True):  # spans no one annotated: the tagger learns nothing from them
        tags = [-100] * len(tags)
    return tags, {k: v.index(frame.get(k)) for k, v in parser.config.classes.items()}


def _targets(labels: list[tuple[list[int], dict[str, int]]]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    t = max(len(tags) for tags, _ in labels)
    tags = torch.tensor([tg + [-100] * (t - len(tg)) for tg, _ in labels], dtype=torch.long)
    classes = {k: torch.tensor([c[k] for _, c in labels], dtype=torch.long) for k in labels[0][1]}
    return tags, classes


def evaluate_parser(parser: LoadedParser, pairs: list[dict], batch_size: int = 256) -> dict:
    """Exact match and per-field accuracy of a parser on (text, action_dict) pairs."""
    predicted = []
    for i in range(0, len(pairs), batch_size):
        predicted += [p.action_dict for p in parser.parse_many([q["text"] for q in pairs[i:i + batch_size]])]
    return parse_metrics([p["action_dict"] for p in pairs], predicted)


def held_out_generated(n: int, seed: int, oov: float, seen: set[str]) -> list[dict]:
    """Generated pairs of another seed whose text the training set does not hold."""
    out: list[dict] = []
    offset = 0
    while len(out) < n:
        batch = generate_pairs(n, seed=seed + 1_000_003 + offset, oov=oov)
        out += [p for p in batch if p["text"].lower().rstrip(".!?") not in seen]
        offset += 1
    return out[:n]


def crowd_training(s: ParserTraining) -> list[dict]:
    """The crowd pairs `s` trains on: its `crowd_splits` (never the test split), none if `crowd_repeat` is 0."""
    if s.crowd_repeat <= 0:
        return []
    return [p for split in dict.fromkeys(s.crowd_splits) for p in load_crowd(split)]


def training_pairs(s: ParserTraining) -> tuple[list[dict], list[dict], list[dict]]:
    """(generated pairs, the crowd pairs, what one epoch passes over: the generated pairs and
    `crowd_repeat` passes over the crowd's)."""
    generated = generate_pairs(s.examples, seed=s.seed, oov=s.oov)
    crowd = crowd_training(s)
    return generated, crowd, generated + crowd * s.crowd_repeat


def _class_weights(net: Parser, labels: list[tuple[list[int], dict[str, int]]], power: float
                   ) -> dict[str, torch.Tensor | None]:
    """Per-class loss weights of the kind heads, (count / mean count) ** -power (classes never seen: 1)."""
    out: dict[str, torch.Tensor | None] = {k: None for k in net.config.classes}
    if power <= 0:
        return out
    for name in ("dialogue_type", "action_type"):
        counts = torch.bincount(torch.tensor([c[name] for _, c in labels]),
                                minlength=len(net.config.classes[name])).float()
        seen = counts > 0
        w = torch.ones_like(counts)
        w[seen] = (counts[seen] / counts[seen].mean()) ** -power
        out[name] = w / w[seen].mean()
    return out


def _train_network(s: ParserTraining, bar) -> tuple[Parser, list[dict], list[dict], list[float], int]:
    """One network trained with `s` (its seed): (network, generated pairs, crowd pairs, losses, steps)."""
    torch.manual_seed(s.seed)
    generated, crowd, pairs = training_pairs(s)
    config = ParserConfig(vocab=build_vocab(generated + crowd, s.min_count), dim=s.dim, hidden=s.hidden,
                          tags=list(TAGS))
    net = Parser(config)
    labels = [_labels(net, p) for p in pairs]
    opt = torch.optim.AdamW(net.parameters(), lr=s.lr, weight_decay=1e-4)
    steps = s.epochs * ((len(pairs) + s.batch_size - 1) // s.batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=s.lr, total_steps=steps, pct_start=0.1)
    ce = nn.CrossEntropyLoss(ignore_index=-100)
    weights = _class_weights(net, labels, s.kind_weight)
    class_ce = {k: nn.CrossEntropyLoss(weight=w) if w is not None else ce for k, w in weights.items()}
    rng = random.Random(s.seed)
    gen = torch.Generator().manual_seed(s.seed)
    losses: list[float] = []
    for _ in range(s.epochs):
        order = list(range(len(pairs)))
        rng.shuffle(order)
        net.train()
        for i in range(0, len(order), s.batch_size):
            idx = order[i:i + s.batch_size]
            ids, grams, mask = net.encode_words([pairs[j]["words"] for j in idx], s.unk_prob, gen)
            tag_t, class_t = _targets([labels[j] for j in idx])
            tag_logits, class_logits = net(ids, grams, mask)
            loss = ce(tag_logits.reshape(-1, tag_logits.shape[-1]), tag_t.reshape(-1))
            loss = loss + sum(class_ce[k](class_logits[k], class_t[k]) for k in class_logits)
            optimiser_step(loss, opt, sched, net.parameters(), 5.0, losses, bar)
    return net.eval(), generated, crowd, losses, steps


def train_parser(settings: ParserTraining, out_dir: str | os.PathLike | None = None,
                 handwritten: list[dict] | None = None) -> tuple[LoadedParser, dict]:
    """Train a parser (`members` networks, averaged) on generated pairs and the crowd's train split; return it
    and its metrics (saved to `out_dir` if given)."""
    from tqdm import tqdm

    s = settings
    if s.members < 1:
        raise ValueError(f"an ensemble needs at least one member, got {s.members}")
    old_threads = torch.get_num_threads()
    torch.set_num_threads(s.threads)
    try:
        start = time.time()
        steps_each = s.epochs * ((s.examples + len(crowd_training(s)) * s.crowd_repeat + s.batch_size - 1)
                                 // s.batch_size)
        tuning = _encoder_training(s)
        pairs_each = s.examples + len(crowd_training(s)) * s.crowd_repeat
        encoder_total = encoder_steps(pairs_each, tuning) * s.encoder_members if tuning else 0
        bar = tqdm(total=steps_each * s.members + encoder_total, desc="train parser", disable=not s.progress)
        nets, seen, losses, steps, generated, crowd = [], set(), [], 0, [], []
        for k in range(s.members):
            net, generated_k, crowd, losses_k, steps_k = _train_network(replace(s, seed=s.seed + k), bar)
            nets.append(net)
            seen |= {p["text"].lower().rstrip(".!?") for p in generated_k}
            generated = generated or generated_k
            losses = losses or losses_k  # member 0's, as for a single network
            steps += steps_k
        encoder, encoder_losses = None, []
        if tuning:
            pairs = training_pairs(s)[2]
            labels = [_labels(nets[0], p) for p in pairs]
            trained = [train_encoder(pairs, labels, nets[0].config.tags, nets[0].config.classes,
                                     replace(tuning, seed=tuning.seed + k), bar) for k in range(s.encoder_members)]
            encoders = [model for model, _ in trained]
            encoder = encoders[0] if len(encoders) == 1 else EncoderEnsemble(encoders)
            encoder_losses = trained[0][1]  # encoder 0's, as for the networks
        bar.close()
        train_seconds = time.time() - start
        test = held_out_generated(s.test_examples, s.seed, s.oov, seen)
        parser = LoadedParser(nets, encoder=encoder, encoder_weight=s.encoder_weight,
                              encoder_tag_weight=s.encoder_tag_weight)
        metrics = {"generated_test": evaluate_parser(parser, test),
                   "crowd_validation": evaluate_parser(parser, load_crowd("validation"))}
        if handwritten:
            metrics["handwritten"] = evaluate_parser(parser, handwritten)
        info = {"settings": asdict(s), "train_seconds": round(train_seconds, 1), "steps": steps,
                "pairs": {"generated": len(generated), "crowd_train": len(crowd)},
                "first_loss": losses[0] if losses else None, "last_loss": sum(losses[-50:]) / max(1, len(losses[-50:])),
                "parameters": sum(p.numel() for net in nets for p in net.parameters()),
                "encoder": ({"members": s.encoder_members, "steps": len(encoder_losses),  # each encoder's
                             "first_loss": encoder_losses[0],
                             "last_loss": sum(encoder_losses[-50:]) / len(encoder_losses[-50:]),
                             "parameters": sum(p.numel() for m in encoders for p in m.parameters())}
                            if encoder else None),
                "exact_match": {k: round(v["exact_match"], 4) for k, v in metrics.items()},
                "kind_accuracy": {k: round(v["kind_accuracy"], 4) for k, v in metrics.items()}}
        parser.info = info
        if out_dir is not None:
            save_parser(nets, out_dir, info, encoder, s.encoder_weight, s.encoder_tag_weight)
        return parser, {**metrics, "info": info}
    finally:
        torch.set_num_threads(old_threads)


def _encoder_training(s: ParserTraining):
    """The encoder's fine-tuning for `s` (seed: member 0's; encoder k of an ensemble takes seed + k), or None
    without an encoder."""
    if s.encoder_weight <= 0:
        return None
    return EncoderTraining(epochs=s.encoder_epochs, seed=s.seed, max_steps=s.encoder_steps)


def default_out() -> Path:
    """Where the packaged parser lives."""
    from .infer import default_dir

    return default_dir()
