"""Where a task prompt lands among the narrator's events, in the text encoder's space alone.

A judged prompt ("hunt a cow") is never a training caption; the text encoder composes it from
words it learned in the narration. `prompt_neighbours` ranks the narrated events by the mean cosine
similarity between the prompt's embedding and the embeddings of that event's phrases
(`mineclip.play.narrate.EVENTS`, or any phrase lists given): if the prompt lands nearer the
captions of another event (walking up to a cow, being hurt by a zombie) than those of the event
that decides its success, the judge rewards the wrong windows before any frame is seen.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import torch


def prompt_neighbours(model, prompts: Sequence[str], phrases: Mapping[str, Sequence[str]]
                      ) -> dict[str, list[tuple[str, float]]]:
    """{prompt: [(event, mean cosine similarity to its phrases), ...] best first} for a MineCLIP model
    and a narrator's event phrases (the crafter narrator's: `mineclip.play.narrate.EVENTS`)."""
    prompts = list(prompts)
    if not prompts or any(not p.strip() for p in prompts):
        raise ValueError("prompt_neighbours needs non-empty prompts")
    events = [e for e, texts in phrases.items() if texts]
    if not events:
        raise ValueError("prompt_neighbours needs at least one event with phrases")
    with torch.no_grad():
        p = torch.nn.functional.normalize(model.encode_text(prompts).float(), dim=-1)
        sims = torch.stack([
            (torch.nn.functional.normalize(model.encode_text(list(phrases[e])).float(), dim=-1) @ p.T).mean(0)
            for e in events], dim=1)  # [prompts, events]
    return {prompt: sorted(zip(events, row.tolist()), key=lambda x: -x[1]) for prompt, row in zip(prompts, sims)}
