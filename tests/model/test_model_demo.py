"""`mineclip demo` runs end to end (tiny configs here; the default also builds the full-size ones)."""

from __future__ import annotations

from mineclip.demo import main, synthetic_clip


def test_demo_prints_parameter_counts_and_probabilities(capsys):
    assert main(["--configs", "tiny_attn,tiny_avg", "--frames", "4", "--source", "synthetic",
                 "--prompts", "hunt a cow", "chop a tree"]) == 0
    out = capsys.readouterr().out
    assert "tiny_attn" in out and "7,876,738 parameters" in out and "tiny_avg" in out
    assert "hunt a cow" in out and "summary: 2 models scored 2 prompts" in out


def test_synthetic_clip_is_uint8_at_model_resolution():
    clip = synthetic_clip(5)
    assert clip.shape == (5, 160, 256, 3) and clip.dtype.name == "uint8"
