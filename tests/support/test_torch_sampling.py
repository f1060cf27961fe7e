"""The given torch sampler, sample_rows: exercise 01's sample for a batch of rows.

Not a graded exercise: it guards the ground exercise 08 stands on. Its semantics must be those of
speckata.sample (first index whose normalised cumulative probability exceeds u, never a
zero-probability index), row by row, up to rounding.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
import torch

import speckata.torch_sampling
from speckata import ReplayRNG, sample
from speckata.torch_sampling import sample_rows

DTYPES = [torch.float32, torch.float64]
DTYPE_IDS = ["float32", "float64"]


def test_docstring_examples():
    result = doctest.testmod(speckata.torch_sampling, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_importing_speckata_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, speckata; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_first_index_whose_cumulative_probability_exceeds_u(dtype):
    us = [0.0, 0.2499, 0.25, 0.4999, 0.5, 0.9999]
    probs = torch.tensor([[0.25, 0.25, 0.5]] * len(us), dtype=dtype)
    assert sample_rows(probs, torch.tensor(us, dtype=dtype)).tolist() == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_each_row_uses_its_own_uniform_and_is_normalised(dtype):
    probs = torch.tensor([[0.0, 2.0, 1.0], [0.0, 2.0, 1.0], [5.0, 0.0, 5.0], [1.0, 1.0, 2.0]], dtype=dtype)
    tokens = sample_rows(probs, torch.tensor([0.7, 0.6, 0.49, 0.6], dtype=dtype))
    assert tokens.tolist() == [2, 1, 0, 2] and tokens.dtype == torch.int64


def test_never_returns_a_zero_probability_index():
    # Trailing zeros, and a u above the last cumulative sum that rounding left below 1.
    cases = [
        ([0.3, 0.7, 0.0, 0.0], 0.9999999999999999, 1),
        ([1e-300, 0.0], 0.9999999999999999, 0),
        ([0.0, 1.0], 0.0, 1),
        ([0.1] * 9 + [0.0], 0.9999999999999999, 8),
        ([0.0, 0.5, 0.0, 0.5, 0.0], 0.9999999999999999, 3),
    ]
    for row, u, expected in cases:
        assert sample_rows(torch.tensor([row], dtype=torch.float64), torch.tensor([u], dtype=torch.float64)).tolist() == [expected]
        assert sample(row, ReplayRNG([u])) == expected
    float32_top = torch.tensor([float(np.nextafter(np.float32(1), np.float32(0)))])
    assert sample_rows(torch.tensor([[0.1] * 9 + [0.0]]), float32_top).tolist() == [8]


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_agrees_with_speckata_sample_row_by_row(dtype):
    gen = np.random.default_rng(3)
    margin = {torch.float32: 1e-5, torch.float64: 1e-9}[dtype]
    for vocab in (2, 5, 40, 1000):
        rows = gen.dirichlet(np.full(vocab, 0.3), size=200)
        rows[gen.random(rows.shape) < 0.3] = 0.0
        rows[rows.sum(axis=1) == 0, 0] = 1.0
        us = gen.random(200)
        probs = torch.tensor(rows, dtype=dtype)
        ours = sample_rows(probs, torch.tensor(us, dtype=dtype)).tolist()
        for row, u, token in zip(probs.double().numpy(), torch.tensor(us, dtype=dtype).double().numpy(), ours):
            steps = np.cumsum(row / row.sum())
            if np.min(np.abs(steps[:-1] - u), initial=np.inf) > margin:
                assert token == sample(row, ReplayRNG([u]))
            assert row[token] > 0


def test_an_empty_batch_gives_no_tokens():
    assert sample_rows(torch.empty(0, 4), torch.empty(0)).shape == (0,)


def test_a_float64_uniform_is_taken_in_the_rows_dtype():
    assert sample_rows(torch.tensor([[0.5, 0.5]]), torch.tensor([0.75], dtype=torch.float64)).tolist() == [1]


@pytest.mark.parametrize(
    "probs, u, message",
    [
        (torch.tensor([0.5, 0.5]), torch.tensor([0.5]), "shape"),
        (torch.empty(1, 0), torch.tensor([0.5]), "V >= 1"),
        (torch.tensor([[0.5, 0.5]]), torch.tensor([0.5, 0.5]), "one uniform per row"),
        (torch.tensor([[1, 0]]), torch.tensor([0.5]), "floating-point"),
        (torch.tensor([[0.5, float("nan")]]), torch.tensor([0.5]), "NaN"),
        (torch.tensor([[1.5, -0.5]]), torch.tensor([0.5]), "negative"),
        (torch.tensor([[0.0, 0.0]]), torch.tensor([0.5]), "zero"),
        (torch.tensor([[0.5, float("inf")]]), torch.tensor([0.5]), "infinite"),
        (torch.tensor([[0.5, 0.5]]), torch.tensor([1.0]), r"\[0, 1\)"),
        ([[0.5, 0.5]], torch.tensor([0.5]), "tensors"),
    ],
    ids=["1-d", "no-columns", "u-shape", "integers", "nan", "negative", "zero-row", "infinite", "u-is-1", "a-list"],
)
def test_bad_input_raises_a_value_error(probs, u, message):
    with pytest.raises(ValueError, match=message):
        sample_rows(probs, u)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_runs_on_cuda_and_agrees_with_the_cpu():
    gen = torch.Generator().manual_seed(0)
    probs = torch.rand(500, 300, generator=gen) ** 4
    u = torch.rand(500, generator=gen, dtype=torch.float64)
    cpu, cuda = sample_rows(probs.double(), u), sample_rows(probs.double().cuda(), u.cuda())
    assert cuda.device.type == "cuda" and (cpu == cuda.cpu()).float().mean() > 0.99
