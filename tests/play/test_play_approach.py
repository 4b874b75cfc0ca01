from dataclasses import replace

import pytest

from mineclip.play.approach import (
    BUCKETS,
    approach_narration,
    bucket,
        names,
)
from mineclip.play.clips import ClipSettings, episode_clips, plan_episodes
from mineclip.sim.state import WorldState


def test_buckets_and_what_names_a_kind():
    assert [bucket(d) for d in (1, 2, 3, 4, 5, 8, 9, float("inf"))] == \
        ["1", "2", "3-4", "3-4", "5-8", "5-8", "out of view", "out of view"]
    assert names(("event:hit_cow", "time:day"), "cow") and names(("view:cow",), "cow")
    assert names(("event:collect_coal",), "coal") and names(("near:water",), "water")
    assert not names(("view:zombie", "event:collect_wood"), "cow")
    state = WorldState(step=0, inventory={}, achievements={}, pos=(5, 5), facing=(1, 0), facing_kind="grass",
                       sleeping=False, daylight=1.0, view={"cow": [(3, 0), (-1, 1)]},
                       around={"cow": [(3, 0), (-1, 1)], "water": [(0, 1)]})
    assert state.view_distance("cow") == 2 and state.view_distance("water") == float("inf")


@pytest.mark.parametrize("view", ["top", "first_person"])
def test_counts_the_windows_the_clips_keep(view):
    settings = ClipSettings(tasks=["hunt_cow", "drink_water"], encoding="raw", view=view)
    counts = approach_narration(view, episodes=3, settings=settings, kinds=("cow", "water"), progress=False)
    kept = sum(len(episode_clips(job)) for job in plan_episodes(replace(settings, view=view))[:3])
    assert kept > 0
    for kind in ("cow", "water"):
        assert sum(counts[kind][b][0] for b in BUCKETS) == kept
        assert all(0 <= n <= w for w, n in counts[kind].values())
    assert any(counts["cow"][b][1] for b in BUCKETS)  # the hunts' captions name the cow


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        approach_narration("top", episodes=1, kinds=("dragon",), progress=False)
