"""Exercise 21-medusa-heads: the suite's models, checks and bad inputs (tests/test_21_medusa_heads.py uses them).

Tiny random GPTs and moved heads for the generated cases, the comparison of a learner's tensors
(exercise 22's suite uses it too), the replay of a decoder run against the independent reference
(tests/reference/ex21_reference.py): a round whose tokens differ before any call does is named first
(tests/reference/round_events.py), then call by call and token by token; and Task 5's bad inputs.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure, call_learner, learner_function
from speckata.grading.events import call_mismatch, compared, lead_with_difference
from speckata.heads.medusa import MedusaHeads, RecordingHiddenModel
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.markov import MarkovModel
from tests.reference.call_by_call import check_call_by_call
from tests.reference.ex21_reference import reference_generate
from tests.reference.result_tail import check_counters
from tests.reference.round_events import lead_with_draws_or_tokens

EXERCISE = "21-medusa-heads"
KINDS = ("hidden", "forward", "crop", "tree", "keep_path")  # the reset of a stale cache is the contract's start, not compared


def tiny_gpt(seed: int, vocab: int = 7, width: int = 16) -> GPT:
    torch.manual_seed(seed)
    return GPT(GPTConfig(vocab_size=vocab, context=64, width=width, layers=1, heads=2)).eval()


def random_heads(target, num_heads: int, seed: int, scale: float = 0.5) -> MedusaHeads:
    """Heads that start as the target's and are then moved at random: not a copy, not noise."""
    heads = MedusaHeads.from_target(target, num_heads)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in heads.parameters():
            parameter.add_(scale * torch.randn(parameter.shape, generator=generator))
    return heads


def check_tensor(name, got, expected, case, exact=False, atol=1e-5):
    if not isinstance(got, torch.Tensor):
        raise GradingFailure(f"{name} must return a torch tensor; it returned {type(got).__name__}.\n{case}")
    if tuple(got.shape) != tuple(expected.shape):
        raise GradingFailure(f"{name} returned a tensor of shape {tuple(got.shape)}; expected "
                             f"{tuple(expected.shape)}.\n{case}")
    if exact:
        if got.dtype != expected.dtype or not torch.equal(got, expected):
            raise GradingFailure(f"{name} returned\n  {got.tolist()} ({got.dtype})\nexpected\n  {expected.tolist()} "
                                 f"({expected.dtype}).\n{case}")
        return
    if not torch.allclose(got.detach().double(), expected.detach().double(), atol=atol, rtol=1e-5):
        worst = (got.detach().double() - expected.detach().double()).abs().max().item()
        raise GradingFailure(f"{name} differs from the reference by up to {worst:.3g} (tolerance {atol}).\n{case}")


def run(target, heads, prompt, max_new_tokens, what):
    case = f"case: {what}, prompt {list(prompt)[:12]}, max_new_tokens {max_new_tokens}"
    expected = reference_generate(target, heads, list(prompt), max_new_tokens)
    target.reset()
    target.forward_new_hidden([prompt[0]])  # a stale cache: the contract starts with reset()
    recorder = RecordingHiddenModel(target)
    try:
        got = call_learner(learner_function(EXERCISE, "medusa_generate"), recorder, heads, list(prompt), max_new_tokens,
                           case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        first = call_mismatch(*([c for c in calls if c[0] in KINDS] for calls in (recorder.calls, expected.calls)), shown)
        raise lead_with_difference(failure, "medusa_generate", first) from None
    # a round's tokens, named before the next round's call they change (greedy: no generator, no draws)
    lead_with_draws_or_tokens(got, recorder, expected, None, None, case, "medusa_generate", KINDS)
    return got, recorder, expected, case


def shown(call):
    if call[0] == "hidden":
        return f"forward_new_hidden({list(call[1])}) with {call[2]} tokens cached"
    if call[0] == "crop":
        return f"crop({call[1]}) with {call[2]} tokens cached"
    return f"{call[0]}{call[1:]}"


def check_tokens(got, expected_tokens, case, what="the reference's"):
    mine = list(getattr(got, "tokens", []))
    if mine != expected_tokens:
        at = next((i for i, (a, b) in enumerate(zip(mine, expected_tokens)) if a != b), min(len(mine), len(expected_tokens)))
        raise GradingFailure(f"medusa_generate's tokens differ from {what} at new token {at}: expected "
                             f"{expected_tokens[at:at + 8]}, got {mine[at:at + 8]} ({len(mine)} tokens, expected "
                             f"{len(expected_tokens)}).\n{case}")
    if not all(type(t) is int for t in mine):
        raise GradingFailure(f"tokens must be plain Python ints (use .tolist() or int()).\n{case}")


def check_run(got, recorder, expected, case):
    mine = [c for c in compared(recorder.calls) if c[0] in KINDS]  # the crop rule: no-op crops are not compared
    theirs = [c for c in compared(expected.calls) if c[0] in KINDS]

    def around(before):  # the round the differing call belongs to, and the one before it
        done = sum(1 for c in before if c[0] == "crop")
        reasoning = "\n".join("    " + line for line in expected.rounds[max(0, done - 1): done + 1])
        return f"  the reference's rounds around it:\n{reasoning}\n"

    check_call_by_call("medusa_generate", mine, theirs, shown, case, around)
    if len(mine) != len(theirs):
        raise GradingFailure(f"The contract makes {len(theirs)} calls (forward_new_hidden and crop) on the target; you "
                             f"made {len(mine)}: {[shown(c) for c in mine[len(theirs):len(theirs) + 2]]} "
                             f"{'beyond' if len(mine) > len(theirs) else 'missing after'} the expected ones.\n{case}")
    check_tokens(got, expected.tokens, case)
    check_counters(got, expected, case)


def bad_inputs():
    tiny = tiny_gpt(0)
    heads = MedusaHeads.from_target(tiny, 2)
    ids = torch.tensor([[1, 2, 3, 4]])
    logits = torch.zeros(2, 1, 4, 7)
    return {
        "zero-heads": ("medusa_labels", (ids, 0), ("num_heads",)),
        "bool-heads": ("medusa_labels", (ids, True), ("num_heads",)),
        "ids-1d": ("medusa_labels", (torch.tensor([1, 2, 3]), 2), ("ids",)),
        "ids-float": ("medusa_labels", (torch.zeros(1, 4), 2), ("ids",)),
        "hidden-wrong-width": ("medusa_logits", (heads, torch.zeros(3, 8)), ("width",)),
        "labels-wrong-shape": ("medusa_loss", (logits, torch.zeros(2, 1, 3, dtype=torch.int64)), ("shape",)),
        "decay-zero": ("medusa_loss", (logits, torch.zeros(2, 1, 4, dtype=torch.int64), 0.0), ("decay",)),
        "decay-nan": ("medusa_loss", (logits, torch.zeros(2, 1, 4, dtype=torch.int64), float("nan")), ("decay",)),
        "target-without-hidden": ("medusa_generate", (MarkovModel([[0.5, 0.5], [0.5, 0.5]]), heads, [0], 4),
                                  ("forward_new_hidden",)),
        "heads-of-another-width": ("medusa_generate", (tiny, MedusaHeads(8, 7, 2), [0], 4), ("width",)),
        "empty-prompt": ("medusa_generate", (tiny, heads, [], 4), ("prompt",)),
        "negative-max-new-tokens": ("medusa_generate", (tiny, heads, [0], -1), ("max_new_tokens",)),
        "vocabulary-mismatch": ("medusa_generate", (tiny, MedusaHeads(16, 9, 2), [0], 4), ("vocabulary",)),
    }
