"""``python -m speckata.real.train_draft``: distil the tiny draft from SmolLM2 (a few minutes on 2 cores).

The draft (``speckata.real.tiny_draft``) starts as SmolLM2's first two layers, final norm and
frozen embeddings, which on their own agree with SmolLM2's top token only ~7% of the time. It is
trained to match SmolLM2's next-token distributions with exercise 09's loss,
``distillation_loss(student_logits, teacher_logits, temperature)``: the KL divergence from the
teacher at every position, over the whole vocabulary, on text this machine already has (the Python standard library's
prose and code, part of it wrapped in SmolLM2's chat template so the draft also sees replies).
The teacher runs once per batch, in the same step. Fixed seed, fixed number of steps; a time
cap stops early (and says so) on a slow machine. Writes ``.speckata/real/tiny-draft/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import sys
import sysconfig
import time
from pathlib import Path

import torch

HELD_OUT = 6  # windows kept apart to measure agreement before and after
CHAT_REQUESTS = [
    "Explain this part of the Python documentation.",
    "Summarise how this works.",
    "What does the documentation say about this?",
    "Write the reference text for this topic.",
]


def corpus_texts(max_chars: int) -> list[tuple[str, str]]:
    """(kind, text) pairs from the standard library: documentation prose and module sources."""
    import pydoc_data.topics

    texts = [("prose", text) for _, text in sorted(pydoc_data.topics.topics.items())]
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.glob("*.py")):
        texts.append(("code", path.read_text(errors="replace")))
    random.Random(0).shuffle(texts)
    kept, total = [], 0
    for kind, text in texts:
        text = text[:6000]
        kept.append((kind, text))
        total += len(text)
        if total >= max_chars:
            break
    return kept


def token_windows(tokenizer, texts, window: int) -> torch.Tensor:
    ids: list[int] = []
    for index, (kind, text) in enumerate(texts):
        if kind == "prose" and index % 2 == 0:  # half the prose as chat replies
            messages = [{"role": "user", "content": CHAT_REQUESTS[index % len(CHAT_REQUESTS)]},
                        {"role": "assistant", "content": text}]
            ids += tokenizer.apply_chat_template(messages, tokenize=True, return_dict=False)
        else:
            ids += tokenizer(text).input_ids + [tokenizer.eos_token_id]
    count = len(ids) // window
    return torch.tensor(ids[: count * window]).view(count, window)


@torch.no_grad()
def agreement(draft, target, windows: torch.Tensor) -> dict:
    """Top-1 agreement and the acceptance rate Σ min(p, q) at temperature 1, on held-out windows."""
    top, alpha, count = 0.0, 0.0, 0
    for batch in windows.split(4):
        p = target(batch).logits.softmax(-1)
        q = draft(batch).logits.softmax(-1)
        top += float((p.argmax(-1) == q.argmax(-1)).sum())
        alpha += float(torch.minimum(p, q).sum(-1).sum())
        count += batch.numel()
    return {"top1_agreement": round(top / count, 4), "alpha_t1": round(alpha / count, 4)}


def distillation_loss_function():
    """Exercise 09's loss from solutions/, and where it came from (for the saved metadata)."""
    from speckata.real.graded import graded_function

    return graded_function("ex09_distillation_loss", "distillation_loss"), "solutions/ex09_distillation_loss.py"


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m speckata.real.train_draft", description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=2, help="windows per step")
    parser.add_argument("--window", type=int, default=256, help="tokens per window")
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--minutes", type=float, default=10.0, help="stop early after this long (default 10)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1: steadier on a busy machine)")
    parser.add_argument("--dry-run", action="store_true", help="train but do not write the weights")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    from speckata.real.load import load_target, load_tokenizer
    from speckata.real.tiny_draft import SETTINGS_FILE, WEIGHTS_FILE, draft_from_target, save_draft

    args = parse(sys.argv[1:] if argv is None else argv)
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    started = time.monotonic()
    target, tokenizer = load_target(), load_tokenizer()
    for parameter in target.parameters():
        parameter.requires_grad_(False)
    windows = token_windows(tokenizer, corpus_texts(max_chars=(args.steps * args.batch + 16) * args.window * 4), args.window)
    held_out, train = windows[-HELD_OUT:], windows[:-HELD_OUT]
    print(f"corpus: {windows.numel()} tokens in {len(windows)} windows of {args.window}; {HELD_OUT} held out")

    draft = draft_from_target(target, args.layers)
    draft.model.embed_tokens.weight.requires_grad_(False)
    trainable = [p for p in draft.parameters() if p.requires_grad]
    before = agreement(draft, target, held_out)
    print(f"before: {before}")
    loss_fn, loss_source = distillation_loss_function()
    optimizer = torch.optim.AdamW(trainable, lr=args.lr, weight_decay=0.0)
    warmup = max(1, args.steps // 40)
    draft.train()
    losses, step = [], 0
    for step in range(args.steps):
        if time.monotonic() - started > args.minutes * 60:
            print(f"time cap of {args.minutes} min reached after {step} steps")
            break
        lr = args.lr * min(1.0, (step + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for group in optimizer.param_groups:
            group["lr"] = lr
        batch = train[(step * args.batch) % len(train):][: args.batch]
        with torch.no_grad():
            teacher = target(batch).logits
        loss = loss_fn(draft(batch).logits, teacher, args.temperature)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        if step % 10 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {losses[-1]:.3f}  lr {lr:.2e}  {time.monotonic() - started:.0f} s", flush=True)
    draft.eval()
    after = agreement(draft, target, held_out)
    seconds = time.monotonic() - started
    print(f"after:  {after}  ({seconds:.0f} s in all)")
    settings = {
        "layers": args.layers, "steps_done": len(losses), "steps_planned": args.steps, "batch": args.batch,
        "window": args.window, "lr": args.lr, "temperature": args.temperature, "loss": loss_source,
        "train_tokens": len(losses) * args.batch * args.window, "seconds": round(seconds, 1),
        "held_out_before": before, "held_out_after": after, "first_loss": round(losses[0], 4) if losses else None,
        "last_loss": round(losses[-1], 4) if losses else None, "python": platform.python_version(),
        "torch": torch.__version__, "threads": args.threads,
    }
    if not args.dry_run:
        save_draft(draft, settings)
        print(f"wrote {WEIGHTS_FILE} ({WEIGHTS_FILE.stat().st_size / 1e6:.1f} MB) and {SETTINGS_FILE.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
