"""From trainers/, the ANSWERS' folder (read after solving): ``python -m trainers.train_layerskip``, the LayerSkip target.

About 10-15 minutes on one thread.

Holds no exercise's answer (it trains a model; exercise 23's decoder is not in it).

The committed target's twin (same shape: 6 layers, width 128, 4 heads, the same text, steps,
batch, window, learning rate and schedule as ``python -m trainers.train_models``'s "target"),
trained from scratch with LayerSkip's recipe (Elhoushi et al., 2024, arXiv 2404.16710, section 4)
so that its early exits draft well for exercise 23:

- layer dropout whose rate rises with depth: in training, each sequence of the batch skips layer
  l (counted from 0) with probability p_l = S(t) D(l) p_max, D(l) = exp(l ln 2 / (L - 1)) - 1
  (0 at the first layer, 1 at the last), S(t) = 1 (no time curriculum);
- an early-exit loss: after every layer, the SHARED final norm and head read the residual stream
  and a cross-entropy is taken; the losses are summed with weights e(l) rising with depth and
  divided by the sum of the weights in use, e(l) = e_scale * (1 + 2 + ... + (l + 1)) for l < L - 1
  and 1 + 2 + ... + L for the last layer: LayerSkip's code (its torchtune recipe's early-exit loss,
  scale type "sum_l": a cumulative sum of layer index + 1, e_scale on every layer but the last).
  The paper writes the sum from 0, which would give the first layer's exit no weight at all;
- the gradual curriculum: the last layer's loss is on from the start, and one more exit, from the
  deepest to the shallowest, is switched on every ``steps / (2 L)`` steps, so every exit is on for
  the second half of training.

Measured and written to ``speckata/models/weights/layerskip.json`` beside the settings and the
CPU seconds: the full model's held-out loss (``speckata.models.exit_agreement.mean_loss``, as the shipped
target's) and the held-out agreement of every exit with the full model
(``speckata.models.exit_agreement``), for this target and the shipped one, both from their
float16 weights. The weights go to ``weights/layerskip_target.pt`` (float16).

Options: ``--scale X`` (multiply the step count, e.g. 0.05 for a smoke run), ``--out DIR``,
``--threads N`` (default 1), ``--e-scale X`` and ``--p-max X`` (the recipe's two weights, defaults as
committed).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from speckata.models.exit_agreement import compare_targets
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.pretrained import WEIGHTS, text_windows
from speckata.models.tokenizers import CharTokenizer
from trainers.train_models import SETTINGS as PLAIN_SETTINGS
from trainers.train_models import learning_rate, progress_bar, random_windows

SETTINGS = dict(PLAIN_SETTINGS["target"],
                seed=23,  # its own seed: the same seed would not make the two runs comparable anyway
                p_max=0.05,  # the deepest layer's skip rate; small, so the full model's loss stays near the shipped one
                e_scale=0.1,  # the early exits' weight against the last layer's (at p_max 0.1, e_scale 1.0, 0.5
                # and 0.3 cost the full model 6-8% of loss: speckata/models/weights/layerskip-sweep.json)
                curriculum="gradual",  # exits switched on from the deepest, one every steps / (2 L) steps
                time_curriculum="S(t) = 1")


def skip_rates(layers: int, p_max: float) -> list[float]:
    """p_l = D(l) p_max, D(l) = e^{l ln 2 / (L - 1)} - 1: 0 for the first layer, p_max for the last."""
    return [(math.exp(l * math.log(2) / (layers - 1)) - 1) * p_max for l in range(layers)]


def exit_weights(layers: int, e_scale: float) -> list[float]:
    """e(l), rising with depth: e_scale * (1 + ... + (l + 1)) below the last layer, 1 + ... + L at it."""
    return [e_scale * (l + 1) * (l + 2) / 2 for l in range(layers - 1)] + [layers * (layers + 1) / 2]


def exits_on(step: int, steps: int, layers: int) -> list[bool]:
    """The gradual curriculum: the last exit always, exit l from step (L - 1 - l) * steps / (2 L)."""
    every = steps / (2 * layers)
    return [step >= (layers - 1 - l) * every for l in range(layers)]


def layerskip_loss(model: GPT, batch: torch.Tensor, rates, weights, on, generator) -> torch.Tensor:
    """The normalised sum of the exits' cross-entropies, the layers skipped per sequence as drawn."""
    ids, targets = batch[:, :-1], batch[:, 1:]
    x = model.token_embedding(ids) + model.position_embedding(torch.arange(ids.shape[1]))
    total, weight_in_use = 0.0, 0.0
    for l, block in enumerate(model.blocks):
        kept = torch.rand(ids.shape[0], generator=generator) >= rates[l]  # (B,): which sequences run layer l
        if bool(kept.all()):
            x = block(x)
        elif bool(kept.any()):
            x = x.clone()
            x[kept] = block(x[kept])  # a skipped sequence carries its residual stream past the layer unchanged
        if on[l]:
            logits = model.head(model.norm(x))  # the shared final norm and head, at every exit
            total = total + weights[l] * F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            weight_in_use += weights[l]
    return total / weight_in_use


def train(settings: dict, scale: float) -> tuple[GPT, dict]:
    data = text_windows("train", 1).reshape(-1)
    torch.manual_seed(settings["seed"])
    model = GPT(GPTConfig(CharTokenizer().vocab_size, settings["context"], settings["width"], settings["layers"], settings["heads"]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings["lr"], betas=(0.9, 0.99), weight_decay=0.01)
    generator = torch.Generator().manual_seed(settings["seed"])
    steps = max(1, int(settings["steps"] * scale))
    rates, weights = skip_rates(settings["layers"], settings["p_max"]), exit_weights(settings["layers"], settings["e_scale"])
    started, cpu_started, smoothed = time.time(), time.process_time(), None
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, settings["lr"])
        batch = random_windows(data, settings["batch"], settings["window"], generator)
        loss = layerskip_loss(model, batch, rates, weights, exits_on(step, steps, settings["layers"]), generator)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        smoothed = loss.item() if smoothed is None else 0.95 * smoothed + 0.05 * loss.item()
        if step % 10 == 0 or step == steps - 1:
            progress_bar("layerskip", step + 1, steps, smoothed, started)
    print(file=sys.stderr)
    record = dict(settings, config=model.config.as_dict(), steps_run=steps, parameters=model.num_parameters(),
                  skip_rates=[round(r, 4) for r in rates], exit_weights=weights,
                  train_loss_smoothed=round(smoothed, 4), seconds=round(time.time() - started, 1),
                  cpu_seconds=round(time.process_time() - cpu_started, 1))
    return model.eval(), record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainers.train_layerskip", description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the step count")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="folder for the weights")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--e-scale", type=float, default=SETTINGS["e_scale"], help="the early exits' loss weight")
    parser.add_argument("--p-max", type=float, default=SETTINGS["p_max"], help="the deepest layer's skip rate")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    model, record = train(dict(SETTINGS, e_scale=args.e_scale, p_max=args.p_max), args.scale)
    state = {key: value.to(torch.float16) for key, value in model.state_dict().items()}
    torch.save(state, args.out / "layerskip_target.pt")
    model.load_state_dict({key: value.float() for key, value in state.items()})  # measure what is committed
    record.update(measured=compare_targets(model), python=platform.python_version(), torch=torch.__version__,
                  threads=args.threads, command="python -m trainers.train_layerskip" +
                  (f" --scale {args.scale}" if args.scale != 1 else "") +
                  (f" --e-scale {args.e_scale}" if args.e_scale != SETTINGS["e_scale"] else "") +
                  (f" --p-max {args.p_max}" if args.p_max != SETTINGS["p_max"] else ""))
    (args.out / "layerskip.json").write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record["measured"], indent=1), f"{record['cpu_seconds']} CPU s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
