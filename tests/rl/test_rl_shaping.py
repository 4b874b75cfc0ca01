import numpy as np
import pytest

from mineclip.rl.runs import untrained_artifact
from mineclip.rl.shaping import NOT_IN_VIEW, reward_by_distance, target_classes
from mineclip.rl.symbolic import CLASSES


def test_learned_reward_is_grouped_by_distance_to_the_dense_reward_s_target(tmp_path):
    artifact = untrained_artifact(tmp_path)
    s = reward_by_distance(artifact, "punch_cow", steps=10, num_envs=2)
    assert s.target == "cow"
    counts = sum(n for n, _ in s.by_distance.values())
    assert 2 * 10 - 2 <= counts <= 2 * 10  # every step but an episode's last (none end this early)
    assert all(d == NOT_IN_VIEW or 1 <= d <= 8 + 4 for d in s.by_distance)  # a cow is 3-5 tiles away at the start
    assert any(3 <= d <= 5 for d in s.by_distance)
    assert all(np.isfinite(r) and r >= 0 for _, r in s.by_distance.values())  # direct: max(P - 1/N, 0)
    assert [row[0] for row in s.rows()][-1] == "not in view" or NOT_IN_VIEW not in s.by_distance


def test_a_task_without_a_navigation_target_is_refused():
    assert target_classes("eat_plant") == ("plant", [CLASSES.index("plant"), CLASSES.index("plant-ripe")])
    with pytest.raises(ValueError, match="no navigation target"):
        target_classes("dig_tunnel")
