"""Exercise 23-early-exit: an independent reference, written from the exercise text.

It imports neither solutions/ nor the exercise's checks. It keeps its own count of what the
shallow layers (0 .. exit_layer - 1) and the deep ones have read instead of asking the model, runs
the rule of exercise 01 as one loop over the positions, and records, per round, the cells of the
shared round table (speckata/grading/round_table.py) that the failure messages show.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from speckata.decoding.baseline import SpeculativeResult
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token
from speckata.grading.round_table import TableRound
from speckata.models.early_exit import RecordingLayerModel
from speckata.models.gpt import GPT, GPTConfig


def layer_model(seed: int, vocab: int = 5, layers: int = 3, width: int = 16, sharpness: float = 4.0,
                layer_gain: float = 4.0) -> GPT:
    """A tiny random GPT with far-from-uniform next-token distributions (its head scaled by
    ``sharpness``) whose every layer moves the residual stream a lot (its attention and MLP outputs
    scaled by ``layer_gain``), so that an early exit disagrees with the full model."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = GPT(GPTConfig(vocab_size=vocab, context=64, width=width, layers=layers, heads=2)).eval()
    with torch.no_grad():
        model.head.weight.mul_(sharpness)
        for block in model.blocks:
            block.proj.weight.mul_(layer_gain)
            block.mlp[2].weight.mul_(layer_gain)
    return model


def reference_draft(model, sequence, exit_layer, gamma, generator, temperature=1.0):
    """The contract's drafting: (drafts, q (gamma, V), the layer-exit_layer states of every row fed)."""
    return _draft(model, list(sequence), exit_layer, gamma, generator, temperature)


def _draft(model, sequence, exit_layer, gamma, generator, temperature):
    fed = model.cache_length  # at a round's start every layer holds the same tokens
    drafts, rows, states = [], [], []
    for i in range(gamma):
        new = sequence[fed:] if i == 0 else [drafts[-1]]
        out = model.forward_layers(model.embed_new(new), 0, exit_layer)
        states.extend(out.unbind(0))
        rows.append(next_token_probabilities(model.exit_logits(out[-1]), temperature))
        drafts.append(sample_token(rows[-1], generator))
    q = torch.stack(rows) if rows else torch.zeros(0, model.vocab_size, dtype=torch.float64)
    h = torch.stack(states) if states else torch.zeros(0, model.width)
    return drafts, q, h


def _verify(model, sequence, drafts, states, exit_layer, temperature, shallow_read):
    """``shallow_read``: how many tokens the first exit_layer layers hold (the reference's own count)."""
    last = (sequence + drafts)[shallow_read:]
    h = torch.cat([states, model.forward_layers(model.embed_new(last), 0, exit_layer)], dim=0)
    out = model.forward_layers(h, exit_layer, model.num_layers)
    tail = out[out.shape[0] - len(drafts) - 1:]
    return next_token_probabilities(model.exit_logits(tail), temperature)


def reference_verify(model, sequence, drafts, states, exit_layer, temperature=1.0):
    shallow = model.cache_length + (len(states) if len(drafts) else 0)
    return _verify(model, list(sequence), list(drafts), states, exit_layer, temperature, shallow)


def _accept(p, q, drafts, generator):
    """Decisions (name, token, u, p/q) and the tokens emitted; one uniform per tested draft, one sample last."""
    decisions = []
    for i, x in enumerate(drafts):
        u, ratio = draw_uniform(generator), float(p[i][x]) / float(q[i][x])
        if u < ratio:
            decisions.append(("accept", x, u, ratio))
            continue
        leftover = (p[i] - q[i]).clamp(min=0)
        emitted = sample_token(leftover if float(leftover.sum()) > 1e-12 else p[i], generator)
        decisions.append(("reject", x, u, ratio))
        decisions.append(("residual", emitted, None, None))
        return decisions, [x for name, x, _, _ in decisions if name == "accept"] + [emitted]
    emitted = sample_token(p[len(drafts)], generator)
    decisions.append(("bonus", emitted, None, None))
    return decisions, list(drafts) + [emitted]


@dataclass
class ReferenceRun(SpeculativeResult):
    """The result the contract's decoder returns, and what it did on the way."""

    layer_computations: int = 0
    calls: list[tuple] = field(default_factory=list)
    rounds: list[TableRound] = field(default_factory=list)
    generator_state: torch.Tensor | None = None
    recorder: RecordingLayerModel | None = None  # its calls, with the generator's state before each


@torch.no_grad()
def reference_generate(model, prompt, max_new_tokens, exit_layer, gamma, seed, temperature=1.0) -> ReferenceRun:
    """The contract's decoder, on a recorder of its own around ``model`` (which it resets)."""
    generator = torch.Generator().manual_seed(seed)
    recorder = RecordingLayerModel(model, generator)  # with the generator: the draws between its calls are counted
    recorder.reset()
    before = model.layer_computations
    sequence, run = list(prompt), ReferenceRun()
    while len(run.tokens) < max_new_tokens:
        k = min(gamma, max_new_tokens - len(run.tokens) - 1)
        drafts, q, states = _draft(recorder, sequence, exit_layer, k, generator, temperature)
        shallow = recorder.cache_length + (states.shape[0] if k else 0)
        p = _verify(recorder, sequence, drafts, states, exit_layer, temperature, shallow)
        decisions, tokens = _accept(p, q, drafts, generator)
        sequence += tokens
        run.tokens += tokens
        run.accepted_per_pass.append(len(tokens) - 1)
        run.drafted_per_pass.append(k)
        run.target_passes += 1
        run.draft_passes += k
        crop = len(sequence) - 1 if recorder.cache_length >= len(sequence) else None
        if crop is not None:
            recorder.crop(crop)
        run.rounds.append(TableRound(
            [str(drafts), "-" if crop is None else str(crop)],
            [([name, str(token), "" if u is None else f"{u:.4f}", "" if ratio is None else f"{ratio:.4f}"],
              None if name == "reject" else str(token))
             for name, token, u, ratio in decisions]))
    run.layer_computations = model.layer_computations - before
    run.calls, run.recorder = list(recorder.calls), recorder
    run.generator_state = generator.get_state()
    return run
