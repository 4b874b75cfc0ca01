"""The artifact class owns every file of an artifact: each write is atomic, the weights are checked
against their recorded sha256, the judge's settings and sections live in judge.json."""

import json
import os

import pytest
import torch

from mineclip.model.artifact import FILES, JUDGE, PERCEPTION, Artifact, ArtifactError, JudgeSettings

from helpers.models import make_micro


@pytest.fixture
def artifact(tmp_path):
    return Artifact.create(make_micro(seed=0), tmp_path / "art", source={"kind": "test"})


def test_a_byte_flipped_in_the_weights_is_refused_naming_the_file(artifact):
    weights = artifact.file("model.safetensors")
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0xFF  # a tensor byte: safetensors would read it without complaint
    weights.write_bytes(bytes(data))
    with pytest.raises(ArtifactError, match=r"model\.safetensors: sha256 does not match"):
        artifact.load_model()
    Artifact(artifact.path).load_model(verify=False)  # the check is what refuses it, not the reader


def test_the_model_loads_back_identically(artifact):
    model = make_micro(seed=0)
    loaded = artifact.load_model()
    for (k, a), (_, b) in zip(model.state_dict().items(), loaded.state_dict().items()):
        assert torch.equal(a, b), k


def test_every_write_is_atomic_and_leaves_no_partial_file(artifact, monkeypatch):
    judge = artifact.file(JUDGE)
    artifact.write_json(JUDGE, {"settings": {"mode": "delta"}})
    before = judge.read_bytes()

    def killed(*a, **k):  # the process dies between writing the new bytes and the rename
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        artifact.write_json(JUDGE, {"settings": {"mode": "direct"}})
    assert judge.read_bytes() == before  # the old file, whole
    assert sorted(p.name for p in artifact.path.iterdir()) == sorted(["model.safetensors", "config.json",
                                                                      "README.md", JUDGE])


def test_only_the_artifacts_own_files_are_written(artifact):
    with pytest.raises(ValueError, match="an artifact holds"):
        artifact.write_json("notes.json", {})
    with pytest.raises(ValueError, match="written by Artifact.create"):
        artifact.write_tensors("model.safetensors", {"x": torch.zeros(1)}, {})
    assert PERCEPTION in FILES


def test_judge_settings_default_to_the_papers_and_are_recorded_at_export(tmp_path):
    plain = Artifact.create(make_micro(seed=0), tmp_path / "plain")
    assert plain.judge_settings() == JudgeSettings("suite", "direct", 16)
    pipeline = Artifact.create(make_micro(seed=0), tmp_path / "pipeline",
                               judge=JudgeSettings(negatives="scene", mode="direct-naive"))
    assert pipeline.judge_settings() == JudgeSettings("scene", "direct-naive", 16)
    assert pipeline.judge_settings().override(mode="delta", topk=None).mode == "delta"


def test_a_calibration_of_an_earlier_version_reads_as_the_calibration_section(artifact):
    legacy = {"labels": "x.jsonl", "mode": "direct", "topk": 16, "window": 16, "frame_stride": 1,
              "tasks": {"harvest_wood": {"mean": 0.1}}, "commands": {"threshold": 0.2}}
    artifact.file(JUDGE).write_text(json.dumps(legacy))
    judge = artifact.judge()
    assert judge["calibration"]["tasks"] == {"harvest_wood": {"mean": 0.1}}
    assert judge["commands"] == {"threshold": 0.2} and "tasks" not in judge


def test_not_an_artifact_is_a_clear_error(tmp_path):
    with pytest.raises(ArtifactError, match="expected an artifact directory"):
        Artifact(tmp_path).config
    (tmp_path / "config.json").write_text("[1, 2]")
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(ArtifactError, match="expected format"):
        Artifact(tmp_path).config
