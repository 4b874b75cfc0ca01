"""What does a frame encoder keep of each condition? Linear probes against the model's own answer.

The Percipient asks the model in words (its text against the minimal pairs, `percipient.frame_probs`),
so a condition it ranks near chance is either not in the frame embedding at all or in it but not
aligned with the words. `probe_conditions` tells the two apart on the same labelled frames
(`calibrate.collect_frames`: training worlds to fit, held-out worlds to measure), per probe
condition (`calibrate.probes`), as ranking AUC on the held-out frames:

- `text`: the model's P of the condition's text among its minimal pairs (what the Percipient uses);
- `embedding`: a logistic regression on the frozen frame embedding (what the text side could read);
- `pixels`: a logistic regression on each 16x16-pixel tile of the frame (crafter's tiles are the
  patches), summed over the frame into an expected count of the thing's tiles: how plainly the
  frame shows it (things in view only; time and light have no tile).

An untrained model of the same architecture beside a trained one says what training added or lost.
The frames are of one view (`probe_artifacts(..., view=)`, `mineclip.sim.view`); in first person a
"tile" of the pixel probe is a 16x16-pixel patch of the picture, labelled from the renderer's
semantic map (`head.tile_labels`).
`probe_table` writes the rows of several models side by side (what `bench/probe.py` prints).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mineclip.evaluate.judge import roc_auc
from mineclip.sim.state import LOCAL_VIEW
from mineclip.sim.view import DEFAULT_VIEW

from .calibrate import LabelledFrame, collect_frames, frame_probs, probes
from .conditions import THINGS
from .head import TILE, tile_labels
from .percipient import Percipient


@dataclass
class ProbeRow:
    key: str  # the condition's key, e.g. creature:cow
    positives: float  # share of held-out frames where it is seen
    text: float  # ranking AUC of the model's P (text vs minimal pairs)
    embedding: float  # ranking AUC of a linear probe on the frame embedding
    pixels: float | None  # ranking AUC of a per-tile linear probe on pixels (None: not a thing in view)


def _auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """`evaluate.judge.roc_auc`, NaN without both labels."""
    auc = roc_auc(scores, labels)
    return float("nan") if auc is None else auc


def _fit_predict(x_fit: np.ndarray, y_fit: np.ndarray, x_eval: np.ndarray, c: float = 1.0) -> np.ndarray:
    """P(label) on x_eval of a standardised logistic regression fitted on (x_fit, y_fit)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if y_fit.all() or not y_fit.any():
        return np.full(len(x_eval), float(y_fit.mean()))
    clf = make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=3000))
    return clf.fit(x_fit, y_fit).predict_proba(x_eval)[:, 1]


def tiles(frames: list[LabelledFrame]) -> np.ndarray:
    """The local view's tiles of each frame as pixel vectors [frames * tiles, 16 * 16 * 3] in [0, 1]
    (row-major over x, then y; the inventory bar below is left out)."""
    w, h = LOCAL_VIEW
    x = np.stack([f.frame[: h * TILE, : w * TILE] for f in frames]).astype(np.float32) / 255.0
    x = x.reshape(len(frames), h, TILE, w, TILE, 3).transpose(0, 3, 1, 2, 4, 5)  # [N, x, y, 16, 16, 3]
    return x.reshape(len(frames) * w * h, -1)


def embeddings(reward_model, fit: list[LabelledFrame], held_out: list[LabelledFrame]) -> tuple[np.ndarray, np.ndarray]:
    """The frozen frame embeddings [N, D] of the fitting and the held-out frames (what the probes read)."""
    return tuple(reward_model.frame_features(np.stack([f.frame for f in frames])).float().cpu().numpy()
                 for frames in (fit, held_out))


def probe_conditions(reward_model, fit: list[LabelledFrame], held_out: list[LabelledFrame],
                     pixel_reference: bool = True, embedded: tuple[np.ndarray, np.ndarray] | None = None) -> list[ProbeRow]:
    """One row per probe condition (see the module) on frames labelled by the simulator; `embedded`:
    the frames' `embeddings`, if already computed."""
    conds = probes()
    emb_fit, emb_eval = embedded if embedded is not None else embeddings(reward_model, fit, held_out)
    text = frame_probs(Percipient(reward_model), held_out, conds)  # no head: the words' P
    px_fit = px_eval = None
    rows = []
    for j, c in enumerate(conds):
        y_fit = np.array([c.seen(f.state) for f in fit])
        y_eval = np.array([c.seen(f.state) for f in held_out])
        pixels = None
        if pixel_reference and c.aspect in THINGS:
            if px_fit is None:
                px_fit, px_eval = tiles(fit), tiles(held_out)
            p = _fit_predict(px_fit, tile_labels(fit, c.subject), px_eval, c=0.1)
            pixels = _auc(y_eval, p.reshape(len(held_out), -1).sum(1))  # expected count of its tiles
        rows.append(ProbeRow(c.key, float(y_eval.mean()), _auc(y_eval, text[:, j]),
                             _auc(y_eval, _fit_predict(emb_fit, y_fit, emb_eval)), pixels))
    return rows


SIZE_KINDS = ("cow", "zombie", "water", "sand", "tree", "stone")  # the shaping study's targets the context worlds show
MIN_SIZE_FRAMES = 20  # frames showing a kind, in each split, below which its size is not probed


@dataclass
class SizeRow:
    kind: str
    fit: int  # fitting frames that show the kind
    held_out: int  # held-out frames that show it
    rho: float  # Spearman's rho of the probe's prediction against its true share of the view (NaN: too few)


def probe_size(reward_model, fit: list[LabelledFrame], held_out: list[LabelledFrame],
               kinds: tuple[str, ...] = SIZE_KINDS, embedded: tuple[np.ndarray, np.ndarray] | None = None) -> list[SizeRow]:
    """Does the frame embedding keep how large a thing looks (issue 59 part 4: does the tiny model
    keep the target's size?). First person only: per kind, on the frames that show it, a ridge
    regression of log(its share of the view, from the renderer's semantic map) on the frozen frame
    embedding, fitted on `fit`, measured as Spearman's rho on `held_out`. In first person the share
    grows as the thing comes nearer, so a reward can rise along an approach only if this is high."""
    from mineclip.sim.firstperson import visible_share

    if any(f.semantic is None for f in (*fit, *held_out)):
        raise ValueError("the size probe needs first-person frames with their semantic maps "
                         "(calibrate.collect_frames(..., view='first_person'))")
    emb_fit, emb_eval = embedded if embedded is not None else embeddings(reward_model, fit, held_out)
    rows = []
    for kind in kinds:
        s_fit = np.array([visible_share(f.semantic, kind) for f in fit])
        s_eval = np.array([visible_share(f.semantic, kind) for f in held_out])
        a, b = s_fit > 0, s_eval > 0
        rows.append(SizeRow(kind, int(a.sum()), int(b.sum()), size_rho(emb_fit[a], s_fit[a], emb_eval[b], s_eval[b])))
    return rows


def size_rho(x_fit: np.ndarray, share_fit: np.ndarray, x_eval: np.ndarray, share_eval: np.ndarray) -> float:
    """Spearman's rho on (x_eval, share_eval) of a standardised ridge regression of log(share) on x
    fitted on (x_fit, share_fit); NaN with fewer than MIN_SIZE_FRAMES frames on either side."""
    from scipy.stats import spearmanr
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if len(share_fit) < MIN_SIZE_FRAMES or len(share_eval) < MIN_SIZE_FRAMES:
        return float("nan")
    reg = make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-2, 4, 13)))
    pred = reg.fit(x_fit, np.log(share_fit)).predict(x_eval)
    return float(spearmanr(pred, share_eval)[0])


@dataclass
class ProbeResult:
    """What `probe_artifacts` measured, per model (the artifacts' paths, then "untrained"): the condition
    probes' rows, and the size probe's rows when it was asked (else empty)."""

    conditions: dict[str, list[ProbeRow]]
    sizes: dict[str, list[SizeRow]]


def probe_artifacts(artifacts: list[str], untrained: bool = True, fit_worlds: int = 80, eval_worlds: int = 60,
                    pixel_reference: bool = True, view: str = DEFAULT_VIEW, size: bool = False) -> ProbeResult:
    """`probe_conditions` for each artifact, and for an untrained model of the first one's architecture
    (`"untrained"`), on the same frames: fitted on `fit_worlds` perception worlds, measured on
    `eval_worlds` perception_eval worlds. The pixel reference, the frames' own, is computed once.
    With `size` (first person), also `probe_size` of each model on the same frames."""
    if size and view != "first_person":
        raise ValueError(f"the size probe reads the renderer's semantic map: it needs view='first_person', got {view!r}")
    from mineclip.reward import RewardModel

    if not artifacts:
        raise ValueError("no artifact to probe")
    fit = collect_frames("perception", fit_worlds, view=view)
    held_out = collect_frames("perception_eval", eval_worlds, view=view)
    models = {name: RewardModel.load(name) for name in artifacts}
    if untrained:
        models["untrained"] = models[artifacts[0]].untrained_twin()
    out: dict[str, list[ProbeRow]] = {}
    embedded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, rm in models.items():
        embedded[name] = embeddings(rm, fit, held_out)  # read by both probes: encoded once
        rows = probe_conditions(rm, fit, held_out, pixel_reference and not out, embedded[name])
        if out:
            first = next(iter(out.values()))
            rows = [ProbeRow(r.key, r.positives, r.text, r.embedding, f.pixels) for r, f in zip(rows, first)]
        out[name] = rows
    sizes = {name: probe_size(rm, fit, held_out, embedded=embedded[name]) for name, rm in models.items()} if size else {}
    return ProbeResult(out, sizes)


def size_table(result: dict[str, list[SizeRow]]) -> str:
    """Markdown of `probe_size` per model: per kind the frames that show it and each model's rho."""
    names = list(result)
    lines = ["| kind | frames showing it (fit / held out) | " + " | ".join(f"{n}: rho" for n in names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    for i, row in enumerate(result[names[0]]):
        cells = ["–" if math.isnan(result[n][i].rho) else f"{result[n][i].rho:+.2f}" for n in names]
        lines.append(f"| {row.kind} | {row.fit} / {row.held_out} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(x: float | None) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def probe_table(result: dict[str, list[ProbeRow]]) -> str:
    """Markdown of `probe_artifacts`' rows: per condition the share of frames it is seen in, the pixel
    probe's AUC (the frames' own, the same for every model), and per model text / embedding AUC."""
    names = list(result)
    lines = ["| condition | seen in | pixels (per tile) | " + " | ".join(f"{n}: text / embedding" for n in names) + " |",
             "|---|---:|---:|" + "---:|" * len(names)]
    for i, row in enumerate(result[names[0]]):
        cells = [f"{_cell(result[n][i].text)} / {_cell(result[n][i].embedding)}" for n in names]
        lines.append(f"| {row.key} | {row.positives:.0%} | {_cell(row.pixels)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
