"""Grading suite for exercise 19-jacobi-decoding: jacobi_generate(model, prompt_ids, max_new_tokens, n, initial_guess).

The model is wrapped in a recorder (speckata/models/recording.py); the tokens are compared with a
plain greedy decode and the calls with the contract's, both from tests/reference/ex19_reference.py.
A decoder that stops making progress is stopped by a budget of forward calls, not by a clock.
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.events import call_mismatch, compared, lead_with_difference
from speckata.models.markov import MarkovModel, random_markov_model
from speckata.models.pretrained import char_tokenizer, load_target
from speckata.models.recording import RecordingModel
from tests.reference.ex19_reference import greedy_decode, reference_trace
from tests.shared.cases import case_seed

EXERCISE = "19-jacobi-decoding"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
CYCLE = [[.1, .7, .1, .1], [.1, .1, .7, .1], [.1, .1, .1, .7], [.7, .1, .1, .1]]


def jacobi_generate():
    return learner_function(EXERCISE, "jacobi_generate")


class BudgetedRecording(RecordingModel):
    """Records calls, and stops a decoder that makes more passes than it could need."""

    def __init__(self, model, budget: int):
        super().__init__(model)
        self.budget = budget

    def forward_new(self, ids):
        if self.forward_calls >= self.budget:
            raise GradingFailure(f"jacobi_generate made more than {self.budget} forward calls for this case: a pass "
                                 "that adds no token never ends. Each pass keeps pred[0..a], a + 1 tokens, "
                                 "pred[a] included (it follows a correct prefix).")
        return super().forward_new(ids)


def changes(calls) -> list[tuple]:
    """The forward calls and the crops, those that change nothing left out (the crop rule,
    speckata.grading.events); resets are not compared."""
    return [c for c in compared(calls) if c[0] in ("forward", "crop")]


def shown_prompt(prompt, limit: int = 12) -> str:
    ids = list(prompt)
    return str(ids) if len(ids) <= limit else f"{str(ids[:limit])[:-1]}, …] ({len(ids)} tokens)"


def run(model, prompt, max_new_tokens, n, initial_guess=None, what=""):
    """The learner's result and recorder beside the reference's trace and the greedy tokens."""
    expected = reference_trace(model, list(prompt), max_new_tokens, n, initial_guess)
    greedy = greedy_decode(model, list(prompt), max_new_tokens)
    model.reset()
    model.forward_new([prompt[0]])  # a stale cache: the contract starts with reset()
    recorder = BudgetedRecording(model, max_new_tokens + 2)
    case = f"case: {what}, prompt {shown_prompt(prompt)}, max_new_tokens {max_new_tokens}, n {n}, initial_guess {initial_guess}"
    try:
        got = call_learner(jacobi_generate(), recorder, list(prompt), max_new_tokens, n, initial_guess, case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        raise lead_with_difference(failure, "jacobi_generate", call_mismatch(changes(recorder.calls),
                                                                             changes(expected.calls), repr)) from None
    return got, recorder, expected, greedy, case


def check_tokens(got, greedy, case):
    tokens = list(getattr(got, "tokens", []))
    if tokens != greedy:
        at = next((i for i, (a, b) in enumerate(zip(tokens, greedy)) if a != b), min(len(tokens), len(greedy)))
        raise GradingFailure(f"The tokens are not the target's greedy decoding: first difference at new token {at} "
                             f"(expected {greedy[at:at + 6]}, got {tokens[at:at + 6]}).\n{case}")
    if not all(type(t) is int for t in got.tokens):
        raise GradingFailure(f"tokens must be plain Python ints (use .tolist() or int()).\n{case}")


def check_calls(recorder, expected, case):
    mine, theirs = changes(recorder.calls), changes(expected.calls)
    index = next((i for i, (want, have) in enumerate(zip(theirs, mine)) if want != have), min(len(mine), len(theirs)))
    have = mine[index] if index < len(mine) else None
    want = theirs[index] if index < len(theirs) else None
    if index < min(len(mine), len(theirs)):
        raise GradingFailure(f"Call {index} differs from the contract's: expected {want}, got {have} "
                             f"(('forward', ids fed, cache length before) or ('crop', length, cache length before)).\n"
                             f"Contract's calls: {theirs[:index + 2]}\n{case}")
    if len(mine) != len(theirs):
        raise GradingFailure(f"The contract makes {len(theirs)} forward calls and crops; you made {len(mine)}: "
                             f"{mine[len(theirs):][:3] or theirs[len(mine):][:3]} ...\n{case}")


@lru_cache(maxsize=1)
def target():
    return load_target()


def markov_cases():
    seeds = [(case_seed(seed), n) for seed, n in [(1, 1), (2, 2), (3, 3), (4, 5), (5, 8)]]  # fresh under --streams
    return [(random_markov_model(6, 1, seed, sharpness=4.0), [seed % 6, 1], 20, n) for seed, n in seeds]


# Task 1: the worked example ------------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example():
    got, recorder, expected, greedy, case = run(MarkovModel(CYCLE), [0], 6, 2, [1, 2], "the worked example")
    check_tokens(got, greedy, case)
    check_calls(recorder, expected, case)  # as notebook 19 compares them
    if (got.accepted_per_pass, got.target_passes) != ([2, 0, 0, 0], 4):
        raise GradingFailure(f"Expected accepted_per_pass [2, 0, 0, 0] and 4 passes; got {got.accepted_per_pass} "
                             f"and {got.target_passes}.\n{case}")


# Task 2: the output is the target's greedy decoding, ties to the first index ----------------

@pytest.mark.generated
@pytest.mark.parametrize("index", range(5))
@pytest.mark.task(2)
def test_tokens_equal_greedy_decoding_on_markov_chains(index):
    model, prompt, count, n = markov_cases()[index]
    got, _, _, greedy, case = run(model, prompt, count, n, what=f"random chain {index}")
    check_tokens(got, greedy, case)


@pytest.mark.task(2)
def test_ties_go_to_the_first_index():
    got, _, _, greedy, case = run(MarkovModel([[0.25] * 4] * 4), [2], 8, 3, what="a chain whose rows are all ties")
    check_tokens(got, greedy, case)


@pytest.mark.parametrize("prompt", ["def speculative_step(", "The quick brown fox "])
@pytest.mark.task(2)
def test_tokens_equal_greedy_decoding_on_the_trained_target(prompt):
    got, _, _, greedy, case = run(target(), char_tokenizer().encode(prompt), 40, 4, what=f"the trained target on {prompt!r}")
    check_tokens(got, greedy, case)


# Task 3: the calls: what each pass feeds, the crops, the guesses ------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("index", range(5))
@pytest.mark.task(3)
def test_calls_follow_the_contract_on_markov_chains(index):
    model, prompt, count, n = markov_cases()[index]
    got, recorder, expected, greedy, case = run(model, prompt, count, n, what=f"random chain {index}")
    check_calls(recorder, expected, case)


@pytest.mark.task(3)
def test_calls_follow_the_contract_with_a_given_guess():
    got, recorder, expected, _, case = run(MarkovModel(CYCLE), [3, 0], 9, 4, [1, 2, 0, 0], "a half-right first guess")
    check_calls(recorder, expected, case)


@pytest.mark.parametrize("n", [2, 8])
@pytest.mark.task(3)
def test_calls_follow_the_contract_on_the_trained_target(n):
    got, recorder, expected, _, case = run(target(), char_tokenizer().encode("def speculative_step("), 30, n,
                                           what="the trained target on code")
    check_calls(recorder, expected, case)


# Task 4: passes and the per-pass counts -------------------------------------------------------

@pytest.mark.generated
@pytest.mark.parametrize("index", [1, 3, 4])
@pytest.mark.task(4)
def test_passes_and_per_pass_counts(index):
    model, prompt, count, n = markov_cases()[index]
    got, recorder, expected, _, case = run(model, prompt, count, n, what=f"random chain {index}")
    counts = (got.target_passes, list(got.drafted_per_pass), list(got.accepted_per_pass), got.draft_passes)
    want = (recorder.forward_calls, expected.guessed, expected.accepted, 0)
    if counts != want:
        raise GradingFailure(f"(target_passes, drafted_per_pass, accepted_per_pass, draft_passes) should be {want}; "
                             f"got {counts}.\n{case}")


@pytest.mark.task(4)
def test_zero_new_tokens_makes_no_forward_call():
    got, recorder, _, _, case = run(MarkovModel(CYCLE), [0], 0, 3, what="max_new_tokens = 0")
    if got.tokens or got.target_passes or recorder.forward_calls:
        raise GradingFailure(f"max_new_tokens = 0: expected no tokens and no forward call; got {got}, "
                             f"{recorder.forward_calls} calls.\n{case}")


# Task 5: bad input ----------------------------------------------------------------------------

BAD = {
    "empty-prompt": (([], 4, 2), {}, ("prompt",)),
    "prompt-out-of-range": (([7], 4, 2), {}, ("prompt",)),
    "negative-max-new-tokens": (([0], -1, 2), {}, ("max_new_tokens",)),
    "zero-n": (([0], 4, 0), {}, ("n must be",)),
    "short-guess": (([0], 4, 3), {"initial_guess": [1, 2]}, ("initial_guess",)),
    "guess-out-of-range": (([0], 4, 2), {"initial_guess": [1, 9]}, ("initial_guess",)),
}


@pytest.mark.parametrize("name", list(BAD))
@pytest.mark.task(5)
def test_bad_input_raises_a_value_error_naming_the_problem(name):
    args, kwargs, mentions = BAD[name]
    expect_value_error(jacobi_generate(), MarkovModel(CYCLE), *args, mentions=mentions, problem=name, **kwargs)
