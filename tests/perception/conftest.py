import pytest
from helpers.models import make_micro


@pytest.fixture(scope="module")
def reward_model():
    from mineclip.reward import RewardModel

    return RewardModel(make_micro(), window=2)
