"""Boundary probe (01-speculative-step): returns a valid "list of plain ints" of a million tokens.

Nothing forged: but every failing test's message laid the million out in full (277 s, 7.2 GiB,
4.8 GB of results.json). The grader must refuse it by its length before comparing it.
"""


def speculative_step(p, q, draft, rng) -> list[int]:
    return [1] * 1_000_000
