"""Isolation sample (01-speculative-step): ends the process with exit code 0 instead of returning."""

import os


def speculative_step(p, q, draft, rng) -> list[int]:
    os._exit(0)
