import pytest

from mineclip.assist.crowd import load_crowd
from mineclip.assist.generate import generate_pairs
from mineclip.assist.handwritten import load_handwritten
from mineclip.assist.parser.infer import (
    LoadedParser,
    decode,
    default_dir,
    load_parser,
    read_parser_info,
    save_parser,
)
from mineclip.assist.parser.model import Parser, ParserConfig
from mineclip.assist.parser.train import (
    ParserTraining,
    build_vocab,
    evaluate_parser,
    train_parser,
    training_pairs,
)
from mineclip.assist.schema import check
from mineclip.assist.tokens import span_text


def test_a_tiny_parser_learns_from_generated_pairs(tmp_path):
    settings = ParserTraining(examples=3000, test_examples=300, epochs=4, crowd_repeat=0, progress=False)
    parser, metrics = train_parser(settings, tmp_path / "p")
    info = metrics["info"]
    assert info["last_loss"] < 0.1 * info["first_loss"]
    pairs = generate_pairs(300, seed=99)
    untrained = LoadedParser(Parser(ParserConfig(vocab=build_vocab(pairs, 1))))
    before = evaluate_parser(untrained, pairs)
    after = metrics["generated_test"]  # held-out generated commands
    assert before["exact_match"] < 0.1 and after["exact_match"] > 0.4
    assert after["fields"]["dialogue_type"] > 0.8 > before["fields"]["dialogue_type"]
    reloaded = load_parser(tmp_path / "p")  # the artifact parses as the trained network did
    assert [p.action_dict for p in reloaded.parse_many([q["text"] for q in pairs[:50]])] == \
        [p.action_dict for p in parser.parse_many([q["text"] for q in pairs[:50]])]


def test_the_packaged_parser_meets_its_goals_and_holds_its_crowd_figures():
    parser = load_parser()
    info = read_parser_info()
    # an ensemble of three networks: each stays under 1.5M parameters, the artifact under 12 MB; three
    # fine-tuned encoders averaged and mixed in at half, each stored as its deltas in under 14 MB (the whole
    # model: 91 MB)
    assert len(parser.networks) == info["settings"]["members"] == 3
    assert all(sum(p.numel() for p in n.parameters()) < 1_500_000 for n in parser.networks)
    assert (default_dir() / "parser.safetensors").stat().st_size < 12_000_000
    assert parser.encoder is not None and parser.encoder_weight == info["settings"]["encoder_weight"] == 0.5
    assert parser.encoder_tag_weight == info["settings"]["encoder_tag_weight"] == 1.0
    assert len(parser.encoder.members) == info["settings"]["encoder_members"] == 3
    assert (default_dir() / "encoder.safetensors").stat().st_size < 3 * 14_000_000
    assert info["steps"] > 0 and info["pairs"]["crowd_train"] == 3633
    hand = evaluate_parser(parser, load_handwritten("test"))
    assert hand["n"] >= 200 and hand["exact_match"] >= 0.80
    # the figures the artifact states are the whole parser's (networks and encoders), not a part's
    assert info["exact_match"]["handwritten"] == pytest.approx(hand["exact_match"], abs=1e-4)
    assert info["kind_accuracy"]["handwritten"] == pytest.approx(hand["kind_accuracy"], abs=1e-4)
    generated = evaluate_parser(parser, generate_pairs(500, seed=12345))
    assert generated["exact_match"] >= 0.93
    # the crowd test split: 0.866 kind (goal 0.85) and 0.754 reference span (goal 0.75) measured (two
    # annotators agree 0.863 and 0.720; the networks alone 0.832 and 0.672); a regression fails
    crowd = evaluate_parser(parser, load_crowd("test"))
    assert crowd["kind_accuracy"] >= 0.86 and crowd["reference_span"] >= 0.75


@pytest.mark.parametrize("text, span_words", [
    ("go to the zorblaxian", "zorblaxian"),
    ("please walk over to the qwertyuiop", "qwertyuiop"),
    ("chop down 3 flimflams", "flimflams"),
])
def test_words_never_seen_are_carried_through_spans(text, span_words):
    parse = load_parser().parse(text)
    d = parse.action_dict
    assert d["dialogue_type"] == "HUMAN_GIVE_COMMAND" and check(d, len(parse.words)) == []
    action = d["action"]
    span = (action.get("location", {}).get("reference_object") or action.get("reference_object"))["has_name"]
    assert span_text(parse.words, span) == span_words
    assert span_words not in load_parser().network.index


def test_parser_output_is_always_a_valid_dictionary():
    parser = load_parser()
    for text in ["", "   ", "the the the the", "x" * 400, "ünïcödé wörds", "12 34 56", "go go go go go"]:
        parse = parser.parse(text)
        assert check(parse.action_dict, len(parse.words)) == []


def test_saving_needs_nothing_but_safetensors_and_json(tmp_path):
    net = Parser(ParserConfig(vocab=["<pad>", "<unk>", "go"], dim=8, hidden=8))
    out = save_parser(net, tmp_path, {"note": "x"})
    assert sorted(p.name for p in out.iterdir()) == ["parser.json", "parser.safetensors"]
    assert read_parser_info(out) == {"note": "x"}
    with pytest.raises(FileNotFoundError, match="train one"):
        load_parser(tmp_path / "nothing")


def test_training_pairs_are_generated_plus_the_crowds_train_split_only():
    generated, crowd, pairs = training_pairs(ParserTraining(examples=200, crowd_repeat=2))
    assert len(generated) == 200 and len(crowd) == 3633 and len(pairs) == 200 + 2 * 3633
    assert {p["split"] for p in crowd} == {"train"}
    assert training_pairs(ParserTraining(examples=200, crowd_repeat=0))[1] == []


def test_a_final_fit_adds_the_validation_split_and_never_the_test_split():
    final = ParserTraining(examples=200, crowd_repeat=1, crowd_splits=("train", "validation"))
    _, crowd, pairs = training_pairs(final)
    assert len(crowd) == 3633 + len(load_crowd("validation")) and len(pairs) == 200 + len(crowd)
    assert {p["split"] for p in crowd} == {"train", "validation"}
    for splits in (("train", "test"), ("test",), (), ("train", "dev")):
        with pytest.raises(ValueError, match="test split is never trained on"):
            training_pairs(ParserTraining(examples=10, crowd_splits=splits))


def test_spans_no_one_annotated_teach_the_tagger_nothing():
    from mineclip.assist.parser.train import _labels

    net = Parser(ParserConfig(vocab=["<pad>", "<unk>"]))
    question = next(p for p in load_crowd("train") if p["craftassist_kind"] == "Answer")
    tags, classes = _labels(net, question)
    assert set(tags) == {-100} and classes["dialogue_type"] == net.config.classes["dialogue_type"].index("GET_MEMORY")
    build = next(p for p in load_crowd("train") if p["craftassist_kind"] == "Build")
    assert -100 not in _labels(net, build)[0]


def _probs(classes, **best):
    import torch

    out = {}
    for name, values in classes.items():
        p = torch.full((len(values),), 0.01)
        for value, share in best.get(name, {values[0]: 1.0}).items():
            p[values.index(value)] = share
        out[name] = p / p.sum()
    return out


def test_decoding_gives_the_likeliest_dictionary_the_schema_allows():
    import torch

    config = ParserConfig()
    tags, classes = config.tags, config.classes
    words = ["chop", "the", "tree"]
    logits = torch.zeros(3, len(tags))
    logits[:, tags.index("O")] = 1.0
    logits[2, tags.index("B-OBJ")] = 5.0
    # a command whose likeliest action type is none at all: the next likeliest that is valid
    probs = _probs(classes, dialogue_type={"HUMAN_GIVE_COMMAND": 0.9}, action_type={"NONE": 0.5, "COLLECT": 0.4})
    d, frame, problems = decode(probs, logits, tags, classes)
    assert frame.get("action_type") == "COLLECT"
    assert d["action"] == {"action_type": "COLLECT", "reference_object": {"has_name": [0, [2, 2]]}}
    assert problems  # the likeliest frame was not a valid dictionary
    # a move whose place the tagger did not mark: the word likeliest to begin one
    logits2 = torch.zeros(3, len(tags))
    logits2[:, tags.index("O")] = 1.0
    logits2[2, tags.index("B-LOC")] = 0.5
    probs2 = _probs(classes, dialogue_type={"HUMAN_GIVE_COMMAND": 0.9}, action_type={"MOVE": 0.9})
    d2, _, _ = decode(probs2, logits2, tags, classes)
    assert d2["action"]["location"]["reference_object"]["has_name"] == [0, [2, 2]]
    assert check(d, len(words)) == [] and check(d2, len(words)) == []


def test_a_slot_begun_twice_in_a_row_is_one_span():
    from mineclip.assist.parser.infer import repair_bio

    assert repair_bio(["O", "B-OBJ", "B-OBJ", "O", "B-LOC"]) == ["O", "B-OBJ", "I-OBJ", "O", "B-LOC"]
    assert repair_bio(["B-COUNT", "B-OBJ", "I-OBJ", "B-OBJ"]) == ["B-COUNT", "B-OBJ", "I-OBJ", "I-OBJ"]
    assert repair_bio(["B-OBJ", "O", "B-OBJ"]) == ["B-OBJ", "O", "B-OBJ"]  # apart: two runs, the first kept


def test_an_ensemble_averages_its_networks_and_saves_as_one_artifact(tmp_path):
    import torch

    torch.manual_seed(0)
    nets = [Parser(ParserConfig(vocab=["<pad>", "<unk>", "go", w], dim=8, hidden=8)) for w in ("tree", "cow")]
    out = save_parser(nets, tmp_path, {"note": "two"})
    assert sorted(p.name for p in out.iterdir()) == ["parser.json", "parser.safetensors"]
    loaded = load_parser(out)
    assert len(loaded.networks) == 2 and loaded.info == {"note": "two"}
    assert loaded.vocabulary == {"<pad>", "<unk>", "go", "tree", "cow"}
    words = [["go", "to", "the", "tree"]]
    with torch.inference_mode():
        tags, classes = loaded._probabilities(words)
        alone = [LoadedParser(n)._probabilities(words) for n in nets]
    assert torch.allclose(tags, (alone[0][0] + alone[1][0]) / 2)
    assert torch.allclose(classes["action_type"], (alone[0][1]["action_type"] + alone[1][1]["action_type"]) / 2)
    assert loaded.parse("go to the tree").action_dict == LoadedParser(nets).parse("go to the tree").action_dict
