"""Sample learner file for the kata CLI's tests (01-speculative-step): a loop that never ends."""

from speckata import check_step_inputs, sample


def speculative_step(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    tokens = []
    i = 0
    u = rng.random()
    while i < len(draft):  # the mistake: i never advances
        x = draft[i]
        accepted = u < p[i, x] / q[i, x]
    if not draft or accepted:
        tokens.append(sample(p[len(draft)], rng))
    return tokens
