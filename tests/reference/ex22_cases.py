"""Exercise 22-eagle-head: the suite's models, cases and checks (tests/test_22_eagle_head.py uses them).

Tiny random GPTs and heads for the generated cases, the comparisons of a learner's tensors, drafts
and decoder runs with the independent reference (tests/reference/ex22_reference.py), each failure
worded for a person, and the exact law of a tiny GPT's sequences for the chi-square test.
"""

from __future__ import annotations

from itertools import product

import torch

from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import call_mismatch, compared, lead_with_difference
from speckata.heads.eagle import EagleHead, RecordingEagleModel
from speckata.models.gpt import GPT, GPTConfig
from tests.reference.call_by_call import check_call_by_call
from tests.reference.ex21_cases import check_tensor, shown  # shown: one target call in words, as 21 shows it
from tests.reference.ex22_reference import reference_draft, reference_generate
from tests.reference.result_tail import check_tokens_counters_and_draws
from tests.reference.round_events import lead_with_draws_or_tokens


def tiny_gpt(seed: int, vocab: int = 7, width: int = 16, sharpness: float = 1.0) -> GPT:
    torch.manual_seed(seed)
    model = GPT(GPTConfig(vocab_size=vocab, context=64, width=width, layers=1, heads=2)).eval()
    with torch.no_grad():
        model.head.weight.mul_(sharpness)  # sharper next-token distributions
    return model


def random_head(width: int, seed: int) -> EagleHead:
    torch.manual_seed(seed)
    return EagleHead(width, heads=2, inner=8, mlp_width=8).eval()


def check_triple(got, expected, case):
    if not isinstance(got, tuple) or len(got) != 3:
        raise GradingFailure(f"eagle_pairs must return a tuple (features, tokens, following); it returned "
                             f"{type(got).__name__}.\n{case}")
    for name, mine, theirs in zip(("features", "tokens", "following"), got, expected):
        check_tensor(f"eagle_pairs' {name}", mine, theirs, case, exact=True)


def check_draft(eagle_draft, target, head, features, tokens, gamma, seed, temperature, what):
    case = f"case: {what}, {features.shape[0]} features, tokens {tokens.tolist()}, gamma {gamma}, seed {seed}, " \
           f"temperature {temperature}"
    mine, theirs = torch.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    got = call_learner(eagle_draft, target, head, features, tokens, gamma, mine, temperature, case=case)
    drafts, q = reference_draft(target, head, features, tokens, gamma, theirs, temperature)
    if not isinstance(got, tuple) or len(got) != 2:
        raise GradingFailure(f"eagle_draft must return (drafts, q); it returned {type(got).__name__}.\n{case}")
    if got[0] != drafts or not all(type(t) is int for t in got[0]):
        raise GradingFailure(f"eagle_draft drafted {got[0]}; expected {drafts} (plain ints).\n{case}\nEach step reads the "
                             f"head's last row over the whole sequence, with the head's OWN predicted features appended "
                             f"(not the target's), and samples once from target.head of it.")
    check_tensor("eagle_draft's q", got[1], q, case, atol=1e-6)
    if not torch.equal(mine.get_state(), theirs.get_state()):
        raise GradingFailure(f"eagle_draft drew another number of random numbers than the contract's {gamma} "
                             f"(one sample_token per draft).\n{case}")


def check_run(eagle_generate, target, head, prompt, max_new_tokens, gamma, seed, temperature, what):
    case = f"case: {what}, prompt {list(prompt)[:12]}, max_new_tokens {max_new_tokens}, gamma {gamma}, seed {seed}, " \
           f"temperature {temperature}"
    theirs = torch.Generator().manual_seed(seed)
    expected = reference_generate(target, head, list(prompt), max_new_tokens, gamma, theirs, temperature)
    target.reset()
    target.forward_new_hidden([prompt[0]])  # a stale cache: the contract starts with reset()
    mine = torch.Generator().manual_seed(seed)
    recorder, start = RecordingEagleModel(target, mine), mine.get_state()
    try:
        got = call_learner(eagle_generate, recorder, head, list(prompt), max_new_tokens, gamma, mine, temperature, case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        raise lead_with_difference(failure, "eagle_generate", call_mismatch(
            [c for c in recorder.calls if c[0] in ("hidden", "forward", "crop")],
            [c for c in expected.calls if c[0] in ("hidden", "crop")], shown)) from None
    lead_with_draws_or_tokens(got, recorder, expected, start, mine, case)

    def rounds_before(before):  # up to three rounds, the differing call's included
        done = sum(1 for c in before if c[0] == "hidden") - 1
        rounds = "\n".join("    " + line for line in expected.rounds[max(0, done - 2): done + 1])
        return f"  the reference's rounds before it:\n{rounds}\n"

    check_target_calls("eagle_generate", recorder.calls, expected.calls, case, rounds_before)
    check_tokens_counters_and_draws("eagle_generate", got, expected, mine, theirs, case,
                                    "per round k draft samples, the uniforms, one sample")
    return got


def check_target_calls(function, recorded, expected_calls, case, around=lambda before: "",
                       contract="the contract") -> None:
    """The learner's forward_new_hidden, forward_new and crop calls on the target against the reference's
    (the crop rule: no-op crops are not compared), one for one, then their count. Exercise 28's decoder
    makes exercise 22's calls on the target."""
    calls = [c for c in compared(recorded) if c[0] in ("hidden", "forward", "crop")]
    wanted = [c for c in compared(expected_calls) if c[0] in ("hidden", "crop")]
    check_call_by_call(function, calls, wanted, shown, case, around, contract=contract)
    if len(calls) != len(wanted):
        raise GradingFailure(f"The contract makes {len(wanted)} calls (forward_new_hidden and crop) on the target; you made "
                             f"{len(calls)}.\n{case}")


def sequence_law(target, prompt: list[int], length: int) -> dict:
    """The target's own probability of every sequence of ``length`` new tokens after ``prompt``."""
    sequences = list(product(range(target.vocab_size), repeat=length))
    ids = torch.tensor([prompt + list(s) for s in sequences])
    with torch.no_grad():
        probs = torch.softmax(target(ids).double(), dim=-1)
    start = len(prompt) - 1
    return {s: float(torch.prod(torch.stack([probs[i, start + j, t] for j, t in enumerate(s)])))
            for i, s in enumerate(sequences)}
