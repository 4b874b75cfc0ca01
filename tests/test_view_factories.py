"""The view setting reaches every factory that makes an environment (issue 58: "one setting, `view`,
reaches every place that makes an environment"), and an unknown view is a clear error at each entry
point. A factory that ignores `view="first_person"` fails here: its environment's view, its frames
(which differ from the top view's of the same episode) or the records it writes give it away.

Not reachable without editing its package (next: issue 58's assistant work):
`mineclip.assist.session.Session` (`CrafterEnv(...)` without a view)."""

import json
import tarfile

import gymnasium as gym
import numpy as np
import pytest

import mineclip.tasks  # noqa: F401  (registers the gymnasium ids)
from mineclip.sim.env import CrafterEnv
from mineclip.sim.view import actions

FP = "first_person"
EXPECTED = r"unknown view 'sideways'; expected one of \['top', 'first_person'\]"


def top_and_eyes(make):
    """The environment a factory makes from above and in first person, each reset on world 0."""
    made = []
    for view in ("top", FP):
        env = make(view)
        obs, _ = env.reset(seed=0)
        made.append((env.unwrapped, obs))
    return made


def _crafter_env(view):
    return CrafterEnv(view=view)


def _task_env(view):
    from mineclip.tasks.env import CrafterTaskEnv

    return CrafterTaskEnv("harvest_wood", view=view)


def _make_env(view):
    from mineclip.tasks import make_env

    return make_env("place_table", view=view)


def _gym_suite(view):
    return gym.make("mineclip/hunt_cow-v0", view=view)


def _gym_generated(view):
    return gym.make("mineclip/collect_wood_1-v0", view=view)


def _gym_declare_done(view):
    return gym.make("mineclip/find_a_cow-v0", view=view)  # a context task: the agent declares done


def _rl_task_env(view):
    from mineclip.rl.envs import make_task_env

    return make_task_env("harvest_wood", "dense", [0], seed=0, symbols=True, view=view)


def _rl_vec_env(view):
    from mineclip.rl.envs import make_vec_env

    return make_vec_env("harvest_wood", "sparse", 1, [0], seed=0, view=view).envs[0]


def _assist_session(view):
    from mineclip.assist.session import AssistSession

    return AssistSession(0, view=view).env  # the assistant's world (reset again on world 0 by the test)


@pytest.mark.parametrize("make", [_crafter_env, _task_env, _make_env, _gym_suite, _gym_generated, _gym_declare_done,
                                  _rl_task_env, _rl_vec_env, _assist_session],
                         ids=lambda f: f.__name__.strip("_"))
def test_every_environment_factory_makes_the_view_it_is_given(make):
    (top, top_obs), (eyes, obs) = top_and_eyes(make)
    assert top.view == "top" and eyes.view == FP
    assert eyes.actions == actions(FP) and eyes.first_person is not None
    assert obs.shape == top_obs.shape and not np.array_equal(obs, top_obs)  # the player's eyes, not the map
    assert np.array_equal(obs, eyes.first_person.frame)
    if getattr(eyes, "declare_done", False):  # "I am done" is the action after the view's own
        assert eyes.done_action == len(actions(FP)) and eyes.action_space.n == len(actions(FP)) + 1


def test_play_records_episodes_jobs_evaluation_sets_clips_and_demonstrations_in_the_view(tmp_path):
    from mineclip.play.clips import ClipSettings, episode_clips, plan_episodes
    from mineclip.play.demos import demonstrate
    from mineclip.play.evalset import EvalsetSettings, record_evalset
    from mineclip.play.record import make_jobs, read_jsonl, record, run_episode

    top = run_episode("harvest_wood", seed=1, world_seed=1)
    eyes = run_episode("harvest_wood", seed=1, world_seed=1, view=FP)
    assert (top.record["view"], eyes.record["view"]) == ("top", FP)
    assert not np.array_equal(top.frames[0], eyes.frames[0])

    jobs = make_jobs(["harvest_wood"], ["scripted"], 1, view=FP)
    assert [j["view"] for j in jobs] == [FP]
    path = record(jobs, tmp_path / "play", workers=1, progress=False)
    assert [r["view"] for r in read_jsonl(path)] == [FP]

    settings = EvalsetSettings(["harvest_wood"], per_label=1, worlds=2, view=FP)
    labels = read_jsonl(record_evalset(tmp_path / "evalset", settings, workers=1, progress=False).labels)
    assert labels and {r["view"] for r in labels} == {FP}

    clips = [meta for job in plan_episodes(ClipSettings(4, tasks=["harvest_wood"], encoding="raw", view=FP))[:2]
             for *_, meta in episode_clips(job)]
    assert clips and {m["view"] for m in clips} == {FP}

    shown = {view: demonstrate("harvest_wood", [7], (("scripted", 0.0),), view=view)[0]["actions"]
             for view in ("top", FP)}
    turns = {actions(FP).index("turn_left"), actions(FP).index("turn_right")}
    assert shown["top"] != shown[FP] and turns & set(shown[FP])


def test_perception_collects_patrols_and_records_its_context_tasks_in_the_view(tmp_path):
    from mineclip.perception.benchmark import record_context
    from mineclip.perception.calibrate import collect_frames
    from mineclip.perception.patroller import patrol
    from mineclip.play.record import read_jsonl

    frames = {view: collect_frames("perception", 1, per_episode=2, steps=4, view=view) for view in ("top", FP)}
    assert {f.view for f in frames[FP]} == {FP} and all(f.semantic is not None for f in frames[FP])
    assert all(f.semantic is None for f in frames["top"])
    assert not np.array_equal(frames["top"][0].frame, frames[FP][0].frame)

    class Shown:  # a ground-truth perceiver that notes the environment it is asked in
        name = "shown"

        def __init__(self):
            self.views = set()

        def answer(self, env, frame, pending, conditions):
            self.views.add((env.view, env.first_person is not None and np.array_equal(frame, env.first_person.frame)))
            return {c: "yes" if c.seen(env.state) else "no" for c in pending}

    shown = Shown()
    patrol("find_a_cow", shown, 1, max_steps=40, view=FP)
    assert shown.views == {(FP, True)}

    path = record_context(tmp_path / "context", ["find_a_cow"], per_label=1, window=2, workers=1, progress=False,
                          view=FP)
    assert {r["view"] for r in read_jsonl(path)} == {FP}
    with pytest.raises(ValueError, match="recorded in the first_person view, not the top view"):
        record_context(tmp_path / "context", ["find_a_cow"], per_label=1, window=2, workers=1, progress=False)


def test_rl_trains_and_evaluates_in_the_view_of_its_run(tmp_path, tiny_model):
    from mineclip.reward import RewardModel
    from mineclip.rl.cli import build_parser, run_configs
    from mineclip.rl.train import RunConfig, build_env, run_identity

    args = build_parser().parse_args(["--model", "m", "--out", str(tmp_path), "--tasks", "harvest_wood",
                                      "--variants", "sparse", "--seeds", "1", "--view", FP])
    (cfg,) = run_configs(args, "unused")
    assert cfg.view == FP and RunConfig("harvest_wood", "sparse", 0, "m").view == "top"
    assert run_identity({"task": "t", "variant": "sparse"})["view"] == "top"  # runs from before the view: top
    assert run_identity({"task": "t", "variant": "sparse", "view": FP})["view"] == FP
    # the training and the evaluation envs (both made by build_env) draw and act in the run's view
    env = build_env(cfg, RewardModel(tiny_model, window=2), [0], seed=0, num_envs=1)
    inner = env.venv.envs[0].unwrapped
    obs = env.reset()
    assert inner.view == FP and inner.first_person is not None and obs.shape[0] == 1
    env.close()


def test_a_pipeline_preset_in_first_person_plays_its_clips_and_evaluation_set_in_first_person(tmp_path):
    from mineclip.pipeline.presets import preset_from_dict
    from mineclip.pipeline.run import stage_clips, stage_evalset
    from mineclip.play.record import read_jsonl

    preset = preset_from_dict("small", {"view": FP, "clips": {"num_clips": 3, "val_clips": 2, "worlds": 2},
                                        "evalset": {"tasks": ["harvest_wood"], "per_label": 1, "worlds": 2},
                                        "train": {"defaults": ["tiny"]}})
    stage_clips(tmp_path, preset, workers=1)
    metas = []
    for shard in sorted((tmp_path / "shards").rglob("*.tar")):
        with tarfile.open(shard) as tar:
            metas += [json.load(tar.extractfile(m)) for m in tar.getmembers() if m.name.endswith(".json")]
    assert len(metas) == 5 and {m["view"] for m in metas} == {FP}
    out = stage_evalset(tmp_path, preset, workers=1)
    assert {r["view"] for r in read_jsonl(out["labels"])} == {FP}


def test_an_unknown_view_is_a_clear_error_at_every_entry_point(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from mineclip.assist.session import AssistSession
    from mineclip.perception.benchmark import BenchSettings, JudgeSettings
    from mineclip.perception.calibrate import collect_frames, load_thresholds
    from mineclip.perception.patroller import make_perceiver, patrol
    from mineclip.pipeline.cli import main as pipeline_main
    from mineclip.pipeline.presets import preset_from_dict
    from mineclip.play.cli import main as play_main
    from mineclip.play.clips import ClipSettings
    from mineclip.play.evalset import EvalsetSettings
    from mineclip.play.record import make_jobs, run_episode
    from mineclip.rl.cli import main as rl_main
    from mineclip.rl.envs import make_task_env, make_vec_env
    from mineclip.rl.train import RunConfig
    from mineclip.tasks.env import CrafterTaskEnv
    from mineclip.train.configs import ConfigError

    (tmp_path / "perception.json").write_text('{"view": "top"}')  # a calibration, asked for in no view
    for make in (lambda: CrafterEnv(view="sideways"), lambda: CrafterTaskEnv("harvest_wood", view="sideways"),
                 lambda: gym.make("mineclip/harvest_wood-v0", view="sideways"),
                 lambda: run_episode("harvest_wood", view="sideways"),
                 lambda: make_jobs(["harvest_wood"], ["scripted"], 1, view="sideways"),
                 lambda: EvalsetSettings(["harvest_wood"], view="sideways"), lambda: ClipSettings(view="sideways"),
                 lambda: collect_frames("perception", 1, view="sideways"),
                 lambda: patrol("find_a_cow", make_perceiver("ground_truth"), 1, view="sideways"),
                 lambda: BenchSettings("m", view="sideways"), lambda: JudgeSettings("m", view="sideways"),
                 lambda: load_thresholds(tmp_path, view="sideways"),
                 lambda: make_task_env("harvest_wood", "sparse", [0], 0, view="sideways"),
                 lambda: make_vec_env("harvest_wood", "sparse", 1, [0], 0, view="sideways"),
                 lambda: RunConfig("harvest_wood", "sparse", 0, "m", view="sideways"),
                 lambda: AssistSession(0, view="sideways")):
        with pytest.raises(ValueError, match=EXPECTED):
            make()
    with pytest.raises(ConfigError, match=EXPECTED):
        preset_from_dict("p", {"view": "sideways"})
    for main, argv in ((play_main, ["record", "--view", "sideways"]), (play_main, ["evalset", "--view", "sideways"]),
                       (play_main, ["clips", "--view", "sideways"]), (pipeline_main, ["--view", "sideways"]),
                       (rl_main, ["--model", "m", "--out", str(tmp_path / "rl"), "--view", "sideways"])):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code != 0
        assert "invalid choice: 'sideways' (choose from 'top', 'first_person')" in capsys.readouterr().err
    from mineclip.tasks.cli import main as tasks_main

    assert tasks_main(["benchmark", "control", "--record", "unused", "--view", "sideways"]) == 1
    assert "unknown view 'sideways'; expected one of ['top', 'first_person']" in capsys.readouterr().err
