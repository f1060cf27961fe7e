"""The given helpers learners build on: sample, ReplayRNG and check_step_inputs.

These are not graded exercises; they guard the ground the exercises stand on.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import speckata.replay
import speckata.sampling
import speckata.validation
from speckata import ReplayError, ReplayRNG, check_step_inputs, sample


@pytest.mark.parametrize("module", [speckata.replay, speckata.sampling, speckata.validation])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


class TestSample:
    def test_first_index_whose_cumulative_probability_exceeds_u(self):
        probs = [0.25, 0.25, 0.5]
        assert [sample(probs, ReplayRNG([u])) for u in (0.0, 0.2499, 0.25, 0.4999, 0.5, 0.9999)] == [0, 0, 1, 1, 2, 2]

    def test_draws_exactly_one_uniform(self):
        rng = ReplayRNG([0.3, 0.7])
        sample([0.5, 0.5], rng)
        assert rng.draws == 1

    def test_normalises_its_input(self):
        assert sample([0.0, 2.0, 1.0], ReplayRNG([0.7])) == 2
        assert sample([0.0, 2.0, 1.0], ReplayRNG([0.6])) == 1

    def test_never_returns_a_zero_probability_index(self):
        # Trailing zeros, and a u above the last cumulative sum that rounding left below 1.
        assert sample([0.3, 0.7, 0.0, 0.0], ReplayRNG([0.9999999999999999])) == 1
        assert sample([1e-300, 0.0], ReplayRNG([0.9999999999999999])) == 0
        assert sample([0.0, 1.0], ReplayRNG([0.0])) == 1
        weights = np.full(10, 0.1)
        weights[-1] = 0.0
        assert sample(weights, ReplayRNG([0.9999999999999999])) == 8

    @pytest.mark.parametrize(
        "probs, message",
        [([], "non-empty"), ([[0.5, 0.5]], "1-D"), ([0.5, np.nan], "NaN"), ([1.5, -0.5], "negative"), ([0.0, 0.0], "zero")],
    )
    def test_bad_probabilities_raise(self, probs, message):
        with pytest.raises(ValueError, match=message):
            sample(probs, ReplayRNG([0.5]))


class TestReplayRNG:
    def test_serves_values_in_order_and_counts(self):
        rng = ReplayRNG([0.1, 0.2])
        assert (rng.random(), rng.random(), rng.draws, rng.remaining) == (0.1, 0.2, 2, 0)

    def test_running_out_says_so(self):
        rng = ReplayRNG([0.1])
        rng.random()
        with pytest.raises(ReplayError, match="ran out.*#2.*only 1"):
            rng.random()

    @pytest.mark.parametrize("method", ["choice", "uniform", "integers", "normal", "shuffle"])
    def test_other_methods_are_refused(self, method):
        with pytest.raises(ReplayError, match=f"rng.random\\(\\) only \\(your code called rng.{method}\\)"):
            getattr(ReplayRNG([0.5]), method)

    def test_random_with_a_size_is_refused(self):
        with pytest.raises(ReplayError, match="one number at a time"):
            ReplayRNG([0.5, 0.5]).random(2)

    def test_values_outside_the_unit_interval_are_refused(self):
        with pytest.raises(ValueError, match="\\[0, 1\\)"):
            ReplayRNG([1.0])


class TestCheckStepInputs:
    def test_returns_float64_and_int64_arrays(self):
        p, q, draft = check_step_inputs([[0.5, 0.5], [1.0, 0.0]], [[0.25, 0.75]], [1])
        assert (p.dtype, q.dtype, draft.dtype) == (np.float64, np.float64, np.int64)

    def test_integral_float_token_ids_are_accepted(self):
        _, _, draft = check_step_inputs([[0.5, 0.5], [1.0, 0.0]], [[0.25, 0.75]], np.array([1.0]))
        assert draft.tolist() == [1]

    @pytest.mark.parametrize(
        "p, q, draft, message",
        [
            ([[0.5, 0.5]], [[0.5, 0.5]], [], "q must have shape"),
            ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]], [0.5], "integer"),
            ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5]], [[0]], "1-D"),
            ([0.5, 0.5], [], [], "p must have shape"),
            ([[0.5, 0.5], [np.inf, 0.5]], [[0.5, 0.5]], [0], "infinite"),
        ],
    )
    def test_more_bad_inputs(self, p, q, draft, message):
        with pytest.raises(ValueError, match=message):
            check_step_inputs(p, q, draft)


# What the helpers used to get silently wrong (each case returned a token or an array before) -------

class FixedRNG:
    def __init__(self, value):
        self.value = value

    def random(self):
        return self.value


def test_sample_handles_probabilities_whose_sum_overflows():
    with np.errstate(all="raise"):  # and without an overflow warning
        assert sample([1e308, 1e308], ReplayRNG([0.2])) == 0
        assert sample([1e308, 1e308], ReplayRNG([0.7])) == 1


@pytest.mark.parametrize("u", [float("nan"), 1.0, -0.1, "0.5", None, True])
def test_sample_refuses_a_uniform_outside_zero_one(u):
    with pytest.raises(ValueError, match=r"rng.random\(\) returned .*\[0, 1\)"):
        sample([0.5, 0.5], FixedRNG(u))


def test_sample_rows_refuses_a_nan_uniform():
    torch = pytest.importorskip("torch")
    from speckata.torch_sampling import sample_rows

    with pytest.raises(ValueError, match="NaN"):
        sample_rows(torch.tensor([[0.5, 0.5]]), torch.tensor([float("nan")]))


P = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
Q = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]


@pytest.mark.parametrize("draft, shown", [
    ([1, float("inf")], "draft[1] = inf is not an integer token id"),
    ([1, 2.0**63], "draft[1] = 9223372036854775808 is out of range for a vocabulary of 3 tokens"),
    (np.array([1, 2**64 - 1], dtype=np.uint64), "draft[1] = 18446744073709551615 is out of range"),
    ([1, 2.5], "draft[1] = 2.5 is not an integer token id"),
], ids=["inf", "2**63", "uint64-max", "fraction"])
def test_draft_values_are_named_as_given(draft, shown):
    with pytest.raises(ValueError) as error:
        check_step_inputs(P, Q, draft)
    assert shown in str(error.value)


def test_complex_probabilities_are_refused():
    with pytest.raises(ValueError, match="complex"):
        check_step_inputs(np.array(P, dtype=complex), Q, [1, 2])


@pytest.mark.parametrize("q_shape", [(3, 0), (0, 7)])
def test_gamma_zero_refuses_a_q_of_the_wrong_shape(q_shape):
    with pytest.raises(ValueError, match="shape"):
        check_step_inputs([[0.5, 0.5]], np.zeros(q_shape), [])


@pytest.mark.parametrize("vocab", [32_000, 200_000])
def test_float32_softmax_rows_at_real_vocabulary_sizes_are_accepted(vocab):
    logits = np.random.default_rng(vocab).normal(size=(3, vocab)).astype(np.float32) * 4
    rows = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = (rows / rows.sum(axis=1, keepdims=True, dtype=np.float32)).astype(np.float32)
    p *= np.float32(1 + 2e-5)  # the rounding a float32 softmax shows at V = 200,000 (1.9e-5)
    off = np.abs(p.sum(axis=1, dtype=np.float64) - 1)
    assert 1e-6 < off.min() and off.max() < 1e-4
    draft = [int(p[0].argmax()), int(p[1].argmax())]
    check_step_inputs(p, p[:2], draft)  # float32: within 1e-4
    with pytest.raises(ValueError, match="sum to 1"):  # the same numbers as float64: beyond 1e-6
        check_step_inputs(p.astype(np.float64), p[:2].astype(np.float64), draft)


def test_float64_rows_keep_the_tight_tolerance():
    with pytest.raises(ValueError, match="sum to 1"):
        check_step_inputs([[0.2, 0.5, 0.300002]] + P[1:], Q, [1, 2])
