import io
import json

from mineclip.cli import main
from mineclip.data.transcripts import find_transcript, load_transcript
from mineclip.data.video import video_info
from mineclip.evaluate.trajectories import load_frames, read_labels

KEYS = {"action_dict", "tasks", "steps", "success", "judge", "reply"}


def _run(capsys, *args) -> tuple[int, str]:
    code = main(["assist", *args])
    return code, capsys.readouterr().out


def test_one_command_prints_one_json_object(capsys):
    code, out = _run(capsys, "--command", "chop a tree", "--world-seed", "1000", "--json")
    d = json.loads(out)
    assert code == 0 and KEYS <= set(d) and d["success"] is True and d["world_seed"] == 1000
    assert d["judge"]["score"] is None and "verdict" not in d["judge"] and "no model" in d["judge"]["skipped"]
    assert len(d["turns"]) == 1


def test_bad_input_still_answers_and_exits_zero(capsys):
    for text in ["", "x" * 10_000, "fly to the moon"]:
        code, out = _run(capsys, "--command", text, "--world-seed", "1000", "--json")
        d = json.loads(out)
        assert code == 0 and d["reply"] and d["success"] is False and d["steps"] == 0


def test_a_step_budget_below_one_is_refused(capsys):
    # it was accepted, and every command stayed pending with "0 steps so far"
    for steps in ("0", "-3"):
        assert main(["assist", "--command", "chop a tree", "--world-seed", "1000", "--max-steps", steps, "--json"]) == 1
        captured = capsys.readouterr()
        assert f"max_steps is the world steps one message may take, at least 1, got {steps}" in captured.err
        assert captured.out == ""


def test_a_multi_turn_exchange_with_the_judge(capsys, micro_artifact):
    code, out = _run(capsys, "--command", "place a stone", "--command", "undo", "--world-seed", "1001",
                     "--model", str(micro_artifact), "--json")
    d = json.loads(out)
    assert code == 0 and [t["success"] for t in d["turns"]] == [True, True]
    assert d["turns"][0]["judge"]["score"] is not None and d["text"] == "undo"


def test_recorded_interactions_are_labelled_trajectories_and_training_clips(capsys, tmp_path):
    code, _ = _run(capsys, "--command", "chop a tree", "--command", "walk 4 steps left", "--world-seed", "1000",
                   "--record", str(tmp_path))
    assert code == 0
    trajs, problems, lines = read_labels(tmp_path / "trajectories.jsonl")
    assert lines == 2 and problems == [] and [t.prompt for t in trajs] == ["chop a tree", "walk 4 steps left"]
    for t in trajs:
        rec = t.record
        assert len(rec["actions"]) == len(rec["events"]) == len(rec["success"]) == rec["num_steps"]
        assert video_info(t.source)["frames"] == rec["num_steps"] + 1 == len(load_frames(t))
        transcript = find_transcript(t.source)
        assert (transcript is not None) == bool(rec["label"])
        if transcript:
            assert [seg.text for seg in load_transcript(transcript)] == [t.prompt]
    assert trajs[0].label == 1


def test_the_interactive_chat_reads_lines_until_quit(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("chop a tree\n/view\n\n/quit\n"))
    code, out = _run(capsys, "--world-seed", "1000")
    assert code == 0 and out.count("bot:") == 2 and "judge off" in out


def test_train_parser_writes_an_artifact(capsys, tmp_path):
    code, out = _run(capsys, "train-parser", "--examples", "300", "--crowd-repeat", "0", "--epochs", "1", "--out",
                     str(tmp_path))
    assert code == 0 and "hand-written test set: exact match" in out and "crowd validation split" in out
    assert (tmp_path / "parser.safetensors").is_file()


def test_train_parser_refuses_the_crowds_test_split(capsys, tmp_path):
    code = main(["assist", "train-parser", "--crowd-splits", "train,test", "--epochs", "1",
                 "--out", str(tmp_path / "p")])
    err = capsys.readouterr().err
    assert code == 2 and "test split is never trained on" in err and not (tmp_path / "p").exists()


def test_train_parser_takes_the_network_size_and_refuses_a_size_of_zero(capsys, tmp_path):
    code, _ = _run(capsys, "train-parser", "--examples", "200", "--crowd-repeat", "0", "--epochs", "1",
                   "--hidden", "40", "--dim", "24", "--out", str(tmp_path / "p"))
    config = json.loads((tmp_path / "p" / "parser.json").read_text())["config"]
    assert code == 0 and config["hidden"] == 40 and config["dim"] == 24
    code = main(["assist", "train-parser", "--hidden", "0", "--epochs", "1", "--out", str(tmp_path / "q")])
    assert code == 2 and "positive network size" in capsys.readouterr().err and not (tmp_path / "q").exists()


def test_sessions_recording_into_one_folder_never_reuse_an_id(capsys, tmp_path):
    for _ in range(2):  # the same world and command twice: two trajectories, two videos
        assert _run(capsys, "--command", "chop a tree", "--world-seed", "1000", "--record", str(tmp_path))[0] == 0
    trajs, problems, lines = read_labels(tmp_path / "trajectories.jsonl")
    assert lines == 2 and problems == [] and len({t.record["id"] for t in trajs}) == 2
    assert len(list((tmp_path / "videos").glob("*.mp4"))) == 2


def test_the_whole_session_is_saved_as_a_video(capsys, tmp_path):
    code, out = _run(capsys, "--command", "chop a tree", "--command", "walk 3 steps right", "--world-seed", "1000",
                     "--json", "--video", str(tmp_path / "chat.mp4"))
    turns = json.loads(out)["turns"]
    assert code == 0 and video_info(tmp_path / "chat.mp4")["frames"] == 1 + sum(t["steps"] for t in turns)


def test_what_keeps_a_chat_from_starting_is_one_line_and_exit_1(capsys, tmp_path):
    for args in (["--world-seed", "-1"], ["--model", str(tmp_path / "none")], ["--parser", str(tmp_path)]):
        assert main(["assist", "--command", "hi", *args]) == 1
        err = capsys.readouterr().err
        assert err.startswith("mineclip assist: ") and err.count("\n") == 1, err


def test_parse_prints_one_action_dictionary_per_message_line_for_line(capsys, tmp_path, monkeypatch):
    from mineclip.assist.parser.infer import cached_parser

    messages = ["build a house", "", "spawn a pig", "go to the tree"]
    (tmp_path / "m.txt").write_text("\n".join(messages) + "\n")
    code, out = _run(capsys, "parse", str(tmp_path / "m.txt"))
    lines = out.splitlines()
    assert code == 0 and len(lines) == len(messages)
    parser = cached_parser(None)
    assert [json.loads(line) for line in lines] == [parser.parse(m).action_dict for m in messages]
    assert json.loads(lines[1]) == {"dialogue_type": "NOOP"}
    monkeypatch.setattr("sys.stdin", io.StringIO("chop a tree\n"))
    code, out = _run(capsys, "parse")
    assert code == 0 and json.loads(out)["action"]["action_type"] == "COLLECT"
    assert main(["assist", "parse", str(tmp_path / "none.txt")]) == 1
    assert capsys.readouterr().err.startswith("mineclip assist parse: ")


def test_calibrate_saves_the_judges_threshold_with_the_artifact(capsys, micro_artifact, tmp_path):
    import json
    import shutil

    art = tmp_path / "artifact"
    shutil.copytree(micro_artifact, art)
    assert main(["assist", "--max-steps", "60", "calibrate", "--model", str(art), "--worlds", "1"]) == 0
    saved = json.loads((art / "judge.json").read_text())["commands"]
    assert saved["pairs"] > 0 and saved["worlds"] == 1 and isinstance(saved["threshold"], float)
    assert f"threshold {saved['threshold']:.4g}" in capsys.readouterr().out
    assert main(["assist", "calibrate", "--model", str(tmp_path / "nothing")]) == 1
    assert "mineclip assist calibrate:" in capsys.readouterr().err


def test_the_interactive_chat_shows_the_stack_and_the_view(capsys):
    import io

    from mineclip.assist.chat import ChatSettings, run_chat

    out = io.StringIO()
    code = run_chat(ChatSettings(world_seed=1000, view="first_person"),
                    stdin=io.StringIO("go to the stone\nturn around\nno\nno\n"), stdout=out)
    text = out.getvalue()
    assert code == 0 and "(first person view)" in text
    assert "[stack: question 'go to the stone': Do you mean the stone in front of you?" in text
    assert "Done: turn around" in text and "Then the stone on your right?" in text and "OK, I won't." in text
