"""Exercise 04-greedy-step: reference solution. The exercise text is in exercises/ex04_greedy_step.py."""

import numpy as np

from speckata import check_step_inputs


def greedy_step(p, q, draft) -> list[int]:
    p, q, draft = check_step_inputs(p, q, draft)
    tokens = []
    for i, x in enumerate(draft):
        choice = int(np.argmax(p[i]))  # the lowest index among equal maxima
        tokens.append(choice)
        if x != choice:
            return tokens
    tokens.append(int(np.argmax(p[len(draft)])))
    return tokens
