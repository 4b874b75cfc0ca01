"""The policy's feature extractor for symbolic input: a small convolution over the local view.

An MLP on the one-hot local view (16 x 9 tiles x 20 classes = 2,880 inputs) has to learn "a tree
to the right" separately for every tile; two 3x3 convolutions share that across tiles, which is
what makes PPO learn in a few thousand episodes on a CPU. The frame features (if any), the
inventory, the position and the facing pass through unchanged and join the convolution's output;
SB3's `net_arch` MLP heads follow, as with `MlpPolicy`.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from mineclip.sim.state import LOCAL_VIEW

from .symbolic import CLASSES, LAYOUT, SIZE, VIEW_SIZE


class SymbolicExtractor(BaseFeaturesExtractor):
    """flat obs [frame features (frame_dim) | symbols (SIZE)] -> [frame features | conv(view) | rest]."""

    def __init__(self, observation_space: gym.spaces.Box, frame_dim: int = 0, channels: int = 32):
        if observation_space.shape != (frame_dim + SIZE,):
            raise ValueError(f"expected a flat observation of {frame_dim} + {SIZE}, got {observation_space.shape}")
        w, h = LOCAL_VIEW
        conv_out = channels * ((w + 1) // 2) * ((h + 1) // 2)
        rest = SIZE - VIEW_SIZE
        super().__init__(observation_space, features_dim=frame_dim + conv_out + rest)
        self.frame_dim = frame_dim
        self.conv = nn.Sequential(
            nn.Conv2d(len(CLASSES), channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten())

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        frame, sym = obs[:, :self.frame_dim], obs[:, self.frame_dim:]
        w, h = LOCAL_VIEW
        view = sym[:, LAYOUT["view"]].reshape(-1, w, h, len(CLASSES)).permute(0, 3, 1, 2)
        return torch.cat([frame, self.conv(view), sym[:, VIEW_SIZE:]], dim=1)
