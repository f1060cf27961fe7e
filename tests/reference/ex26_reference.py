"""Exercise 26-serving-crossover: an exact reference in rational arithmetic, written from the exercise text.

Every float is a rational number, so fractions.Fraction computes each throughput
B · E(α, g) / (c[b, g, l] + g · d[b, l]) without rounding; the suite compares the learner's floats
with these to a relative 1e-9 and applies the text's tie rule to the exact values. Imports nothing
from solutions/.
"""

from __future__ import annotations

from fractions import Fraction

TIE = Fraction(1e-9)  # the text's tie tolerance, as the float 1e-9 is


def exact_tokens(alpha: float, gamma: int) -> Fraction:
    """E(α, g) = 1 + α + ... + α^g."""
    a = Fraction(alpha)
    return sum((a**k for k in range(gamma + 1)), Fraction(0))


def exact_throughput(target_cost, draft_cost, batch_sizes, alpha) -> list[list[list[Fraction]]]:
    """[b][g][l] as in the text: B / c[b, 0, l] at g = 0, B·E(α, g) / (c[b, g, l] + g·d[b, l]) after."""
    num_b, num_n, num_l = len(target_cost), len(target_cost[0]), len(target_cost[0][0])
    tokens = [exact_tokens(alpha, g) for g in range(num_n)]
    return [[[int(batch_sizes[b]) * tokens[g]
              / (Fraction(float(target_cost[b][g][l])) + g * Fraction(float(draft_cost[b][l])))
              for l in range(num_l)] for g in range(num_n)] for b in range(num_b)]


def exact_best(throughput) -> tuple[list[list[int]], float]:
    """The text's best g per [b][l] (first g within a relative 1e-9 of the largest) and the smallest
    distance, over all entries, of a throughput's ratio to the best from the tie threshold (a case
    closer than float rounding can settle is one the suite should not use)."""
    best, closest = [], float("inf")
    for per_b in throughput:
        row = []
        for l in range(len(per_b[0])):
            column = [per_b[g][l] for g in range(len(per_b))]
            top = max(column)
            row.append(next(g for g, value in enumerate(column) if value >= (1 - TIE) * top))
            closest = min([closest] + [abs(float(value / top - (1 - TIE))) for value in column])
        best.append(row)
    return best, closest


def exact_largest(best, batch_sizes) -> list[int]:
    """Per context length, the largest batch size whose best g is >= 1 (0 if none)."""
    return [max([int(batch_sizes[b]) for b in range(len(best)) if best[b][l] >= 1], default=0)
            for l in range(len(best[0]))]


def relative_error(value: float, exact: Fraction) -> float:
    return float(abs(Fraction(value) - exact) / abs(exact)) if exact else abs(value)
