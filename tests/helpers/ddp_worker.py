"""Worker of the 2-process loss test; imports only torch and the model (spawn re-imports this file)."""

from __future__ import annotations

import os

import torch
import torch.distributed as dist

from mineclip.model import MineCLIP, ModelConfig, tokenize
from mineclip.train.loss import ContrastiveLoss


def global_batch(n: int, frames: int, resolution, captions):
    g = torch.Generator().manual_seed(0)
    video = torch.randint(0, 256, (n, frames, 3, *resolution), dtype=torch.uint8, generator=g)
    return video, tokenize([captions[i % 3] for i in range(n)])  # repeats: gathered multi-positive targets


def loss_and_grads(model, video, tokens):
    v, t = model.embed_pair(model.encode_video(video), model.encode_text(tokens))
    loss = ContrastiveLoss(multi_positive=True)(v, t, model.logit_scale, tokens)["loss"]
    loss.backward()
    return loss.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


def worker(rank: int, world: int, port: int, out_path: str, config: dict, batch_args: tuple) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        torch.manual_seed(0)
        model = MineCLIP(ModelConfig.from_dict(config))
        video, tokens = global_batch(*batch_args)
        b = len(video) // world
        sl = slice(rank * b, (rank + 1) * b)
        loss, grads = loss_and_grads(model, video[sl], tokens[sl])
        # What DDP does: average the local losses' gradients over ranks.
        dist.all_reduce(loss)
        loss /= world
        for g in grads.values():
            dist.all_reduce(g)
            g /= world
        if rank == 0:
            torch.save({"loss": loss, "grads": grads}, out_path)
    finally:
        dist.destroy_process_group()
