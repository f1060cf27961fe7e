"""How well each early exit of a target agrees with the whole target, on held-out text (exercise 23).

The exit after k layers (k = 1 .. L - 1) is layer k - 1's output read through the model's final
norm and head (``GPT.exit_logits``), exercise 23's draft. Its agreement is the share of held-out
positions where its greedy choice equals the full model's; the full model's own quality is its
held-out loss, measured as ``python -m trainers.train_models`` measures it (``mean_loss``, here).
``compare_targets`` measures the shipped target (never trained to exit early) and a LayerSkip one
side by side; ``python -m trainers.train_layerskip`` stores that in ``weights/layerskip.json``.

>>> from speckata.models.gpt import GPT, GPTConfig
>>> model = GPT(GPTConfig(vocab_size=5, context=16, width=8, layers=3, heads=2)).eval()
>>> agreement = exit_agreement(model, torch.randint(0, 5, (2, 16), generator=torch.Generator().manual_seed(0)))
>>> sorted(agreement), all(0 <= share <= 1 for share in agreement.values())
([1, 2], True)
"""

from __future__ import annotations

import torch

WINDOW = 256  # the training window, and the held-out loss's


@torch.no_grad()
def exit_agreement(model, windows: torch.Tensor) -> dict[int, float]:
    """{k: share of positions of ``windows`` (N, T) where the exit after k layers picks the full model's token}."""
    x = model.token_embedding(windows) + model.position_embedding(torch.arange(windows.shape[1]))
    exits = []
    for block in model.blocks:
        x = block(x)
        exits.append(model.exit_logits(x).argmax(dim=-1))
    full = exits[-1]
    return {k: round(float((exits[k - 1] == full).float().mean()), 4) for k in range(1, model.num_layers)}


@torch.no_grad()
def mean_loss(model, data: torch.Tensor, window: int) -> float:
    """Cross-entropy per token over consecutive windows of ``data`` (the trainers report it too)."""
    total, count = 0.0, 0
    for start in range(0, data.numel() - window - 1, window):
        chunk = data[start : start + window + 1]
        logits = model(chunk[None, :-1])[0]
        total += float(torch.nn.functional.cross_entropy(logits, chunk[1:], reduction="sum"))
        count += window
    return total / max(count, 1)


def measure(model, window: int = WINDOW) -> dict:
    """The held-out loss of the full model and the agreement of each exit, over every held-out window."""
    from speckata.models import corpus
    from speckata.models.pretrained import char_tokenizer, text_windows

    held = torch.tensor(char_tokenizer().encode(corpus.held_out_text()), dtype=torch.int64)
    return {"held_out_loss": round(mean_loss(model, held, window), 4),
            "exit_agreement": exit_agreement(model, text_windows("held_out", window))}


def compare_targets(layerskip_model=None) -> dict:
    """{"shipped": measure(shipped target), "layerskip": measure(LayerSkip target)}, both float16 weights."""
    from speckata.models.pretrained import load_layerskip_target, load_target

    return {"shipped": measure(load_target()), "layerskip": measure(layerskip_model or load_layerskip_target())}
