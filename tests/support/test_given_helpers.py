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
