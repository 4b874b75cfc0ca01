"""A clip's metadata as a typed record: what shards store round-trips, typed fields are typed, and
a field that is absent differs from one that is null (clips without an event form no group)."""

import pytest

from mineclip.data.clip_meta import ClipMeta
from mineclip.data.reader import meta_groups


def test_a_played_clips_metadata_round_trips_with_its_facts_typed():
    stored = {"task_id": "harvest_wood", "event": None, "says": ["event:collect_wood"], "holds": ["view:tree"],
              "fps": 8, "num_frames": 16, "source": "crafter:ep1", "frame_labels": {"day": [1]}}
    meta = ClipMeta.from_dict(stored)
    assert meta.says == ("event:collect_wood",) and meta.holds == ("view:tree",) and meta.fps == 8
    assert meta.other == {"task_id": "harvest_wood", "event": None}
    assert meta.to_dict() == {**stored} and ClipMeta.from_dict(meta) is meta


def test_absent_and_null_fields_differ():
    with_null, without = ClipMeta.from_dict({"event": None}), ClipMeta.from_dict({"i": 1})
    assert with_null.has("event") and with_null.value("event") is None
    assert not without.has("event") and without.value("event", "-") == "-"
    with pytest.raises(KeyError):
        without.value("event")
    # null events are one group; a clip without the field is a group of its own
    groups = meta_groups([with_null, with_null, without, without], "event")
    assert groups[0] == groups[1] == "None" and len({groups[2], groups[3], groups[0]}) == 3


def test_metadata_that_is_not_an_object_is_a_clear_error():
    assert ClipMeta.from_dict(None) == ClipMeta()
    with pytest.raises(ValueError, match="must be a JSON object"):
        ClipMeta.from_dict([1, 2])
