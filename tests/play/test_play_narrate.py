import pytest

from mineclip.play.narrate import narrate_episode
from mineclip.play.record import run_episode


def test_narration_names_the_event_the_task_is_about():
    ep = run_episode("harvest_wood", "scripted", seed=1, world_seed=1, tail=12)
    caps = narrate_episode(ep.states, ep.record["events"], clip_len=16, stride=4, misalign=0.0, filler=0.0)
    assert any(main == "collect_wood" for _, _, main, *_ in caps)
    text = [t for _, t, main, *_ in caps if main == "collect_wood"][0]
    assert any(w in text for w in ("tree", "wood"))


def test_filler_and_misalignment_settings_change_the_text():
    ep = run_episode("drink_water", "scripted", seed=2, world_seed=2, tail=20)
    plain = narrate_episode(ep.states, ep.record["events"], misalign=0.0, filler=0.0, seed=0)
    noisy = narrate_episode(ep.states, ep.record["events"], misalign=1.0, filler=1.0, seed=0)
    assert [c.start for c in plain] == [c.start for c in noisy]
    assert [c.text for c in plain] != [c.text for c in noisy]


def test_bridging_is_narrated_as_a_bridge_not_a_tunnel_or_a_row():
    ep = run_episode("build_bridge", "scripted", seed=10_000_000, world_seed=10_000, prelude=3, tail=8)
    assert ep.record["label"] == 1
    caps = narrate_episode(ep.states, ep.record["events"], clip_len=16, stride=4, misalign=0.0, filler=0.0)
    mains = [main for _, _, main, *_ in caps]
    assert "build_bridge" in mains and not {"dig_tunnel", "stone_row"} & set(mains)
    text = [t for _, t, main, *_ in caps if main == "build_bridge"][0]
    assert "bridge" in text or "bridging" in text
    assert "then" not in text  # its own steps (place and mine stone) are not narrated again


def test_fights_name_the_sword_in_the_inventory():
    ep = run_episode("combat_zombie", "scripted", seed=10_000_000, world_seed=10_000, prelude=3, tail=8)
    texts = [t for s in range(8) for _, t, main, *_ in narrate_episode(ep.states, ep.record["events"], stride=4, misalign=0.0,
                                                                   filler=0.0, seed=s) if main == "defeat_zombie"]
    assert texts and any("wooden sword" in t for t in texts)


def test_idle_windows_are_mostly_dropped_from_training_clips():
    from mineclip.play.clips import ClipSettings, episode_clips, plan_episodes

    jobs = plan_episodes(ClipSettings(40, tasks=["harvest_wood"], seed=3, encoding="raw", idle_keep=0.0))[:3]
    none = plan_episodes(ClipSettings(40, tasks=["harvest_wood"], seed=3, encoding="raw", idle_keep=1.0))[:3]
    kept = [m["event"] for j in jobs for *_, m in episode_clips(j)]
    everything = [m["event"] for j in none for *_, m in episode_clips(j)]
    assert kept and None not in kept
    assert None in everything and len(everything) > len(kept)
    assert sorted(map(str, kept)) == sorted(str(e) for e in everything if e is not None)
    with pytest.raises(ValueError, match="idle_keep"):
        ClipSettings(10, idle_keep=1.5)


def test_water_is_described_by_how_far_away_it_is():
    # find_water is judged by standing on the shore, not by seeing water: captions tell them apart
    from mineclip.tasks.scenes import VIEW, VIEW_NEAR

    ep = run_episode("find_water", "scripted", seed=10_000_000, world_seed=10_000, prelude=3, tail=8)
    assert ep.record["label"] == 1
    seen = {True: 0, False: 0}
    for seed in range(30):
        for start, text, *_ in narrate_episode(ep.states, ep.record["events"], clip_len=4, stride=1, misalign=0.0,
                                              seed=seed):
            near = ep.states[start + 3].distance("water") <= 1
            wrong = VIEW["water"] if near else VIEW_NEAR["water"]
            right = VIEW_NEAR["water"] if near else VIEW["water"]
            assert not any(c in text for c in wrong), (near, text)
            seen[near] += any(c in text for c in right)
    assert seen[True] and seen[False]


def test_narration_uses_every_word_of_the_judged_prompts():
    # A text encoder trained from scratch on narration knows no word it never read: a prompt word
    # missing from every template ("place", "find", "build") is a random vector in the judge's text.
    import re

    from mineclip.pipeline import load_preset
    from mineclip.play import narrate
    from mineclip.tasks import get_task, scenes

    words: set[str] = set()

    def collect(obj):
        if isinstance(obj, str):
            words.update(re.findall(r"[a-z]+", obj.lower()))
        elif isinstance(obj, dict):
            for v in obj.values():
                collect(v)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                collect(v)

    for module in (narrate, scenes):
        for name in dir(module):
            if name.isupper():
                collect(getattr(module, name))
    judged = load_preset("default").evalset.tasks
    missing = {t: [w for w in re.findall(r"[a-z]+", get_task(t).prompt) if w not in words] for t in judged}
    assert not {t: m for t, m in missing.items() if m}


def test_only_stones_placed_side_by_side_make_a_row():
    # the oracle judges a row by geometry; narration must not call scattered stones a row
    from dataclasses import replace

    from mineclip.play.narrate import clip_events

    ep = run_episode("lay_stone_row", "scripted", seed=10_000_000, world_seed=10_000, prelude=0, tail=8)
    caps = narrate_episode(ep.states, ep.record["events"], clip_len=16, stride=4, misalign=0.0, filler=0.0)
    assert "stone_row" in {main for _, _, main, *_ in caps}

    s0 = ep.states[0]
    events = [[], ["place_stone"], ["place_stone"], []]
    side_by_side = [replace(s0, pos=(x, 0), facing=(0, 1)) for x in range(5)]
    apart = [replace(s0, pos=(5 * x, 0), facing=(0, 1)) for x in range(5)]
    assert "stone_row" in clip_events(side_by_side, events)
    assert "stone_row" not in clip_events(apart, events) and clip_events(apart, events).count("place_stone") == 2



def test_every_event_has_words():
    from mineclip.play.narrate import EVENTS, PRIORITY

    assert set(PRIORITY) == set(EVENTS)  # an event without templates could never be told


def test_scenery_captions_name_everything_in_view_and_the_time_and_leave_events_alone():
    from mineclip.play.clips import ClipSettings
    from mineclip.play.narrate import _visible
    from mineclip.tasks.scenes import DAY, NIGHT, VIEW, VIEW_NEAR

    ep = run_episode("find_cow_near_water_day", "random", seed=10_000_000, world_seed=10_000, prelude=3, tail=30,
                     max_steps=60)
    events = ep.record["events"]
    plain = narrate_episode(ep.states, events, stride=1, misalign=0.0, filler=0.0, seed=0)
    assert narrate_episode(ep.states, events, stride=1, misalign=0.0, filler=0.0, seed=0, scenery=0.0) == plain
    scene = narrate_episode(ep.states, events, stride=1, misalign=0.0, filler=0.0, seed=0, scenery=1.0)
    assert [(c.start, c.event) for c in scene] == [(c.start, c.event) for c in plain]  # the same windows and events
    idle = [(c.start, c.text) for c in scene if c.event is None]
    assert idle and any({"cow", "water"} <= set(_visible(ep.states[s + 15])) for s, _ in idle)
    for start, text in idle:
        last = ep.states[start + 15]
        for kind in _visible(last):  # every kind in view is named, near or far
            assert any(p in text for p in VIEW[kind] + VIEW_NEAR.get(kind, [])), (kind, text)
        said, other = (NIGHT, DAY) if last.time_of_day == "night" else (DAY, NIGHT)
        assert any(p in text for p in said) and not any(p in text for p in other), text
    with pytest.raises(ValueError, match="scenery"):
        ClipSettings(10, scenery=-0.1)


def test_captions_state_facts_that_hold_for_their_clip():
    # what `positives: truth` trains on: each caption's stated facts, and the facts true of its frames
    from mineclip.play.narrate import _visible, holds

    ep = run_episode("find_cow_near_water_day", "random", seed=10_000_000, world_seed=10_000, prelude=3, tail=30,
                     max_steps=60)
    events = ep.record["events"]
    caps = narrate_episode(ep.states, events, stride=1, misalign=0.0, filler=0.0, seed=0)
    for c in caps:
        assert set(c.says) <= set(c.holds), c  # without misalignment a caption is true of its own clip
        assert c.holds == holds(ep.states[c.start:c.start + 16], events[c.start:c.start + 15])
        last = ep.states[c.start + 15]
        assert {f"view:{k}" for k in _visible(last)} <= set(c.holds)
        assert ("time:night" in c.holds) == (last.time_of_day == "night") != ("time:day" in c.holds)
        assert ("event:none" in c.says) == (c.event is None)
        if c.event is not None:
            assert f"event:{c.event}" in c.says
    said = {f for c in caps for f in c.says}
    assert any(f.startswith(("view:", "near:")) for f in said), said
    scene = narrate_episode(ep.states, events, stride=1, misalign=0.0, filler=0.0, seed=0, scenery=1.0)
    for c in scene:
        if c.event is None:  # a scenery caption states every kind in view and the time
            assert {f for f in c.holds if f.startswith(("view:", "near:", "time:"))} - set(c.says) <= \
                {f"view:{k}" for k in ("water", "lava") if f"near:{k}" in c.says}, c
    shifted = narrate_episode(ep.states, events, stride=1, misalign=1.0, filler=0.0, seed=0)
    assert all(set(c.says) <= set(c.holds) for c in shifted)  # a lagging caption is taken as its clip's truth


def test_ranged_captions_tell_distance_and_name_ores_in_view():
    # issue 59, part 4: the default narration names a cow the same at 1 tile and at 8, and coal only
    # when mined; "ranged" says how far the nearest one in view is and names coal it sees; "near"
    # names a thing only within CLOSE tiles
    from mineclip.play.narrate import holds
    from mineclip.tasks.scenes import (
        CLOSE,
        FAR,
        VIEW_CLOSE,
        VIEW_FAR,
        VIEW_NEAR,
        VIEW_UNNAMED,
        check_in_view,
    )

    ep = run_episode("harvest_coal", "scripted", seed=3, world_seed=3, prelude=2, tail=8, view="first_person")
    assert any(s.count("coal") for s in ep.states)
    events = ep.record["events"]
    plain = narrate_episode(ep.states, events, clip_len=4, stride=1, misalign=0.0, filler=0.0, seed=0)
    assert narrate_episode(ep.states, events, clip_len=4, stride=1, misalign=0.0, filler=0.0, seed=0,
                           in_view="any") == plain
    assert not any(f.endswith(":coal") for c in plain for f in c.says)
    facts = {"ranged": set(), "near": set()}
    for in_view in facts:
        for seed in range(8):
            for c in narrate_episode(ep.states, events, clip_len=4, stride=1, misalign=0.0, filler=0.0, seed=seed,
                                     in_view=in_view):
                last = ep.states[c.start + 3]
                assert set(c.says) <= set(c.holds) == set(holds(ep.states[c.start:c.start + 4],
                                                                events[c.start:c.start + 3], in_view))
                for fact in c.says:
                    what, _, kind = fact.partition(":")
                    if what == "far":
                        assert FAR <= last.view_distance(kind) < float("inf"), (fact, c.text)
                        assert any(p in c.text for p in VIEW_FAR[kind])
                    elif what == "near" and kind not in VIEW_NEAR:
                        assert last.view_distance(kind) <= CLOSE and any(p in c.text for p in VIEW_CLOSE[kind])
                    elif what == "view" and kind in VIEW_UNNAMED:
                        assert CLOSE < last.view_distance(kind) < FAR, (fact, c.text)
                facts[in_view] |= {f for f in c.says if f.startswith(("view:", "near:", "far:"))}
    assert facts["ranged"] & {"view:coal", "near:coal", "far:coal"}, facts
    assert facts["near"] and all(f.startswith("near:") for f in facts["near"]), facts["near"]
    with pytest.raises(ValueError, match="in_view"):
        check_in_view("far")


def test_in_view_is_a_clip_and_preset_setting(tmp_path):
    from mineclip.pipeline.presets import load_preset
    from mineclip.play.clips import ClipSettings, kept_windows, plan_episodes
    from mineclip.train.configs import ConfigError

    jobs = plan_episodes(ClipSettings(num_clips=40, in_view="ranged", tasks=["harvest_coal"]))[:3]
    assert all(job["in_view"] == "ranged" for job in jobs)
    said = {f for job in jobs for c in kept_windows(job)[1] for f in c.says}
    seen = {f for f in said if f.startswith(("view:", "near:", "far:"))}
    assert {f for f in seen if f.startswith("far:") or f.endswith((":coal", ":iron", ":plant"))}, said
    with pytest.raises(ValueError, match="in_view"):
        ClipSettings(10, in_view="close")
    preset = tmp_path / "p.yaml"
    preset.write_text("clips: {num_clips: 10, in_view: close}\n")
    with pytest.raises(ConfigError, match="in_view"):
        load_preset(preset)
    preset.write_text("clips: {num_clips: 10, in_view: near}\n")
    assert load_preset(preset).clips.in_view == "near"


def test_completion_is_one_over_the_tiles_to_the_nearest_thing_the_caption_names_in_view():
    from mineclip.play.narrate import completion
    from mineclip.sim.state import WorldState

    state = WorldState(step=0, inventory={}, achievements={}, pos=(0, 0), facing=(0, 1), facing_kind="grass",
                       sleeping=False, daylight=1.0, view={"cow": [(0, 4), (3, 3)], "water": [(1, 0)]},
                       around={"cow": [(0, 4), (3, 3)], "water": [(1, 0)], "zombie": [(0, -2)]})
    assert completion(("event:none", "view:cow", "time:day"), state) == 0.25  # the nearer cow: 4 tiles
    assert completion(("near:water",), state) == 1.0
    assert completion(("near:water", "far:cow"), state) == 0.25  # the least complete of what it names
    assert completion(("event:eat_cow", "time:day"), state) == 1.0  # names nothing seen
    assert completion(("view:zombie",), state) == 0.0  # behind the player: a caption the frame does not show


def test_named_kinds_are_what_a_caption_asks_to_see_fully():
    from mineclip.play.narrate import named_kinds

    assert named_kinds(("event:none", "view:cow", "near:water", "time:day")) == ("cow", "water")
    assert named_kinds(("event:collect_wood", "have:wood_pickaxe")) == ("tree",)
    assert named_kinds(("far:cow", "event:place_table")) == ()  # a far thing asks for a small one


def test_salient_captions_name_a_thing_less_often_the_farther_it_is():
    # issue 59, part 4: "salient" names each kind in view with a chance of 1 / its tiles away, with the
    # default's phrases, so how often a caption names a thing falls with its distance (a ramp in the
    # captions, not a step as "near" gives)
    import random

    from mineclip.play.narrate import _named, _visible, holds, salience
    from mineclip.tasks.scenes import VIEW_CLOSE, VIEW_FAR

    ep = run_episode("harvest_coal", "scripted", seed=3, world_seed=3, prelude=2, tail=8, view="first_person")
    events = ep.record["events"]
    said = set()
    for seed in range(8):
        for c in narrate_episode(ep.states, events, clip_len=4, stride=1, misalign=0.0, filler=0.0, seed=seed,
                                 in_view="salient"):
            assert set(c.says) <= set(c.holds) == set(holds(ep.states[c.start:c.start + 4],
                                                            events[c.start:c.start + 3], "salient"))
            assert not any(p in c.text for ps in (*VIEW_CLOSE.values(), *VIEW_FAR.values()) for p in ps), c.text
            said |= set(c.says)
    assert "view:coal" in said and not any(f.startswith("far:") for f in said), said  # ores in view named too
    # each kind is drawn with its salience: 1 / the tiles to the nearest one in view
    state = max(ep.states, key=lambda s: len({s.view_distance(k) for k in _visible(s, ores=True)}))
    kinds = _visible(state, ores=True)
    assert len({state.view_distance(k) for k in kinds}) >= 3, kinds
    rng, n = random.Random(0), 4000
    counts = {k: 0 for k in kinds}
    for _ in range(n):
        for k in _named(state, "salient", rng):
            counts[k] += 1
    for k in kinds:
        assert salience(state, k) == 1 / max(1, state.view_distance(k))
        assert abs(counts[k] / n - salience(state, k)) < 0.03, (k, counts[k] / n, state.view_distance(k))
    assert salience(state, "lava") == 0
    assert _named(state, "salient") == kinds  # without a draw: every kind it could name
