"""One optimiser step as both of the parser's trainings take it (the GRU networks in `train.py`, the
fine-tuned encoder in `encoder.py`): back-propagate, clip the gradients' norm, step the optimiser and its
schedule, and record the loss, shown on the progress bar as the mean of the last 50."""

from __future__ import annotations

from typing import Iterable

import torch
from torch import nn


def optimiser_step(loss: torch.Tensor, opt: torch.optim.Optimizer, sched, parameters: Iterable[nn.Parameter],
                   max_norm: float, losses: list[float], bar=None) -> None:
    """Take one step on `loss`; append its value to `losses` and advance `bar` (a tqdm, or None)."""
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(parameters, max_norm)
    opt.step()
    sched.step()
    losses.append(float(loss.detach()))
    if bar is not None:
        bar.update(1)
        bar.set_postfix(loss=f"{sum(losses[-50:]) / len(losses[-50:]):.3f}")
