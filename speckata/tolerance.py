"""How far from 1 a row of probabilities may sum: one rule, by the dtype the row arrived in.

Rounding grows with the vocabulary and shrinks with the precision: a float32 softmax over
32,000 tokens is off by ~3e-6 and over 200,000 by ~2e-5, so float32 rows get 1e-4; float64 rows
and Python floats get 1e-6; half-precision rows 1e-2. Both the numpy checks (exercise 01 and
those built on it) and the torch checks (exercises 07, 08) use this table.
"""

from __future__ import annotations

from functools import lru_cache

ROW_SUM_TOLERANCE = {"float64": 1e-6, "float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}
DEFAULT = ROW_SUM_TOLERANCE["float64"]


@lru_cache(maxsize=64)  # dtypes are few and str() of a numpy dtype is slow (it runs on every verify call)
def row_sum_tolerance(dtype) -> float:
    """The tolerance for rows of ``dtype`` (a numpy or torch dtype, or its name).

    >>> row_sum_tolerance("float32"), row_sum_tolerance("torch.float64")
    (0.0001, 1e-06)
    """
    name = str(dtype).removeprefix("torch.")
    return ROW_SUM_TOLERANCE.get(name, DEFAULT)
