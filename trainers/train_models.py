"""From trainers/, the ANSWERS' folder (read after solving): ``python -m trainers.train_models``, the target and drafts.

A few minutes on 2 CPU cores for the shipped models, about 12 more for the 24-layer
``deep_target`` (``--only NAME`` trains one). Plain next-token training (it holds no exercise's
answer itself; its neighbours do, see trainers/__init__.py).

Four models, all on the help-topic text of ``speckata.models.corpus`` and all GPTs of
``speckata.models.gpt``:

- ``target``: the character-level target (about 1.25M parameters);
- ``draft``: a much smaller character-level draft (about 50k parameters), same tokenizer;
- ``deep_target``: the target's recipe at 24 layers instead of 6 (about 4.8M parameters), the
  twin on which EAGLE's one-layer head is a small part of a pass, as in the paper's setting
  (``--only deep_target``; the heads trained on it: ``train_medusa --on deep``, ``train_eagle --on deep``);
- ``word_draft``: a small draft over word pieces (``speckata.models.tokenizers.WordTokenizer``),
  the different-tokenizer draft of exercise 12.

Each is trained with cross-entropy on random windows of the text, AdamW, a linear warm-up and a
cosine decay; everything is seeded, and the run is a fixed number of steps (not a time budget),
so the same machine reproduces the same weights. The weights are saved as float16 state dicts in
``speckata/models/weights/<name>.pt``; the settings that produced them, the measured losses and
the time taken go into ``weights/settings.json``, and the word vocabulary into
``weights/word_tokenizer.json``. Tests and exercises only ever load these files.

Options: ``--only NAME`` (repeatable), ``--scale X`` (multiply every step count, e.g. 0.05 for a
smoke run), ``--out DIR`` (write somewhere else), ``--threads N``.
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

from speckata.models import corpus
from speckata.models.exit_agreement import mean_loss
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.pretrained import WEIGHTS
from speckata.models.tokenizers import CharTokenizer, WordTokenizer

WORD_VOCAB_SIZE = 1024

SETTINGS = {
    "target": {"tokenizer": "char", "width": 128, "layers": 6, "heads": 4, "context": 256,
               "steps": 600, "batch": 16, "window": 256, "lr": 3e-3, "seed": 1},
    # The shipped target's recipe at four times the depth: EAGLE's condition, a head of one layer
    # beside many (exercise 28's page, python -m speckata.bench heads --model deep).
    "deep_target": {"tokenizer": "char", "width": 128, "layers": 24, "heads": 4, "context": 256,
                    "steps": 600, "batch": 16, "window": 256, "lr": 3e-3, "seed": 1},
    "draft": {"tokenizer": "char", "width": 48, "layers": 1, "heads": 2, "context": 256,
              "steps": 400, "batch": 16, "window": 256, "lr": 4e-3, "seed": 2},
    "word_draft": {"tokenizer": "word", "width": 64, "layers": 2, "heads": 2, "context": 128,
                   "steps": 600, "batch": 16, "window": 128, "lr": 4e-3, "seed": 3},
}


def tokenizer_for(kind: str, text: str):
    return CharTokenizer() if kind == "char" else WordTokenizer.train(text, WORD_VOCAB_SIZE)


def learning_rate(step: int, steps: int, peak: float) -> float:
    warmup = max(1, steps // 20)
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(1, steps - warmup)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def step_and_smooth(optimizer, loss: torch.Tensor, smoothed: float | None) -> float:
    """One optimizer step on ``loss`` (no clipping); returns the loss smoothed for the progress bar."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return loss.item() if smoothed is None else 0.95 * smoothed + 0.05 * loss.item()


def as_committed(module: torch.nn.Module) -> None:
    """Eval mode, and every weight rounded through float16: what is committed, so what is measured."""
    module.eval()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(parameter.to(torch.float16).float())


def add_output_arguments(parser, scale_help: str) -> None:
    """--scale (of the step counts), --out (the weights' folder) and --threads (default 2)."""
    parser.add_argument("--scale", type=float, default=1.0, help=scale_help)
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="folder for the weights")
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")


def random_windows(data: torch.Tensor, batch: int, window: int, generator: torch.Generator) -> torch.Tensor:
    starts = torch.randint(0, data.numel() - window - 1, (batch,), generator=generator)
    return torch.stack([data[s : s + window + 1] for s in starts.tolist()])


def progress_bar(name: str, step: int, steps: int, loss: float, started: float) -> None:
    done = int(30 * step / steps)
    print(f"\r{name:<11} [{'#' * done}{'.' * (30 - done)}] {step}/{steps} loss {loss:.3f} {time.time() - started:.0f}s",
          end="", file=sys.stderr, flush=True)


def end_progress(started: float) -> float:
    """End the progress bar's line; returns the seconds since ``started``."""
    seconds = time.time() - started
    print(file=sys.stderr)
    return seconds


def train_one(name: str, settings: dict, scale: float) -> tuple[GPT, dict, object]:
    text, held_out = corpus.training_text(), corpus.held_out_text()
    tokenizer = tokenizer_for(settings["tokenizer"], text)
    data = torch.tensor(tokenizer.encode(text), dtype=torch.int64)
    held = torch.tensor(tokenizer.encode(held_out), dtype=torch.int64)
    torch.manual_seed(settings["seed"])
    config = GPTConfig(tokenizer.vocab_size, settings["context"], settings["width"], settings["layers"], settings["heads"])
    model = GPT(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings["lr"], betas=(0.9, 0.99), weight_decay=0.01)
    generator = torch.Generator().manual_seed(settings["seed"])
    steps = max(1, int(settings["steps"] * scale))
    started, smoothed = time.time(), float("nan")
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, settings["lr"])
        batch = random_windows(data, settings["batch"], settings["window"], generator)
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, config.vocab_size), batch[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        value = loss.item()
        smoothed = value if math.isnan(smoothed) else 0.95 * smoothed + 0.05 * value
        if step % 10 == 0 or step == steps - 1:
            progress_bar(name, step + 1, steps, smoothed, started)
    seconds = end_progress(started)
    model.eval()
    record = dict(settings, config=config.as_dict(), steps_run=steps, parameters=model.num_parameters(),
                  train_loss_smoothed=round(smoothed, 4), held_out_loss=round(mean_loss(model, held, settings["window"]), 4),
                  seconds=round(seconds, 1), tokens_seen=steps * settings["batch"] * settings["window"])
    return model, record, tokenizer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m trainers.train_models", description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", choices=sorted(SETTINGS), help="train only this model")
    add_output_arguments(parser, "multiply every step count")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    settings_path = args.out / "settings.json"
    summary = json.loads(settings_path.read_text()) if settings_path.exists() else {"models": {}}
    command = " ".join(["python -m trainers.train_models"] + [a for a in (argv if argv is not None else sys.argv[1:])
                                                                if not a.startswith("--out") and a != str(args.out)])
    versions = dict(python=platform.python_version(), torch=torch.__version__, threads=args.threads)
    if not args.only:  # the whole run: its command and versions stand for every model
        summary.update(versions, corpus="pydoc_data.topics, folded to ASCII; every tenth topic held out", command=command)
    for name in args.only or list(SETTINGS):
        model, record, tokenizer = train_one(name, SETTINGS[name], args.scale)
        if args.only:  # one model retrained alone: its own command and versions, the others' stay
            record.update(versions, command=command)
        state = {key: value.to(torch.float16) for key, value in model.state_dict().items()}
        torch.save(state, args.out / f"{name}.pt")
        if isinstance(tokenizer, WordTokenizer):
            (args.out / "word_tokenizer.json").write_text(json.dumps({"vocabulary": tokenizer.vocabulary}, indent=0))
        summary["models"][name] = record
        print(f"{name}: {record['parameters']:,} parameters, held-out loss {record['held_out_loss']} nats/token, "
              f"{record['seconds']} s", file=sys.stderr)
    settings_path.write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
