"""The Percipient's trained head: linear read-outs of the frozen frame encoder, fitted on frames
labelled by the simulator.

MP5's Percipient is a model trained on labelled frames over MineCLIP's frozen image encoder, not
the contrastive model asked in words. Here the same idea at the scale of this project: the frame
encoder stays frozen, and small read-outs of it are fitted on frames of training worlds
(`calibrate.collect_frames("perception", ...)`), labelled by the simulator's ground truth:

- **things** (creatures, terrain, objects): a read-out per kind of each patch token of the encoder's
  last block, labelled by whether that patch of the frame shows the kind (`READER`: from above one
  logistic regression per kind on the patch's token; in first person a small network on the tokens
  of the patch and its eight neighbours, see below). From above
  crafter's 16x16-pixel tiles are the encoder's patches, so a token is a tile and its label is
  whether the simulator's view has the kind on that tile (`WorldState.view`); in first person a
  patch is a piece of the picture, and its label is whether the renderer's semantic map
  (`firstperson`, `LabelledFrame.semantic`) shows the kind on at least one of its pixels, the same
  rule as `firstperson.in_view` (no second geometry: a cow behind the player is on no patch). A
  frame's probability that a condition is seen (at least `need` of the kind in view,
  `Condition.need`) is the Poisson-binomial tail of its patches' probabilities: P(at least `need`
  patches show it), patches taken as independent (in first person patches stand in for tiles; the
  bands, fitted on `Condition.seen`, calibrate the difference).
- **time and light** (day, night, bright, dark): one logistic regression per value on the frame
  embedding (the pooled, projected feature the reward uses), labelled by the frame's state.

Why a network over neighbourhoods in first person: there a thing has every size and straddles
patches, and one token alone does not say what it shows. Measured 2026-11-29 on the first-person
default's artifact (frames of 80 training and 60 held-out perception worlds): ranking AUC of "a cow
in view" per frame 0.58 with the logistic read-out, 0.82 with the network over 3x3 neighbourhoods
(water 0.76 -> 0.91; per clean patch, cow 0.83 -> 0.99). From above a tile is one patch and the
logistic read-out already reads every condition at F1 0.97, so it stays (docs/perception.md).

Counting in first person: "three trees in view" is not "three patches show a tree" (a near tree fills
a dozen patches, three far ones may share one), so a first-person head also has count read-outs
(`fit_counts`, fitted by `calibrate.fit_percipient` on out-of-fold answers): per condition that asks
for more than one, a logistic regression from the sorted patch probabilities, their sum, their
tails and how many tiles the patches place the kind on (`place_patches`: one per upright thing's
foot) to the label. The placed count ranked "three trees in view" at AUC 0.89 on held-out frames of
training worlds, the probabilities alone at 0.79.

Why: contrastive training keeps a frame's time and light but not which tiles hold a cow, water or
sand (`bench/probe.py`: the pooled embedding ranks a cow at AUC 0.64, the patch tokens at 0.98).
The tokens still have it, so a read-out fitted on labelled frames answers where the words cannot.
The head is saved beside the artifact as `perception_head.safetensors` (tensors only; what it
was fitted on in the file's metadata) and used by the Percipient for every condition it knows;
conditions it does not know are asked in words, as before.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from mineclip.model.artifact import PERCEPTION_HEAD, Artifact
from mineclip.sim import firstperson
from mineclip.sim.engine import FRAME_SIZE, TILE
from mineclip.sim.state import LOCAL_VIEW, VIEW_OFFSET
from mineclip.sim.view import DEFAULT_VIEW, check_view, turn

from .conditions import BRIGHTNESS, CREATURES, OBJECTS, TERRAIN, THINGS, TIMES, Condition

FILE_NAME = PERCEPTION_HEAD  # beside the artifact: `mineclip.model.artifact.Artifact` writes it
FORMAT = "mineclip-perception-head"
MIN_TILES = 20  # labelled tiles of a kind (and frames with it in view, MIN_FRAMES) to fit it at all
MIN_FRAMES = 8
L2 = 1e-3  # weight decay of the logistic regressions (on standardised inputs)
STATES = TIMES + BRIGHTNESS
TENSORS = ("tile_w", "tile_b", "tile_mean", "tile_std", "state_w", "state_b", "state_mean", "state_std")
NEIGHBOURHOOD_TENSORS = ("tile_w1", "tile_b1")  # the network's hidden layer (`tile_w`, `tile_b`: its output)
# the things' read-out per view: "patch" (a logistic regression on each patch's token) or "neighbourhood"
# (one hidden layer over the tokens of the patch and its eight neighbours, shared by the kinds)
READER = {"top": "patch", "first_person": "neighbourhood"}
HIDDEN = 256  # the neighbourhood network's hidden units
COUNT_TENSORS = ("count_w", "count_b")  # the count read-outs (`count_features` -> logit), one row per `counts` key
COUNT_TOP = 12  # the largest patch probabilities a count read-out sees, with their sum and tails
COUNT_TAILS = (1, 2, 3, 5, 8)
COUNT_FEATURES = COUNT_TOP + 1 + len(COUNT_TAILS) + 1  # what `count_features` gives per frame
# the count read-outs saved before the placed count existed (2026-11-29) read the first features alone
COUNT_FEATURES_BEFORE_PLACED = COUNT_FEATURES - 1
EPOCHS = 15  # passes of AdamW over the labelled patches (batch BATCH), from a fixed seed
BATCH = 4096
# Manhattan distance of each tile of the local view from the player's, in the order of the tokens
TILE_DISTANCE = torch.tensor([abs(x - VIEW_OFFSET[0]) + abs(y - VIEW_OFFSET[1])
                              for x in range(LOCAL_VIEW[0]) for y in range(LOCAL_VIEW[1])])


def _patch_distance() -> torch.Tensor:
    """First person: per patch (x-major, as the tokens), the nearest distance along the facing of the
    ground its pixels can show, by the renderer's own projection (`firstperson.project`: the ground
    `forward` tiles ahead is at row HORIZON + FOCAL * EYE / forward), from the patch's bottom edge;
    inf for patches that show no ground nearer than the far plane. Whatever stands on a tile
    `forward` ahead has its foot on a patch no farther than that, and a tile's Manhattan distance is
    at least its distance along the facing: so a thing within d tiles shows on a patch whose
    distance is at most d (what the `near` read-out needs of it, an upper bound of P)."""
    rows = torch.arange(1, LOCAL_VIEW[1] + 1, dtype=torch.float64) * TILE - firstperson.HORIZON  # bottom edges
    ahead = torch.where(rows > 0, firstperson.FOCAL * firstperson.EYE / rows.clamp(min=1e-9),
                        torch.tensor(float("inf"), dtype=torch.float64))
    ahead = torch.where(ahead <= firstperson.MAX_DEPTH, ahead, torch.tensor(float("inf"), dtype=torch.float64))
    return ahead[None, :].expand(LOCAL_VIEW[0], -1).reshape(-1).clone()


PATCH_DISTANCE = _patch_distance()
# per view: each token's distance from the player for the `near` read-outs and the proximity reward
# (from above a tile's Manhattan distance; in first person a lower bound from the patch's row)
TOKEN_DISTANCE = {"top": TILE_DISTANCE.double(), "first_person": PATCH_DISTANCE}
LOCATE_P = 0.5  # a patch whose P of a kind is at least this shows the kind (`place_patches`' input)


def place_patches(on: np.ndarray, kinds: list[str], view: str, facing
                  ) -> tuple[dict[str, list[tuple[int, int]]], set[tuple[int, int]]]:
    """(kind -> tiles (ahead, right) where it is seen, every tile the patches stand for) from which
    patches see which kind (bool [16 * 9, K], x-major, as the head's tokens). In first person a patch
    at column x and row y stands for the ground its bottom edge shows, by the renderer's projection
    (`head.PATCH_DISTANCE`): ahead that far, right by the column's bearing. A floor is placed patch by
    patch; an upright kind (a block, a creature: `firstperson.upright`) only by the lowest patch of
    each vertical run that sees it, where it meets the ground, a block half a tile farther (its near
    face: `firstperson.foot_to_centre`), since the patches above show the same thing rising, not
    ground farther off. A patch with no ground nearer than the far plane places nothing (its kind is
    seen, but not where), and neither does a sprite (a creature, a plant) whose lowest patch is the
    one the horizon crosses: it stands somewhere from that patch's bottom edge (4.8 tiles) to the far
    plane, and the learned eye's creatures placed there at 5 tiles had one within a tile 28% of the
    time (cows, validation worlds, 2026-11-30) against 70-98% nearer. A block there keeps its place
    (its near edge; the same rule for blocks measured no better). From above a patch is a tile of the
    window around the player, turned into (ahead, right) by the player's facing."""
    facing = (int(facing[0]), int(facing[1]))
    return _where(on, kinds, view, facing), {t for t in _patch_places(view, facing, 0.0) if t is not None}


def _where(on: np.ndarray, kinds: list[str], view: str, facing: tuple[int, int]) -> dict[str, list[tuple[int, int]]]:
    """`place_patches`' first half: kind -> the tiles it is seen on (kinds seen nowhere left out)."""
    rows = LOCAL_VIEW[1]

    def places(k: int, kind: str) -> list[tuple[int, int]]:
        patches = np.nonzero(on[:, k])[0]
        if view != "first_person" or not firstperson.upright(kind):
            table = _patch_places(view, facing, 0.0)
            return sorted({t for t in (table[i] for i in patches) if t is not None})
        table = _patch_places(view, facing, firstperson.foot_to_centre(kind))
        feet = [i for i in patches if i % rows == rows - 1 or not on[i + 1, k]]  # nothing of it just below
        if kind in firstperson.OBJECT_KINDS:  # a sprite on the horizon's patch: somewhere beyond, not there
            feet = [i for i in feet if not _reaches_horizon(i)]
        return sorted({t for t in (table[i] for i in feet) if t is not None})

    where = {kind: places(k, kind) for k, kind in enumerate(kinds)}
    return {k: v for k, v in where.items() if v}


def _reaches_horizon(i: int) -> bool:
    """First person: whether patch `i`'s upper edge shows no ground (the horizon crosses it), so that
    what stands on it may be anywhere from its bottom edge's distance to the far plane."""
    return i % LOCAL_VIEW[1] == 0 or not np.isfinite(float(PATCH_DISTANCE[i - 1]))


@functools.lru_cache(maxsize=64)
def _patch_places(view: str, facing: tuple[int, int], beyond: float) -> tuple[tuple[int, int] | None, ...]:
    """The tile (ahead, right) each patch stands for (`place_patches`), `beyond` tiles farther in first
    person; None for a patch with no ground nearer than the far plane."""
    rows = LOCAL_VIEW[1]
    f, (rx, ry) = facing, turn(facing, "right")
    out = []
    for i in range(LOCAL_VIEW[0] * rows):
        px, py = divmod(i, rows)
        if view == "first_person":
            ahead = float(PATCH_DISTANCE[i])
            if not np.isfinite(ahead):
                out.append(None)
                continue
            ahead += beyond
            right = (px * TILE + TILE / 2 - firstperson.FRAME_SHAPE[1] / 2) * ahead / firstperson.FOCAL  # column centre
            out.append((max(1, int(round(ahead))), int(round(right))))
        else:
            dx, dy = px - VIEW_OFFSET[0], py - VIEW_OFFSET[1]
            out.append((dx * f[0] + dy * f[1], dx * rx + dy * ry))
    return tuple(out)


def patch_labels(semantic: np.ndarray, kind: str) -> np.ndarray:
    """First person: whether each patch of the world rows shows `kind` on at least one pixel of the
    renderer's semantic map (uint8 [160, 256]), bool [16, 9] (x, then y: the tokens' order)."""
    kid = firstperson.KIND_IDS[kind]
    w, h = LOCAL_VIEW
    world = np.asarray(semantic)[:h * TILE, :w * TILE] == kid
    return world.reshape(h, TILE, w, TILE).any(axis=(1, 3)).T


def frames_view(frames) -> str:
    """The one view labelled frames were drawn in (`LabelledFrame.view`); a ValueError for a mix."""
    views = {getattr(f, "view", DEFAULT_VIEW) for f in frames}
    if len(views) > 1:
        raise ValueError(f"labelled frames of several views ({sorted(views)}): fit on frames of one view")
    return check_view(views.pop() if views else DEFAULT_VIEW)


def tile_labels(frames, kind: str) -> np.ndarray:
    """Whether each patch of the frame shows `kind`, [frames * 16 * 9] (x-major: the order of
    `frame_tokens(...).reshape(-1, width)` and of `probe.tiles`): from above, whether the simulator's
    view has the kind on that tile (a patch is a tile); in first person, `patch_labels` of the
    frame's semantic map (`LabelledFrame.semantic`)."""
    w, h = LOCAL_VIEW
    out = np.zeros((len(frames), w, h), bool)
    for i, f in enumerate(frames):
        if getattr(f, "view", DEFAULT_VIEW) == "first_person":
            if getattr(f, "semantic", None) is None:
                raise ValueError("a first-person labelled frame without its semantic map: its patches' labels "
                                 "come from the renderer's map (calibrate.collect_frames(..., view='first_person'))")
            out[i] = patch_labels(f.semantic, kind)
            continue
        for dx, dy in f.state.view.get(kind, ()):
            out[i, dx + VIEW_OFFSET[0], dy + VIEW_OFFSET[1]] = True
    return out.reshape(-1)


def supports(rm) -> bool:
    """Whether a model's patches are the simulator's tiles (16-pixel patches of 160x256 frames, as
    every preset and the released checkpoints have); other models are asked in words only."""
    cfg = rm.model.config.vision
    return cfg.patch_size == TILE and tuple(cfg.resolution) == (FRAME_SIZE[1], FRAME_SIZE[0])


def frame_tokens(rm, frames: np.ndarray, features: bool = False):
    """The frame encoder's last-block patch tokens of the local view's tiles, float32 [N, 16, 9, width]
    (x, then y; the inventory bar's rows are left out), for uint8 frames [N, 160, 256, 3]; with
    `features`, (tokens, the frames' embedding [N, D] (`rm.frame_features`) from the same pass)."""
    cfg = rm.model.config.vision
    if not supports(rm):
        raise ValueError(f"the head reads one patch per tile: it needs {TILE}-pixel patches at "
                         f"{FRAME_SIZE[1]}x{FRAME_SIZE[0]}, the model has {cfg.patch_size} at {list(cfg.resolution)}")
    x = np.asarray(frames)
    if x.ndim != 4 or tuple(x.shape[1:]) != (FRAME_SIZE[1], FRAME_SIZE[0], 3):
        raise ValueError(f"expected frames [N, {FRAME_SIZE[1]}, {FRAME_SIZE[0]}, 3] from the simulator, "
                         f"got {list(x.shape)}")
    rows, cols = FRAME_SIZE[1] // TILE, FRAME_SIZE[0] // TILE
    w, h = LOCAL_VIEW
    feats, tok = rm.frame_features(x, tokens=True)
    tiles = tok.reshape(len(x), rows, cols, -1)[:, :h, :w].transpose(1, 2)
    return (tiles, feats) if features else tiles


def at_least(p: torch.Tensor, need: int) -> torch.Tensor:
    """P(at least `need` of independent events with probabilities p [N, M] happen), [N]
    (the Poisson-binomial tail, by dynamic programming over the M events)."""
    if need <= 0:
        return torch.ones(len(p), dtype=p.dtype)
    dist = torch.zeros(len(p), need + 1, dtype=p.dtype)  # P(count = k) for k < need, P(count >= need) last
    dist[:, 0] = 1.0
    for j in range(p.shape[1]):
        q = p[:, j:j + 1]
        new = dist * (1 - q)
        new[:, 1:] += dist[:, :-1] * q
        new[:, -1:] += dist[:, -1:] * q  # at `need` or more, one more keeps it there
        dist = new
    return dist[:, -1].clamp(0.0, 1.0)  # rounding can leave it a hair outside


def neighbourhoods(z: torch.Tensor) -> torch.Tensor:
    """The tokens [N, 16, 9, D] of each patch and its eight neighbours (zeros beyond the edge),
    [N, 16, 9, 9 * D]."""
    w, h = z.shape[1:3]
    padded = torch.nn.functional.pad(z.permute(0, 3, 1, 2), (1, 1, 1, 1))
    parts = [padded[:, :, 1 + dx:1 + dx + w, 1 + dy:1 + dy + h] for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    return torch.cat(parts, 1).permute(0, 2, 3, 1)


def count_features(p: torch.Tensor, kind: str, view: str) -> torch.Tensor:
    """What a count read-out sees of a frame's patch probabilities p [N, M] for one kind: the
    COUNT_TOP largest, their sum over all patches, the tails P(at least k patches) for k in
    COUNT_TAILS, and how many tiles the patches with P >= LOCATE_P place it on (`place_patches`: in
    first person one per upright thing's foot), [N, COUNT_FEATURES]."""
    top = torch.sort(p, 1, descending=True).values[:, :COUNT_TOP]
    on = (p >= LOCATE_P).numpy()[..., None]
    placed = [len(_where(o, [kind], view, (0, 1)).get(kind, ())) for o in on]
    return torch.cat([top, p.sum(1, keepdim=True), torch.stack([at_least(p, k) for k in COUNT_TAILS], 1),
                      torch.tensor(placed, dtype=p.dtype)[:, None]], 1)


def fit_counts(probs: dict[str, torch.Tensor], labels: dict[str, np.ndarray], view: str
               ) -> tuple[list[str], torch.Tensor, torch.Tensor]:
    """Count read-outs: per key "kind:need", a logistic regression from `count_features` of the
    frames' patch probabilities for the kind (`probs[key]` [N, M], answers of heads that were not
    fitted on those frames) to whether at least `need` of the kind are in view (`labels[key]`):
    (keys, weights [C, F], biases [C]), the standardisation folded in. Keys without MIN_FRAMES frames
    of each label are left out."""
    keys, ws, bs = [], [], []
    for key, p in probs.items():
        y = np.asarray(labels[key], bool)
        if min(y.sum(), (~y).sum()) < MIN_FRAMES:
            continue
        w, b, mean, std = _fit_logistic(count_features(p.double(), key.split(":")[0], view).float(), y[:, None])
        keys.append(key)
        ws.append(w[0] / std)
        bs.append(b[0] - (mean / std * w[0]).sum())
    if not keys:
        return [], torch.zeros(0, COUNT_FEATURES), torch.zeros(0)
    return keys, torch.stack(ws), torch.stack(bs)


def _standardisation(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(mean, std) of the columns of x [M, D] that the read-outs standardise their inputs with."""
    return x.mean(0), x.std(0).clamp(min=1e-6)


def _prior_logit(t: torch.Tensor) -> torch.Tensor:
    """The logit of each label column's positive rate (of t [M] or [M, K]): a read-out's initial bias."""
    prior = t.mean(0).clamp(1e-4, 1 - 1e-4)
    return torch.log(prior / (1 - prior))


def _fit_neighbourhood(z: torch.Tensor, y: np.ndarray, l2: float = L2, seed: int = 0
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The neighbourhood network on standardised tokens z [N, 16, 9, D] and patch labels y [N * 16 * 9, K]:
    (hidden weights [9 * D, HIDDEN], hidden biases [HIDDEN], output weights [K, HIDDEN], output biases
    [K]), by AdamW on the binary cross-entropy of every kind; the same seed gives the same weights."""
    x = neighbourhoods(z).reshape(-1, 9 * z.shape[-1])
    t = torch.as_tensor(y, dtype=torch.float32)
    with torch.random.fork_rng(), torch.enable_grad():
        torch.manual_seed(seed)
        hidden, out = torch.nn.Linear(x.shape[1], HIDDEN), torch.nn.Linear(HIDDEN, t.shape[1])
        with torch.no_grad():
            out.bias.copy_(_prior_logit(t))
        net = torch.nn.Sequential(hidden, torch.nn.GELU(), torch.nn.Dropout(0.2), out)
        opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=10 * l2)
        for _ in range(EPOCHS):
            order = torch.randperm(len(x))
            for i in range(0, len(x), BATCH):
                b = order[i:i + BATCH]
                loss = torch.nn.functional.binary_cross_entropy_with_logits(net(x[b]), t[b], reduction="none").mean(0)
                opt.zero_grad()
                loss.sum().backward()
                opt.step()
    return hidden.weight.detach().T.contiguous(), hidden.bias.detach(), out.weight.detach(), out.bias.detach()


def _fit_logistic(x: torch.Tensor, y: np.ndarray | None, l2: float = L2
                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """One logistic regression per column of the labels y [M, K] (None: none) on standardised x
    [M, D], each by L-BFGS on its own (a rare kind's loss is not drowned by a common one's):
    (weights [K, D], biases [K], mean [D], std [D])."""
    mean, std = _standardisation(x)
    z = (x - mean) / std
    ws, bs = [], []
    for k in range(0 if y is None else y.shape[1]):
        t = torch.as_tensor(y[:, k], dtype=torch.float32)
        w = torch.zeros(x.shape[1], requires_grad=True)
        b = _prior_logit(t).clone().requires_grad_(True)
        opt = torch.optim.LBFGS([w, b], lr=1.0, max_iter=300, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.binary_cross_entropy_with_logits(z @ w + b, t) + l2 * (w * w).sum() / 2
            loss.backward()
            return loss

        with torch.enable_grad():
            opt.step(closure)
        ws.append(w.detach())
        bs.append(b.detach())
    if not ws:
        return torch.zeros(0, x.shape[1]), torch.zeros(0), mean, std
    return torch.stack(ws), torch.stack(bs), mean, std


@dataclass
class PerceptionHead:
    """Fitted read-outs (see the module): `kinds` over patch tokens (`reader`: "patch", or
    "neighbourhood" with the hidden layer `tile_w1`, `tile_b1`), `states` over the embedding."""

    kinds: list[str]
    tile_w: torch.Tensor  # [K, width], or [K, HIDDEN] for the neighbourhood network's output
    tile_b: torch.Tensor  # [K]
    tile_mean: torch.Tensor  # [width]
    tile_std: torch.Tensor
    states: list[str]
    state_w: torch.Tensor  # [S, D]
    state_b: torch.Tensor
    state_mean: torch.Tensor
    state_std: torch.Tensor
    fitted: dict = field(default_factory=dict)  # frames, tile and frame positives per kind
    view: str = DEFAULT_VIEW  # the view of the frames it was fitted on (`mineclip.sim.view`)
    reader: str = "patch"  # the things' read-out (`READER`)
    tile_w1: torch.Tensor | None = None  # [9 * width, HIDDEN], the neighbourhood network's hidden layer
    tile_b1: torch.Tensor | None = None
    # "kind:need" -> a count read-out (`fit_counts`): P(at least `need` in view) learned from the patches'
    # probabilities, where the tail over patches miscounts (in first person a near tree fills many patches)
    counts: list[str] = field(default_factory=list)
    count_w: torch.Tensor | None = None  # [C, F]
    count_b: torch.Tensor | None = None

    @property
    def distance(self) -> torch.Tensor:
        """Each token's distance from the player in this head's view (`TOKEN_DISTANCE`)."""
        return TOKEN_DISTANCE[check_view(self.view)]

    def knows(self, c: Condition) -> bool:
        """Whether the head answers this condition (otherwise the Percipient asks in words)."""
        if c.aspect in THINGS:
            return c.subject in self.kinds
        return c.aspect in ("time", "brightness") and c.subject in self.states

    def tile_probs(self, tokens: torch.Tensor) -> torch.Tensor:
        """P that each tile shows each kind, [N, tiles, K], for tokens [N, 16, 9, width]."""
        z = (tokens.float() - self.tile_mean) / self.tile_std
        if self.reader == "neighbourhood":
            z = torch.nn.functional.gelu(neighbourhoods(z) @ self.tile_w1 + self.tile_b1)
        z = z.reshape(len(tokens), -1, z.shape[-1])
        return torch.sigmoid(z @ self.tile_w.T + self.tile_b)

    def probs(self, rm, frames, conditions: list[Condition], near: bool = False,
              features: torch.Tensor | None = None, tokens: torch.Tensor | None = None) -> np.ndarray:
        """P [N, C] that each condition is seen in each frame (NaN where the head does not know it);
        `features` and `tokens`: the frames' embedding [N, D] and tiles' tokens (`frame_tokens`) when
        the caller has them already (otherwise the frames are encoded once for both).
        With `near`, a thing's `near: d` checks count too, read from where its tiles are: P is then
        the smaller of P(at least `need` in view) and P(at least one within d tiles of the player),
        an upper bound of both holding (a frame does not show which way the player faces, so
        `facing` is not read); where a patch is, is read in the head's view (`distance`)."""
        x = np.asarray(frames)
        out = np.full((len(x), len(conditions)), np.nan)
        things = [j for j, c in enumerate(conditions) if c.aspect in THINGS and self.knows(c)]
        states = [j for j, c in enumerate(conditions) if c.aspect not in THINGS and self.knows(c)]
        if len(x) == 0:
            return out
        if things and tokens is None:
            tokens, features = frame_tokens(rm, x, features=True)
        if things:
            tiles = self.tile_probs(tokens).double()
            for j in things:
                c = conditions[j]
                p = tiles[..., self.kinds.index(c.subject)]
                counted = f"{c.subject}:{c.need}"
                if counted in self.counts:
                    i = self.counts.index(counted)
                    x = count_features(p, c.subject, self.view)[:, :self.count_w.shape[1]]
                    seen = torch.sigmoid(x @ self.count_w[i].double() + self.count_b[i].double())
                else:
                    seen = at_least(p, c.need)
                for d in [arg for key, arg in c.checks if key == "near"] if near else []:
                    seen = torch.minimum(seen, at_least(p[:, self.distance <= d], 1))
                out[:, j] = seen.numpy()
        if states:
            emb = (rm.frame_features(x) if features is None else features).float().cpu()
            p = torch.sigmoid((emb - self.state_mean) / self.state_std @ self.state_w.T + self.state_b)
            for j in states:
                out[:, j] = p[:, self.states.index(conditions[j].subject)].numpy()
        return out

    def frame_probs(self, rm, frames, conditions: list[Condition], near: bool = False
                    ) -> tuple[torch.Tensor, np.ndarray]:
        """(the frames' embedding [N, D], `probs` [N, C]) from one pass of the frame encoder."""
        tokens, features = frame_tokens(rm, frames, features=True)
        return features, self.probs(rm, frames, conditions, near, features=features, tokens=tokens)

    def save(self, directory: str | os.PathLike) -> Path:
        """Write `perception_head.safetensors` into `directory` (an artifact's), atomically."""
        names = (TENSORS + (NEIGHBOURHOOD_TENSORS if self.reader == "neighbourhood" else ())
                 + (COUNT_TENSORS if self.counts else ()))
        tensors = {k: getattr(self, k).contiguous() for k in names}
        meta = {"format": FORMAT, "kinds": json.dumps(self.kinds), "states": json.dumps(self.states),
                "fitted": json.dumps(self.fitted), "view": check_view(self.view), "reader": self.reader,
                "counts": json.dumps(self.counts)}
        return Artifact(directory).write_tensors(FILE_NAME, tensors, meta)


def load_head(directory: str | os.PathLike | None, rm=None, view: str | None = DEFAULT_VIEW) -> PerceptionHead | None:
    """The head saved beside an artifact, or None when there is none. Tensors only (safetensors):
    a file of another format, one whose shapes do not fit `rm`'s encoder, or one fitted in another
    view than `view` (None: any; heads saved before the view existed are the top view's) is a
    ValueError."""
    if directory is None:
        return None
    path = Artifact(directory).file(FILE_NAME)
    if not path.is_file():
        return None
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}
    except Exception as e:  # noqa: BLE001 - whatever safetensors says, with the file's name
        raise ValueError(f"{path}: not a perception head ({e})") from e
    reader = meta.get("reader", "patch")  # heads saved before the reader existed read each patch alone
    counts = json.loads(meta.get("counts", "[]"))
    names = TENSORS + (NEIGHBOURHOOD_TENSORS if reader == "neighbourhood" else ()) + (COUNT_TENSORS if counts else ())
    if meta.get("format") != FORMAT or reader not in set(READER.values()) or set(tensors) != set(names):
        raise ValueError(f"{path}: not a perception head (format {meta.get('format')!r}, reader {reader!r}, "
                         f"tensors {sorted(tensors)})")
    head = PerceptionHead(json.loads(meta["kinds"]), *(tensors[k] for k in TENSORS[:4]), json.loads(meta["states"]),
                          *(tensors[k] for k in TENSORS[4:]), fitted=json.loads(meta.get("fitted", "{}")),
                          view=meta.get("view", DEFAULT_VIEW), reader=reader,
                          tile_w1=tensors.get("tile_w1"), tile_b1=tensors.get("tile_b1"),
                          counts=counts, count_w=tensors.get("count_w"), count_b=tensors.get("count_b"))
    if view is not None and head.view != check_view(view):
        raise ValueError(f"{path}: fitted on frames of the {head.view} view, not the {view} view; fit it again "
                         f"in the {view} view (the pipeline's perception stage with --view {view})")
    width = head.tile_mean.shape[0]
    inner = width if reader == "patch" else head.tile_b1.shape[0]
    if (head.tile_w.shape != (len(head.kinds), inner) or head.state_w.shape[0] != len(head.states)
            or (reader == "neighbourhood" and head.tile_w1.shape != (9 * width, inner))
            or (counts and (head.count_w.shape not in ((len(counts), COUNT_FEATURES),
                                                       (len(counts), COUNT_FEATURES_BEFORE_PLACED))
                            or head.count_b.shape != (len(counts),)))):
        raise ValueError(f"{path}: tensor shapes do not match its kinds and states")
    if rm is not None:
        model_width, dim = rm.model.vision.conv1.out_channels, int(rm.model.config.embed_dim)
        if width != model_width or head.state_w.shape[1] != dim:
            raise ValueError(f"{path}: fitted on an encoder of width {width} and embedding "
                             f"{head.state_w.shape[1]}, this model has {model_width} and {dim}")
    return head


def fit_head(rm, frames, l2: float = L2, reader: str | None = None) -> PerceptionHead:
    """Fit the head on labelled frames (`calibrate.LabelledFrame`s of training worlds, all of one
    view: the head is that view's); kinds with fewer than MIN_TILES labelled patches or MIN_FRAMES
    frames showing them are left out. `reader`: the things' read-out (None: the view's, `READER`)."""
    if not frames:
        raise ValueError("no labelled frames to fit the perception head on")
    view = frames_view(frames)
    x = np.stack([f.frame for f in frames])
    tokens, features = frame_tokens(rm, x, features=True)
    reader = READER[view] if reader is None else reader
    if reader not in set(READER.values()):
        raise ValueError(f"unknown read-out {reader!r}: expected one of {sorted(set(READER.values()))}")
    labels, kinds, fitted = [], [], {"frames": len(frames), "kinds": {}, "states": {}, "view": view, "reader": reader}
    for kind in CREATURES + TERRAIN + OBJECTS:
        y = tile_labels(frames, kind)
        in_view = int(y.reshape(len(frames), -1).any(1).sum())
        if MIN_TILES <= y.sum() <= len(y) - MIN_TILES and in_view >= MIN_FRAMES:
            kinds.append(kind)
            labels.append(y)
            fitted["kinds"][kind] = {"tiles": int(y.sum()), "frames": in_view}
    flat, w1, b1 = tokens.reshape(-1, tokens.shape[-1]), None, None
    if reader == "neighbourhood" and labels:
        tm, ts = _standardisation(flat)
        w1, b1, tw, tb = _fit_neighbourhood((tokens.float() - tm) / ts, np.stack(labels, 1), l2)
    else:
        tw, tb, tm, ts = _fit_logistic(flat, np.stack(labels, 1) if labels else None, l2)
    states, ys = [], []
    for value in STATES:
        aspect = "time" if value in TIMES else "brightness"
        y = np.array([Condition(aspect, value, ((aspect, value),)).holds(f.state) for f in frames])
        if MIN_FRAMES <= y.sum() <= len(frames) - MIN_FRAMES:
            states.append(value)
            ys.append(y)
            fitted["states"][value] = int(y.sum())
    sw, sb, sm, ss = _fit_logistic(features.float().cpu(), np.stack(ys, 1) if ys else None, l2)
    return PerceptionHead(kinds, tw, tb, tm, ts, states, sw, sb, sm, ss, fitted, view,
                          reader if w1 is not None else "patch", w1, b1)

