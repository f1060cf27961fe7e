"""ANSWERS to exercise 21, read after solving: ``python -m trainers.train_medusa`` trains the Medusa heads.

It trains the committed Medusa heads in a few minutes on 2 CPU cores.

CONTAINS THE ANSWERS to exercise 21: read it after solving (the trainers live outside the
speckata package, so the grader's sandbox never holds them).

Three heads (``speckata.heads.medusa.MedusaHeads``) on the committed character-level target,
which stays frozen: its last hidden states are computed under ``torch.no_grad()`` and only the
heads learn. Every head starts as a copy of the target's head (``MedusaHeads.from_target``). Each
step takes a batch of random windows of the training text and trains head k (k = 0, 1, 2) to
predict, at position t, the token at t + k + 2: the target's own head already predicts t + 1.
The loss is Medusa's: the per-head cross-entropies weighted 0.8**k and summed. AdamW, a linear
warm-up and a cosine decay, a fixed number of steps, everything seeded.

The weights go to ``speckata/models/weights/medusa_heads.pt`` (float16) and the settings, the
measured losses, the per-head top-1 accuracy on the held-out text and the time taken to
``weights/medusa.json``. Tests and exercises only ever load these files.

Options: ``--scale X`` (multiply the step count, e.g. 0.05 for a smoke run), ``--out DIR``,
``--threads N``, ``--on deep`` (train on the target's 24-layer twin instead, frozen as well:
``medusa_heads_deep.pt`` and ``medusa_deep.json``, for ``python -m speckata.bench heads --model deep``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import torch
import torch.nn.functional as F

from speckata.heads.medusa import MedusaHeads
from speckata.models.pretrained import HEAD_TARGETS, on_target, text_windows
from trainers.train_models import (
    add_output_arguments,
    as_committed,
    end_progress,
    learning_rate,
    progress_bar,
    random_windows,
    step_and_smooth,
)

SETTINGS = {"num_heads": 3, "steps": 2000, "batch": 16, "window": 128, "lr": 3e-3, "decay": 0.8, "seed": 21,
            "held_out_window": 128}


def all_head_logits(heads: MedusaHeads, hidden: torch.Tensor) -> torch.Tensor:
    """(K, B, T, V): Medusa's ResBlock then the projection, for every head."""
    return torch.stack([projection(hidden + F.silu(block(hidden)))
                        for block, projection in zip(heads.blocks, heads.projections)])


def shifted_losses(logits: torch.Tensor, ids: torch.Tensor) -> list[torch.Tensor]:
    """Head k's cross-entropy: its logits at t against ids[t + k + 2] (Medusa's slicing, no labels tensor)."""
    return [F.cross_entropy(logits[k, :, : -(k + 2)].reshape(-1, logits.shape[-1]), ids[:, k + 2 :].reshape(-1))
            for k in range(logits.shape[0])]


@torch.no_grad()
def held_out_accuracy(target, heads: MedusaHeads, window: int) -> list[float]:
    """Per-head top-1 accuracy over every held-out window (positions whose token k + 2 ahead exists)."""
    ids = text_windows("held_out", window)
    right = [0] * heads.num_heads
    total = [0] * heads.num_heads
    for chunk in ids.split(32):
        logits = all_head_logits(heads, target.hidden_states(chunk))
        for k in range(heads.num_heads):
            guesses = logits[k, :, : -(k + 2)].argmax(dim=-1)
            right[k] += int((guesses == chunk[:, k + 2 :]).sum())
            total[k] += guesses.numel()
    return [round(r / t, 4) for r, t in zip(right, total)]


def train(settings: dict, scale: float, on: str = "shipped") -> tuple[MedusaHeads, dict]:
    target = HEAD_TARGETS[on]()
    target.requires_grad_(False)
    data = text_windows("train", 1).reshape(-1)
    torch.manual_seed(settings["seed"])
    heads = MedusaHeads.from_target(target, settings["num_heads"])
    optimizer = torch.optim.AdamW(heads.parameters(), lr=settings["lr"], betas=(0.9, 0.99), weight_decay=0.0)
    generator = torch.Generator().manual_seed(settings["seed"])
    steps = max(1, int(settings["steps"] * scale))
    weights = [settings["decay"] ** k for k in range(settings["num_heads"])]
    started, smoothed = time.time(), None
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, settings["lr"])
        batch = random_windows(data, settings["batch"], settings["window"], generator)[:, :-1]
        with torch.no_grad():
            hidden = target.hidden_states(batch)
        losses = shifted_losses(all_head_logits(heads, hidden), batch)
        loss = sum(w * l for w, l in zip(weights, losses))
        smoothed = step_and_smooth(optimizer, loss, smoothed)
        if step % 10 == 0 or step == steps - 1:
            progress_bar("medusa", step + 1, steps, smoothed, started)
    seconds = end_progress(started)
    as_committed(heads)
    record = dict(settings, steps_run=steps, width=heads.width, vocab_size=heads.vocab_size,
                  parameters=sum(p.numel() for p in heads.parameters()), train_loss_smoothed=round(smoothed, 4),
                  held_out_top1=held_out_accuracy(target, heads, settings["held_out_window"]),
                  seconds=round(seconds, 1))
    return heads, record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainers.train_medusa", description=__doc__.split("\n")[0])
    add_output_arguments(parser, "multiply the step count")
    parser.add_argument("--on", choices=sorted(HEAD_TARGETS), default="shipped",
                        help="the target to train on: the shipped one, or its 24-layer twin (deep)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    heads, record = train(SETTINGS, args.scale, args.on)
    torch.save({key: value.to(torch.float16) for key, value in heads.state_dict().items()},
               args.out / on_target("medusa_heads", args.on, ".pt"))
    record.update(python=platform.python_version(), torch=torch.__version__, threads=args.threads,
                  target=f"speckata/models/weights/{'target' if args.on == 'shipped' else 'deep_target'}.pt (frozen)",
                  command="python -m trainers.train_medusa" + (f" --scale {args.scale}" if args.scale != 1 else "")
                  + (f" --on {args.on}" if args.on != "shipped" else ""))
    (args.out / on_target("medusa", args.on, ".json")).write_text(json.dumps(record, indent=1) + "\n")
    print(f"medusa: {record['parameters']:,} parameters, held-out top-1 per head {record['held_out_top1']}, "
          f"{record['seconds']} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
