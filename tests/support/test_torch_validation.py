"""The given torch input checks for exercises 07 and 08: ValueErrors that name the problem."""

from __future__ import annotations

import doctest

import pytest
import torch

import speckata.torch_validation
from speckata.torch_validation import check_batched_step_inputs, check_torch_step_inputs


def test_docstring_examples():
    result = doctest.testmod(speckata.torch_validation, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


TARGET = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
DRAFT = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]


def step_inputs(target=TARGET, draft=DRAFT, tokens=(1, 2), dtype=torch.float32):
    return torch.tensor(target, dtype=dtype), torch.tensor(draft, dtype=dtype), torch.tensor(tokens)


class TestOneSequence:
    def test_good_inputs_pass_also_with_no_drafts(self):
        check_torch_step_inputs(*step_inputs())
        check_torch_step_inputs(torch.tensor([[0.5, 0.5]]), torch.empty(0, 2), torch.tensor([], dtype=torch.int64))

    def test_the_row_sum_tolerance_depends_on_the_dtype(self):
        off = [[0.2, 0.5, 0.30005]] + TARGET[1:]  # off by 5e-5
        check_torch_step_inputs(*step_inputs(target=off))
        with pytest.raises(ValueError, match="sum to 1"):
            check_torch_step_inputs(*step_inputs(target=off, dtype=torch.float64))

    @pytest.mark.parametrize(
        "inputs, message",
        [
            (step_inputs(target=TARGET[:2]), "shape"),
            (step_inputs(tokens=[[1, 2]]), "shape"),
            (step_inputs(draft=[[0.5, 0.5], [0.5, 0.5]]), "shape"),
            (step_inputs(tokens=[1, 3]), "out of range"),
            (step_inputs(draft=[[0.5, 0.5, 0.0], [0.2, 0.2, 0.6]], tokens=[2, 2]), "zero probability"),
            (step_inputs(target=[[0.6, 0.5, -0.1]] + TARGET[1:]), "negative"),
            (step_inputs(draft=[[0.5, 0.3, 0.2], [float("nan"), 0.4, 0.6]]), "NaN"),
            (step_inputs(draft=[[0.5, 0.3, 0.2], [float("inf"), 0.4, 0.6]]), "infinite"),
            (step_inputs(draft=[[0.5, 0.4, 0.2], [0.2, 0.2, 0.6]]), "sum to 1"),
            ((torch.tensor(TARGET), torch.tensor(DRAFT), torch.tensor([1.0, 2.0])), "integer"),
            ((torch.tensor(TARGET, dtype=torch.float16), torch.tensor(DRAFT, dtype=torch.float16), torch.tensor([1, 2])), "dtype"),
            ((torch.tensor(TARGET), torch.tensor(DRAFT, dtype=torch.float64), torch.tensor([1, 2])), "dtype"),
            ((TARGET, torch.tensor(DRAFT), torch.tensor([1, 2])), "Tensor"),
        ],
        ids=["target-rows", "tokens-2d", "vocabulary", "out-of-range", "zero-probability", "negative", "nan", "infinite",
             "sum", "float-tokens", "float16", "two-dtypes", "a-list"],
    )
    def test_bad_inputs(self, inputs, message):
        with pytest.raises(ValueError, match=message):
            check_torch_step_inputs(*inputs)


class TestBatch:
    def batch(self, gamma=2):
        return torch.full((3, gamma + 1, 4), 0.25), torch.full((3, gamma, 4), 0.25), torch.zeros(3, gamma, dtype=torch.int64)

    def test_good_inputs_pass_also_with_no_drafts(self):
        check_batched_step_inputs(*self.batch())
        check_batched_step_inputs(*self.batch(gamma=0))

    def test_rows_are_not_checked_to_sum_to_one(self):
        target, draft, tokens = self.batch()
        check_batched_step_inputs(target * 2, draft, tokens)  # documented: that would read every probability

    @pytest.mark.parametrize("where, value, message", [
        ("target", float("nan"), "NaN"), ("draft", -0.1, "negative"), ("draft", 0.0, "zero probability"), ("target", float("inf"), "infinite"),
    ])
    def test_the_values_at_drafted_tokens_are_checked(self, where, value, message):
        target, draft, tokens = self.batch()
        (target if where == "target" else draft)[1, 1, 0] = value
        with pytest.raises(ValueError, match=message):
            check_batched_step_inputs(target, draft, tokens)

    @pytest.mark.parametrize("change, message", [
        (lambda t, d, k: (t[0], d, k), "shape"),
        (lambda t, d, k: (t, d[:, :1], k), "shape"),
        (lambda t, d, k: (t, d, k[:2]), "shape"),
        (lambda t, d, k: (t, d, k + 4), "out of range"),
        (lambda t, d, k: (t, d, k.float()), "integer"),
        (lambda t, d, k: (t.double(), d, k), "dtype"),
    ], ids=["target-2d", "draft-gamma", "tokens-batch", "out-of-range", "float-tokens", "two-dtypes"])
    def test_bad_inputs(self, change, message):
        with pytest.raises(ValueError, match=message):
            check_batched_step_inputs(*change(*self.batch()))

    @pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
    def test_inputs_on_two_devices(self):
        target, draft, tokens = self.batch()
        with pytest.raises(ValueError, match="device"):
            check_batched_step_inputs(target.cuda(), draft.cuda(), tokens)
