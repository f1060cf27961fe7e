"""Isolation sample (01-speculative-step): calls sys.exit(0) instead of returning."""

import sys


def speculative_step(p, q, draft, rng) -> list[int]:
    sys.exit(0)
