"""Sample learner file for the kata CLI's tests (01-speculative-step): does not parse, on purpose."""

from speckata import check_step_inputs, sample


def speculative_step(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    tokens = []
    for i, x in enumerate(draft)
        tokens.append(int(x))
    tokens.append(sample(p[len(draft)], rng))
    return tokens
