import numpy as np
import pytest

from mineclip.assist.intent import Intent, Target
from mineclip.assist.judge import (
    HELD_OUT,
    CommandJudge,
    calibrated_threshold,
    earns_verdict,
    intent_atoms,
    negatives_for_command,
    save_calibration,
)
from mineclip.assist.session import AssistSession
from mineclip.tasks.negatives import negatives_for


def test_negatives_leave_out_the_suite_prompts_that_ask_the_same():
    atoms = intent_atoms(Intent("COLLECT", thing="wood"))
    assert atoms == {"collect_wood"}
    negs = negatives_for_command("cut down a tree", atoms)
    assert "chop a tree" not in negs and "collect three pieces of wood" not in negs
    assert "hunt a cow" in negs and "a cow nearby" in negs
    assert set(negs) < set(negatives_for("cut down a tree", "scene"))
    assert intent_atoms(Intent("MOVE", target=Target(kind="water"))) == {"find_water"}


def test_the_learned_judge_scores_a_commands_frames_and_gives_no_verdict(micro_artifact):
    s = AssistSession(1000, micro_artifact)
    out = s.send("chop a tree")
    j = out["judge"]
    assert isinstance(j["score"], float) and "verdict" not in j
    assert j["rule"].startswith("above chance") and j["threshold"] == 0.0
    assert j["frames"] == out["steps"] + 1 and j["negatives"] > 50
    assert "The model's score" in out["reply"] and "not a verdict" in out["reply"]
    assert out["success"] is True  # the ground truth decides


def test_a_score_is_a_verdict_only_when_it_beats_the_commoner_label():
    assert not earns_verdict(HELD_OUT["agreement"], HELD_OUT["majority_agreement"])  # why there is none
    assert earns_verdict(0.70, 0.59) and not earns_verdict(0.59, 0.59)


def test_a_given_or_calibrated_threshold_is_the_one_the_score_is_read_against(micro_artifact, tmp_path):
    from mineclip.reward import RewardModel

    rm = RewardModel.load(micro_artifact)
    frames = np.zeros((5, 160, 256, 3), np.uint8)
    high = CommandJudge(rm, threshold=1.0).score_command("chop a tree", frames, {"collect_wood"})
    assert high.threshold == 1.0 and high.rule == "given" and not hasattr(high, "verdict")
    assert calibrated_threshold(None) is None and calibrated_threshold(tmp_path / "no-such-model") is None
    assert CommandJudge.load(micro_artifact).rule.startswith("above chance")  # nothing saved yet


def test_a_calibrated_threshold_is_saved_with_its_artifact_beside_the_per_task_ones(micro_artifact, tmp_path):
    import shutil

    from mineclip.model.artifact import read_judge, write_judge

    art = tmp_path / "artifact"
    shutil.copytree(micro_artifact, art)
    write_judge(art, {"calibration": {"tasks": {"harvest_wood": {"mean": 0.3}}, "mode": "direct"}})  # eval --calibrate's
    save_calibration(art, -1.0, {"pairs": 2})
    judge = read_judge(art)
    assert judge["commands"] == {"threshold": -1.0, "pairs": 2} and judge["calibration"]["tasks"]["harvest_wood"]["mean"] == 0.3
    loaded = CommandJudge.load(art)
    assert (loaded.threshold, loaded.rule) == (-1.0, "calibrated")
    assert CommandJudge.load(art, threshold=0.5).rule == "given"
    with pytest.raises(ValueError, match="not an exported artifact"):
        save_calibration(tmp_path / "elsewhere", 0.1, {})


def test_what_the_model_sees_ranks_scene_descriptions(micro_artifact):
    s = AssistSession(1000, micro_artifact)
    reply = s.send("what do you see")["reply"]
    assert "The model says:" in reply and reply.count("(0.") >= 3


def test_without_a_model_the_judge_is_skipped_and_says_so():
    out = AssistSession(1000).send("chop a tree")
    assert out["judge"] == {"score": None, "skipped": "no model given (--model ARTIFACT)"}


def test_the_judge_scores_with_the_artifacts_reward_formula_and_refuses_a_threshold_of_another(micro_artifact,
                                                                                                 tmp_path):
    import shutil

    from mineclip.model.artifact import Artifact, JudgeSettings

    art = tmp_path / "artifact"
    shutil.copytree(micro_artifact, art)
    assert CommandJudge.load(art).mode == "direct"  # the paper's, where the artifact records none
    Artifact(art).write_judge_settings(JudgeSettings(mode="direct-naive"))
    assert CommandJudge.load(art).mode == "direct-naive"  # as mineclip eval and the labelling app
    save_calibration(art, 0.2, {"pairs": 2, "mode": "direct"})
    with pytest.raises(ValueError, match="calibrated with the 'direct' reward, not 'direct-naive'"):
        CommandJudge.load(art)
    assert CommandJudge.load(art, threshold=0.5).threshold == 0.5  # a given threshold needs none
