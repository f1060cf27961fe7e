"""Exercise 03-speedup: an exact reference in rational arithmetic.

Every float is a rational number, so fractions.Fraction computes E(α, γ) = Σ_{k<=γ} α^k and the
speedup without a single rounding; the suite rounds the exact value once and allows a relative
1e-12. Imports nothing from solutions/.
"""

from __future__ import annotations

from fractions import Fraction


def exact_tokens_per_pass(alpha: float, gamma: int) -> Fraction:
    """Σ_{k<=γ} α^k. With α = m/d in lowest terms it is (Σ_k m^k·d^(γ−k)) / d^γ: integer Horner
    steps N <- d^j + m·N, and a single division at the end (Fraction arithmetic is much slower)."""
    m, d = float(alpha).as_integer_ratio()
    numerator, d_power = 1, 1
    for _ in range(gamma):
        d_power *= d
        numerator = d_power + m * numerator
    return Fraction(numerator, d_power)


def exact_speedup(alpha: float, gamma: int, c: float) -> Fraction:
    return exact_tokens_per_pass(alpha, gamma) / (gamma * Fraction(c) + 1)


def exact_speedups(alpha: float, c: float, max_gamma: int) -> list[Fraction]:
    """S(α, γ, c) for γ = 1 .. max_gamma, built up term by term."""
    a, cost = Fraction(alpha), Fraction(c)
    tokens, power, speedups = Fraction(1), Fraction(1), []
    for gamma in range(1, max_gamma + 1):
        power *= a
        tokens += power
        speedups.append(tokens / (gamma * cost + 1))
    return speedups


def exact_optimum(alpha: float, c: float, max_gamma: int) -> tuple[int, float]:
    """The best γ (smallest on an exact tie) and its relative lead over the best other γ."""
    speedups = exact_speedups(alpha, c, max_gamma)
    best = max(speedups)
    gamma = speedups.index(best) + 1
    others = [s for g, s in enumerate(speedups, start=1) if g != gamma]
    lead = float((best - max(others)) / best) if others else float("inf")
    return gamma, lead


def relative_error(value: float, exact: Fraction) -> float:
    if exact == 0:
        return abs(value)
    return float(abs(Fraction(value) - exact) / abs(exact))
