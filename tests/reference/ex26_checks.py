"""Exercise 26-serving-crossover: how the suite calls the three functions and checks them against exact values.

tests/test_26_serving_crossover.py uses them. Each failure shows the formula with the case's numbers
put in (serving_throughput), the exact throughputs of the column that decided (best_gamma), or the
best gamma per entry (largest_winning_batch), then the inputs.
"""

from __future__ import annotations

import math

import numpy as np

from speckata.grading import GradingFailure, call_learner, learner_function
from tests.reference.ex26_reference import exact_best, exact_largest, exact_throughput, relative_error

EXERCISE = "26-serving-crossover"
RELATIVE_TOLERANCE = 1e-9


def describe(target_cost, draft_cost, batch_sizes, alpha) -> str:
    t, d = np.asarray(target_cost, dtype=float), np.asarray(draft_cost, dtype=float)
    return (f"The inputs:\n  batch_sizes = {list(batch_sizes)}, alpha = {alpha!r}\n  target_cost[b, n - 1, l] "
            f"(shape {t.shape}) =\n{np.array2string(t, precision=6, prefix='    ')}\n  draft_cost[b, l] =\n"
            f"{np.array2string(d, precision=6, prefix='    ')}")


def call(name: str, args: tuple, what: str):
    return call_learner(learner_function(EXERCISE, name), *args, case=f"{describe(*args)}\n({what})")


def check_array(name: str, value, shape: tuple, kind: str, args: tuple, what: str) -> None:
    if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype.kind not in kind:
        got = f"a {type(value).__name__}" + (f" of shape {value.shape}, dtype {value.dtype}" if isinstance(value, np.ndarray) else "")
        wanted = "float" if kind == "f" else "integer"
        raise GradingFailure(f"{name} must return a numpy array of shape {shape} with a {wanted} dtype; "
                             f"it returned {got} ({what}).\n{describe(*args)}")


def exact_table(args: tuple) -> list:
    """The exact throughputs [b][g][l] of the case (tests/reference/ex26_reference.py)."""
    target, draft, sizes, alpha = args
    return exact_throughput(np.asarray(target, float).tolist(), np.asarray(draft, float).tolist(), list(sizes), alpha)


def check_throughput(args: tuple, what: str) -> np.ndarray:
    target, draft, sizes, alpha = args
    value = call("serving_throughput", args, what)
    exact = exact_table(args)
    shape = (len(exact), len(exact[0]), len(exact[0][0]))
    check_array("serving_throughput", value, shape, "f", args, what)
    for index in np.ndindex(shape):
        b, g, l = index
        expected = exact[b][g][l]
        error = relative_error(float(value[index]), expected) if math.isfinite(value[index]) else math.inf
        if not error <= RELATIVE_TOLERANCE:
            t, d, B = np.asarray(target, float), np.asarray(draft, float), sizes[b]
            formula = (f"B / c[b, 0, l] = {B} / {t[b, 0, l]:g}" if g == 0 else
                       f"B·E(alpha, g) / (c[b, g, l] + g·d[b, l]) = {B}·{float(sum(alpha**k for k in range(g + 1))):.6g}"
                       f" / ({t[b, g, l]:g} + {g}·{d[b, l]:g})   (c[b, g, l]: the pass of n = g + 1 = {g + 1} tokens)")
            raise GradingFailure(
                f"serving_throughput got {what} wrong at [b={b}, g={g}, l={l}] (batch size {B}, "
                f"{'plain decoding' if g == 0 else f'{g} drafts per row'}, context column {l}).\n"
                f"  yours:    {float(value[index])!r}\n  expected: {float(expected)!r}\n  = {formula}\n"
                f"  relative error {error:.2g}, allowed {RELATIVE_TOLERANCE:g}\n\n{describe(*args)}")
    return value


def check_integers(name: str, args: tuple, what: str, expected: list, shape: tuple, explain) -> np.ndarray:
    """The learner's integer table ``name`` must be ``expected`` exactly; ``explain(value)``: why, for a person."""
    value = call(name, args, what)
    check_array(name, value, shape, "iu", args, what)
    if value.tolist() != expected:
        raise GradingFailure(f"{name} got {what} wrong.\n  yours:    {value.tolist()}\n  expected: {expected}\n"
                             f"  {explain(value)}\n\n{describe(*args)}")
    return value


def check_best(args: tuple, what: str) -> np.ndarray:
    sizes, exact = args[2], exact_table(args)
    expected, _ = exact_best(exact)

    def first_difference(value) -> str:  # the column that decided, with its exact throughputs
        b, l = next((b, l) for b in range(len(expected)) for l in range(len(expected[0])) if value[b, l] != expected[b][l])
        column = ", ".join(f"g={g}: {float(exact[b][g][l]):.9g}" for g in range(len(exact[b])))
        return (f"first difference at [b={b}, l={l}] (batch size {sizes[b]}): the exact throughputs are {column}; the "
                f"best g is the FIRST within a relative 1e-9 of the largest (0 = plain decoding)")

    return check_integers("best_gamma", args, what, expected, (len(expected), len(expected[0])), first_difference)


def check_largest(args: tuple, what: str) -> np.ndarray:
    sizes, exact = args[2], exact_table(args)
    best, _ = exact_best(exact)
    expected = exact_largest(best, list(sizes))
    rule = (f"the best g per [batch size, context column] is {best} (>= 1: speculation wins); the answer is, per "
            f"column, the largest batch size with a win, wherever it is (0 if none)")
    return check_integers("largest_winning_batch", args, what, expected, (len(expected),), lambda value: rule)
