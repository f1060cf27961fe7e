"""Exercise 14-block-verification: how many more drafts block verification keeps than token
verification, exactly (enumeration, tests/reference/ex14_reference.py), on the toy and on random rows.

Run: .venv/bin/python -m tests.reference.ex14_gains
"""

from __future__ import annotations

import numpy as np

from tests.reference.ex14_reference import expected_accepted

SETTINGS = [(4, 4, 1.0), (4, 4, 0.3), (8, 3, 1.0)]  # (V, γ, Dirichlet concentration of both rows)
CASES = 200


def toy_rows(gamma: int):
    return np.array([[1 / 3, 2 / 3]] * (gamma + 1)), np.array([[2 / 3, 1 / 3]] * gamma)


def main() -> None:
    for gamma in range(1, 7):
        token, block = (expected_accepted(*toy_rows(gamma), rule) for rule in ("token", "block"))
        print(f"toy p = [1/3, 2/3], q = [2/3, 1/3], γ = {gamma}: token {token:.4f}, block {block:.4f}, "
              f"gain {block - token:.4f} drafts ({block / token - 1:+.1%})")
    gen = np.random.default_rng(12)
    for vocab, gamma, concentration in SETTINGS:
        gains, relative = [], []
        for _ in range(CASES):
            p = gen.dirichlet(np.full(vocab, concentration), size=gamma + 1)
            q = gen.dirichlet(np.full(vocab, concentration), size=gamma)
            token, block = expected_accepted(p, q, "token"), expected_accepted(p, q, "block")
            gains.append(block - token)
            relative.append(block / token - 1 if token > 0 else 0.0)
        print(f"random rows V = {vocab}, γ = {gamma}, Dirichlet({concentration}), {CASES} cases: mean gain "
              f"{np.mean(gains):.4f} drafts (median {np.median(relative):+.1%}), largest {max(gains):.3f}, "
              f"smallest {min(gains):.2e}")


if __name__ == "__main__":
    main()
