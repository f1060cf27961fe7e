"""Isolation sample (01-speculative-step): loops forever and swallows every attempt to stop it."""


def speculative_step(p, q, draft, rng) -> list[int]:
    while True:
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001 - on purpose: it catches the grader's stop too
            continue
