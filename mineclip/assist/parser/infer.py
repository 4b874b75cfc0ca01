"""Parsing with a trained parser: message -> action dictionary (validated), and the artifact
format (`parser.safetensors` + `parser.json`), with the packaged default in `parser/weights/`."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import torch

from ..schema import SchemaError, check
from ..semantic_frame import CLASSES, TAGS, Frame, assemble, spans_of
from ..tokens import tokenize
from .model import Parser, ParserConfig

WEIGHTS, CONFIG = "parser.safetensors", "parser.json"


def default_dir() -> Path:
    """The packaged parser (trained by `mineclip assist train-parser`)."""
    return Path(str(resources.files("mineclip.assist.parser").joinpath("weights")))


@dataclass
class Parse:
    """A parsed message: its words, the dictionary, the frame it came from, per-field confidence."""

    words: list[str]
    action_dict: dict
    frame: Frame
    confidence: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # why the network's output was not a valid dictionary


def save_parser(parser: Parser | Sequence[Parser], out_dir: str | os.PathLike, info: dict | None = None,
                encoder=None, encoder_weight: float = 0.0, encoder_tag_weight: float | None = None) -> Path:
    """Write a parser artifact (weights as safetensors, config and training info as JSON); several networks
    are an ensemble, their weights under `members.K.` and their configs under "members". A fine-tuned
    `encoder` (`encoder.EncoderParser`, or an `EncoderEnsemble` of them) is saved beside them as its
    deltas, mixed in at `encoder_weight` (its tags at `encoder_tag_weight`, by default the same)."""
    from safetensors.torch import save_file

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    nets = [parser] if isinstance(parser, Parser) else list(parser)
    if len(nets) == 1:
        tensors = nets[0].state_dict()
        meta = {"config": nets[0].config.to_dict(), "info": info or {}}
    else:
        tensors = {f"members.{k}.{name}": v for k, net in enumerate(nets) for name, v in net.state_dict().items()}
        meta = {"config": nets[0].config.to_dict(), "members": [n.config.to_dict() for n in nets], "info": info or {}}
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(out / WEIGHTS))
    if encoder is not None:
        from .encoder import save_encoder

        tag_weight = encoder_weight if encoder_tag_weight is None else encoder_tag_weight
        meta["encoder"] = {**save_encoder(encoder, out), "weight": encoder_weight, "tag_weight": tag_weight}
    else:
        from .encoder import WEIGHTS as ENCODER_WEIGHTS

        (out / ENCODER_WEIGHTS).unlink(missing_ok=True)  # an earlier artifact's encoder is not this parser's
    (out / CONFIG).write_text(json.dumps(meta, indent=1))
    return out


def read_parser_info(path: str | os.PathLike | None = None) -> dict:
    """The training info saved with a parser (examples, epochs, metrics)."""
    return json.loads((Path(path or default_dir()) / CONFIG).read_text())["info"]


# the slot a kind of request cannot do without (when it has no other way to say it), for decoding
REQUIRED_SLOT = {"COLLECT": "OBJ", "FIGHT": "OBJ", "CRAFT": "OBJ", "MOVE": "LOC"}


def _fill_required(frame: Frame, tag_logits: torch.Tensor, tags: list[str]) -> Frame:
    """The frame with the slot its action cannot do without, when the tagger marked none: the word the
    tagger finds likeliest to begin it (a one-word span)."""
    kind = frame.get("action_type")
    slot = REQUIRED_SLOT.get(kind)
    if frame.get("dialogue_type") != "HUMAN_GIVE_COMMAND" or slot is None or slot in frame.spans:
        return frame
    if kind == "MOVE" and (frame.get("direction") != "NONE" or frame.get("speaker") != "NONE"):
        return frame
    taken = {i for a, b in frame.spans.values() for i in range(a, b + 1)}
    scores = tag_logits[:, tags.index(f"B-{slot}")].clone()
    for i in taken:
        scores[i] = float("-inf")
    if not torch.isfinite(scores).any():
        return frame
    i = int(scores.argmax())
    return Frame(dict(frame.classes), {**frame.spans, slot: (i, i)})


def repair_bio(tags: list[str]) -> list[str]:
    """Tags with a B- right after a run of the same slot read as I-: a slot has one span, so 'B-OBJ B-OBJ'
    ('pressure plate', 'red castle', where the tagger hesitates between B- and I- on the second word) can only
    be one span, not its first word."""
    out = list(tags)
    for i in range(1, len(out)):
        if out[i].startswith("B-") and out[i - 1] != "O" and out[i - 1][2:] == out[i][2:]:
            out[i] = "I-" + out[i][2:]
    return out


def decode(probs: dict[str, torch.Tensor], tag_logits: torch.Tensor, tags: list[str],
           classes: dict[str, list[str]], tries: int = 6) -> tuple[dict, Frame, list[str]]:
    """The likeliest dictionary the schema allows: the most probable tags and classes, else the next most
    probable (dialogue type, action type) pairs, with a required slot filled from the tags when the tagger
    marked none; NOOP when none of `tries` is valid. Returns (dictionary, frame, the problems of the most
    probable frame: empty when it was valid as it came)."""
    n = tag_logits.shape[0]
    best = {name: classes[name][int(p.argmax())] for name, p in probs.items()}
    spans = spans_of(repair_bio([tags[int(t)] for t in tag_logits.argmax(-1)]))
    pairs = [(float(pd * pa), dt, at) for dt, pd in zip(classes["dialogue_type"], probs["dialogue_type"])
             for at, pa in zip(classes["action_type"], probs["action_type"])
             if (dt == "HUMAN_GIVE_COMMAND") == (at != "NONE")]
    pairs.sort(key=lambda x: -x[0])
    first_problems: list[str] | None = None
    for _, dt, at in [(1.0, best["dialogue_type"], best["action_type"])] + pairs[:tries]:
        frame = Frame({**best, "dialogue_type": dt, "action_type": at}, dict(spans)).normalised()
        frame = _fill_required(frame, tag_logits, tags)
        d = assemble(frame)
        problems = check(d, n)
        if first_problems is None:
            first_problems = problems
        if not problems:
            return d, frame, first_problems
    return {"dialogue_type": "NOOP"}, Frame({"dialogue_type": "NOOP"}).normalised(), first_problems or []


class LoadedParser:
    """A parser ready to parse messages: one network, or several (an ensemble) whose probabilities are
    averaged, tag by tag and field by field, before decoding; with a fine-tuned sentence encoder
    (`encoder.EncoderParser`, or several averaged: `EncoderEnsemble`), its kind probabilities are mixed in
    at `encoder_weight`, (1 - w) networks + w encoder, and its tag probabilities at `encoder_tag_weight` (by
    default the same)."""

    def __init__(self, network: Parser | Sequence[Parser], info: dict | None = None, encoder=None,
                 encoder_weight: float = 0.0, encoder_tag_weight: float | None = None):
        self.networks = [n.eval() for n in ([network] if isinstance(network, Parser) else network)]
        if not self.networks:
            raise ValueError("a parser needs at least one network")
        first = self.networks[0].config
        if any(n.config.tags != first.tags or n.config.classes != first.classes for n in self.networks):
            raise ValueError("the networks of an ensemble must predict the same tags and classes")
        tag_weight = encoder_weight if encoder_tag_weight is None else encoder_tag_weight
        if encoder is not None:
            if not (0.0 < encoder_weight <= 1.0 and 0.0 <= tag_weight <= 1.0):
                raise ValueError(f"the encoder's weight in the mixture is in (0, 1] (its tags' in [0, 1]), got "
                                 f"{encoder_weight} and {tag_weight}")
            if encoder.tags != first.tags or any(encoder.classes[k] != first.classes[k] for k in encoder.classes):
                raise ValueError("the encoder must predict the networks' tags and classes")
        self.network = self.networks[0]
        self.encoder = encoder
        self.encoder_weight = encoder_weight if encoder is not None else 0.0
        self.encoder_tag_weight = tag_weight if encoder is not None else 0.0
        self.info = info or {}

    @property
    def vocabulary(self) -> set[str]:
        """The words some network of the parser knows."""
        return {w for n in self.networks for w in n.config.vocab}

    def parse_many(self, texts: list[str]) -> list[Parse]:
        """Parse several messages in one batch."""
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a network this small only loses time to a second thread on a busy CPU
        try:
            return self._parse_many(texts)
        finally:
            torch.set_num_threads(threads)

    def _probabilities(self, words: list[list[str]]) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Tag probabilities [B, T, tags] and class probabilities {field: [B, classes]}, averaged over the
        networks."""
        tag_p, class_p = None, None
        for net in self.networks:
            ids, grams, mask = net.encode_words(words)
            tag_logits, class_logits = net(ids, grams, mask)
            t = tag_logits.softmax(-1)
            c = {name: logits.softmax(-1) for name, logits in class_logits.items()}
            tag_p = t if tag_p is None else tag_p + t
            class_p = c if class_p is None else {k: class_p[k] + v for k, v in c.items()}
        k = len(self.networks)
        tag_p, class_p = tag_p / k, {name: p / k for name, p in class_p.items()}
        if self.encoder is None:
            return tag_p, class_p
        w, t = self.encoder_weight, self.encoder_tag_weight
        enc_tags, enc_classes = self.encoder.probabilities(words)
        class_p.update({name: (1 - w) * class_p[name] + w * p for name, p in enc_classes.items()})
        return (1 - t) * tag_p + t * enc_tags, class_p

    @torch.inference_mode()
    def _parse_many(self, texts: list[str]) -> list[Parse]:
        words = [tokenize(t) for t in texts]
        out: list[Parse] = [None] * len(texts)  # type: ignore[list-item]
        todo = [i for i, w in enumerate(words) if w]
        for i, w in enumerate(words):
            if not w:
                out[i] = Parse(w, {"dialogue_type": "NOOP"}, Frame({"dialogue_type": "NOOP"}).normalised(), {})
        if todo:
            tag_p, class_p = self._probabilities([words[i] for i in todo])
            # log-probabilities: a required slot's word is the likeliest beginning among words, which raw
            # logits (unnormalised per word) do not compare
            tag_scores = tag_p.clamp_min(1e-12).log()
            names, classes = self.network.config.tags, self.network.config.classes
            for row, i in enumerate(todo):
                n = len(words[i])
                probs = {name: p[row] for name, p in class_p.items()}
                d, frame, problems = decode(probs, tag_scores[row, :n], names, classes)
                conf = {name: float(frame_p[classes[name].index(frame.get(name))]) if frame.get(name) in classes[name]
                        else 0.0 for name, frame_p in probs.items()}
                out[i] = Parse(words[i], d, frame, conf, problems)
        return out

    def parse(self, text: str) -> Parse:
        """Parse one message."""
        return self.parse_many([text])[0]


def load_parser(path: str | os.PathLike | None = None) -> LoadedParser:
    """A saved parser (default: the packaged one): one network, or the members of an ensemble."""
    from safetensors.torch import load_file

    d = Path(path) if path else default_dir()
    if not (d / WEIGHTS).is_file() or not (d / CONFIG).is_file():
        raise FileNotFoundError(f"no parser in {d} (expected {WEIGHTS} and {CONFIG}); "
                                "train one with `mineclip assist train-parser --out DIR`")
    meta = json.loads((d / CONFIG).read_text())
    configs = [ParserConfig.from_dict(c) for c in meta.get("members") or [meta["config"]]]
    # a parser of an older schema (fewer fields or values) still loads: the fields it lacks read as NONE
    unknown = {f"{k}={v}" for config in configs for k, vs in config.classes.items() for v in vs
               if v not in CLASSES.get(k, ())}
    unknown |= {t for config in configs for t in config.tags} - set(TAGS)
    if unknown:
        raise SchemaError(f"the parser in {d} predicts {sorted(unknown)[:5]}, which this schema has no field for; "
                          "retrain it")
    state = load_file(str(d / WEIGHTS))
    nets = []
    for k, config in enumerate(configs):
        net = Parser(config)
        prefix = f"members.{k}." if "members" in meta else ""
        net.load_state_dict({name[len(prefix):]: v for name, v in state.items() if name.startswith(prefix)})
        nets.append(net)
    encoder = None
    if "encoder" in meta:
        from .encoder import load_encoder

        encoder = load_encoder(d, meta["encoder"])
    mix = meta.get("encoder", {})
    return LoadedParser(nets, meta.get("info", {}), encoder, mix.get("weight", 0.0), mix.get("tag_weight"))


@lru_cache(maxsize=4)
def cached_parser(path: str | None = None) -> LoadedParser:
    """`load_parser`, once per process and path."""
    return load_parser(path)
