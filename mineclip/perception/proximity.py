"""A reward for coming nearer to the task's target, read from the frames by the Percipient's head:
a supervised read-out of the frozen frame encoder, fitted on the simulator's labels (`.head`), so
it lives with perception, not in the reward library (which it builds on: `WindowedReward`).

The contrastive reward does not shape in this simulator: P(prompt) of "punch a cow" is the same
with the cow one tile away or seven (`bench/shaping.py`, docs/rl.md), so PPO gets nothing from it
before the event. The Percipient's trained head (`mineclip.perception.head`) reads, for every tile
of the local view, the probability p_t that the tile shows a kind, from the frozen frame encoder's
patch tokens. With q_t = 1 - prod_k (1 - p_t,k) over the target's kinds (a cow; water), the
**proximity** of a frame is the expected number of distances d = 1..D (D = 12, the farthest tile
of the view) within which some target tile lies:

    proximity = sum_{d=1..D} P(a target tile within d) = sum_d 1 - prod_{t: 1 <= dist(t) <= d} (1 - q_t)

tiles taken as independent. When the head is certain it is D + 1 - (distance to the nearest
target) and 0 with no target in view, so it counts tiles like the hand-written dense reward's
navigation term. In first person (a head fitted in that view) a token is a patch of the picture, and
its distance is the nearest ground its rows can show (`head.PATCH_DISTANCE`, the renderer's
projection): 0.96, 1.14, 1.41, 1.85, 2.67 and 4.8 tiles from the bottom patch row up, nothing
above; so D = 5 there, and the proximity tells 1, 2, 3-4 and 5-16 tiles apart (a target's foot is on
the patch row of its distance; what is behind the player is on no patch). The reward modes:

    delta     r_t = proximity_t - proximity_{t-1}   (the default: potential-based shaping, Ng et al.
              1999, which leaves the optimal policy unchanged; +1 per tile closer, -1 per tile away)
    progress  r_t = max(proximity_t - best_{t-1}, 0), best_t = max(best_{t-1}, proximity_t)
              (+1 per tile closer than ever before in the episode, never a penalty: the hand-written
              dense reward's navigation term, read from the frames; an episode pays at most D)
    direct    r_t = proximity_t / D                  (in [0, 1]: being near, not coming near)

Delta takes back, when the target leaves the view, all it paid for coming near: in a fight the
killed skeleton vanishes and the winning step costs its whole proximity, about half the success
bonus at `--reward-coef 0.05`. Progress keeps what was earned (docs/rl.md compares the two).

Only the newest frame of the window counts; `encode` gives, per frame, the embedding followed by
its proximity, from one pass of the frame encoder, and that is what a `RewardStream` caches. The
target's kinds come from the task's schema (`TaskSpec.reward["navigate"]`), not from its words.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from mineclip.reward.reward import TrajectoryRewards, WindowedReward, progress_reward, reward_from_probs

from .head import frame_tokens, supports

PROXIMITY_MODES = ("delta", "progress", "direct")


class ProximityRewardFunction(WindowedReward):
    """How near the target looks (module docstring): streaming (`stream`) or batch (`trajectory`)."""

    first_steps = "repeat"
    num_prompts = 1  # for the episode payload: one target, no texts

    def __init__(self, reward_model, head, kinds: Sequence[str], mode: str = "delta"):
        if mode not in PROXIMITY_MODES:
            raise ValueError(f"proximity reward mode must be one of {PROXIMITY_MODES}, got {mode!r}")
        if head is None:
            raise ValueError("the proximity reward reads the Percipient's head (perception_head.safetensors "
                             "beside the artifact); this artifact has none: the pipeline's perception stage "
                             "fits and saves it, or `python bench/perception.py --model ARTIFACT --refit`, or "
                             "in Python: mineclip.perception.head.fit_head(rm, mineclip.perception.calibrate"
                             ".collect_frames('perception', 80)).save(ARTIFACT)")
        kinds = list(dict.fromkeys(kinds))
        unknown = [k for k in kinds if k not in head.kinds]
        if not kinds or unknown:
            raise ValueError(f"the head cannot see {unknown or 'an empty list of kinds'}: it was fitted on "
                             f"{head.kinds}")
        if not supports(reward_model):
            raise ValueError("the proximity reward needs a model whose patches are the simulator's tiles")
        self.rm, self.head, self.kinds, self.mode = reward_model, head, kinds, mode
        self._cols = [head.kinds.index(k) for k in kinds]
        dist = head.distance  # per token, in the head's view
        finite = dist[torch.isfinite(dist)]
        self.max_distance = int(torch.ceil(finite.max()))
        d = torch.arange(1, self.max_distance + 1, dtype=dist.dtype)
        # [tiles, D]: whether a tile counts for "within d" (from above the player's own tile never does;
        # in first person the player's tile is on no patch, the nearest patch row is 0.96 tiles ahead)
        self._within = ((dist[:, None] <= d[None, :]) & (dist[:, None] > 0.5)).double()

    @property
    def feature_dim(self) -> int:
        """Width of what `encode` gives per frame: the embedding, then the proximity."""
        return self.rm.model.config.embed_dim + 1

    def describe(self) -> dict:
        return {"target": self.kinds, "mode": self.mode, "max_distance": self.max_distance,
                "precision": self.rm.precision, "view": self.head.view}

    def proximity(self, tile_probs: torch.Tensor) -> torch.Tensor:
        """Proximity [N] from the head's per-tile probabilities [N, tiles, kinds] (module docstring)."""
        q = 1 - (1 - tile_probs[..., self._cols].double()).prod(-1)
        log_none = torch.log1p(-q.clamp(max=1 - 1e-12)) @ self._within  # [N, D]: log P(none within d)
        return (1 - log_none.exp()).sum(-1)

    @torch.inference_mode()
    def encode(self, frames) -> torch.Tensor:
        """Per-frame features [N, embed_dim + 1], float32: the embedding and the proximity (one encoder pass)."""
        tokens, feats = frame_tokens(self.rm, frames, features=True)
        prox = self.proximity(self.head.tile_probs(tokens.float().cpu()))
        # float32: in bfloat16 a proximity of 11.9 tiles would round to 11.875
        return torch.cat([feats.float(), prox.float().to(feats.device)[:, None]], -1)

    def score_windows(self, windows: torch.Tensor, lengths: torch.Tensor | None = None):
        """(proximity [B, 1], proximity [B]) of the newest frame of windows [B, W, feature_dim]."""
        prox = windows[:, -1, -1].float()
        return prox[:, None], prox

    def rewards(self, prox, prev_probs=None):
        """Rewards from proximity: one step, with `prev_probs` what the step is measured against
        (`reference`: the previous proximity, or for progress the best so far), or along a sequence
        (the first step's reward is 0 for delta and progress)."""
        if self.mode == "direct":
            return prox / self.max_distance
        if self.mode == "progress":  # the prompt reward's progress formula with chance 0: proximity >= 0
            return progress_reward(prox, 0.0, prev_probs)
        return reward_from_probs(prox, 1, "delta", prev_probs=prev_probs)

    @torch.inference_mode()
    def trajectory(self, frames) -> TrajectoryRewards:
        """Rewards of a stored trajectory (frame 0 = reset): `prob` is the proximity per frame."""
        prox = self.encode(frames)[:, -1].float().cpu()
        return TrajectoryRewards(self.rewards(prox).numpy(), prox.numpy(), prox[:, None].numpy())
