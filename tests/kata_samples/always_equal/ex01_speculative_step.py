"""Sample learner file for the kata command's tests (01-speculative-step): a list whose == is always true.

It draws as the rule does but resamples a rejection from p (the `failing` sample's mistake), and
returns its tokens in a list subclass that says yes to every comparison: the grader must refuse the
result as one of the wrong kind instead of asking it whether it is right.
"""

from speckata import check_step_inputs, sample


class AlwaysEqual(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def speculative_step(p, q, draft, rng) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    tokens = AlwaysEqual()
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        tokens.append(sample(p[i], rng))
        return tokens
    tokens.append(sample(p[len(draft)], rng))
    return tokens
