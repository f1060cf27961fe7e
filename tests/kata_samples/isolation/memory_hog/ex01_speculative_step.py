"""Isolation sample (01-speculative-step): asks for far more memory than a verify step needs."""


def speculative_step(p, q, draft, rng) -> list[int]:
    hoard = bytearray(64 * 1024**3)  # 64 GiB
    return [len(hoard)]
