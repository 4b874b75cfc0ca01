
from mineclip.tasks.narrate import narrate_episode
from mineclip.tasks.record import run_episode


def test_narration_names_the_event_the_task_is_about():
    ep = run_episode("harvest_wood", "scripted", seed=1, world_seed=1, tail=12)
    caps = narrate_episode(ep.states, ep.record["events"], clip_len=16, stride=4, misalign=0.0, filler=0.0)
    assert any(main == "collect_wood" for _, _, main in caps)
    text = [t for _, t, main in caps if main == "collect_wood"][0]
    assert any(w in text for w in ("tree", "wood"))


def test_filler_and_misalignment_settings_change_the_text():
    ep = run_episode("drink_water", "scripted", seed=2, world_seed=2, tail=20)
    plain = narrate_episode(ep.states, ep.record["events"], misalign=0.0, filler=0.0, seed=0)
    noisy = narrate_episode(ep.states, ep.record["events"], misalign=1.0, filler=1.0, seed=0)
    assert [s for s, _, _ in plain] == [s for s, _, _ in noisy]
    assert [t for _, t, _ in plain] != [t for _, t, _ in noisy]
