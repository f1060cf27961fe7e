"""Sample learner file for the kata CLI's tests (01-speculative-step): resamples from p, not the residual."""

from speckata import check_step_inputs, sample


def speculative_step(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    print("DEBUG-FROM-LEARNER starting")  # the display must not be disturbed by this
    tokens = []
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        tokens.append(sample(p[i], rng))  # the mistake: the replacement should come from max(0, p - q)
        return tokens
    tokens.append(sample(p[len(draft)], rng))
    return tokens
