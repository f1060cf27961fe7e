"""Isolation sample (01-speculative-step): a wrong rule that rewrites its inputs to look right.

It accepts every drafted token, then overwrites q with p in place: where the grader computed its
expectation from the inputs after the call, every ratio p/q read 1, every draft "should" have been
accepted, and this version passed 3 tests. It draws as the rule does (one uniform per draft, one
sample for the bonus), so only the rewritten inputs tell it apart.
"""

from speckata import sample


def speculative_step(p, q, draft, rng) -> list[int]:
    tokens = []
    for x in draft:
        rng.random()
        tokens.append(int(x))
    tokens.append(sample(p[len(draft)], rng))
    for i in range(len(q)):
        q[i] = p[i]
    return tokens
