"""Exercise 04-greedy-step: the verify step when everyone decodes greedily (numpy).

With greedy decoding the target would emit argmax p[i] at every position, and the draft proposed
its own argmax. Speculative decoding must then reproduce the target's greedy output exactly, and
no randomness is needed: a drafted token is right or it is not. This is exercise 01's rule with
one-hot rows (theory/04-greedy-step.md shows why). Notebook: notebooks/04-greedy-step.ipynb.
Notation: p is the target, q is the draft.

Inputs (the same as exercise 01, without the random generator)
    p      target distributions, shape (γ+1, V); p[γ] is the one after the last proposal.
    q      draft distributions, shape (γ, V). The rule never uses q's values, but q is validated:
           q[i, draft[i]] == 0 means the draft could not have proposed draft[i].
    draft  the γ proposed token ids. Lists or numpy arrays; γ = 0 is allowed.

The rule, for i = 0, 1, ..., γ-1:
    1. Let t = argmax p[i], the lowest index among equal maxima (as np.argmax does).
    2. If draft[i] == t, accept it and go on. Otherwise emit t in its place and stop: later
       proposals are never looked at.
    3. If all γ proposals are accepted, emit the bonus token argmax p[γ].

Return the accepted tokens followed by the correction or the bonus token, as a list of 1 to γ+1
plain Python ints. Nothing is random: there is no rng and nothing to draw.

Bad input raises ValueError exactly as in exercise 01 ("shape", "out of range", "zero
probability", "negative", "NaN", "sum to 1"); the given speckata.check_step_inputs(p, q, draft)
does all of it and returns float64 arrays.

Worked example (exercise 01's rows; the argmaxes of p are 1, 2 and 2):

>>> p = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
>>> q = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]
>>> greedy_step(p, q, [1, 2])   # both agree, bonus argmax p[2] = 2
[1, 2, 2]
>>> greedy_step(p, q, [0, 2])   # 0 is not argmax p[0] = 1: emit 1 and stop
[1]
>>> greedy_step([[0.4, 0.4, 0.2]], [], [])   # a tie: the lowest index wins
[0]

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: ties go to the lowest index
    Task 3: the number of tokens
    Task 4: the target decides, not the draft
    Task 5: greedy is exercise 01 with one-hot rows, on generated cases
    Task 6: inputs and outputs
    Task 7: bad input

Check it with:  kata check 04-greedy-step   (or: pytest tests/test_04_greedy_step.py)
"""

import numpy as np  # noqa: F401

from speckata import check_step_inputs  # noqa: F401  (given helper)


def greedy_step(p, q, draft) -> list[int]:
    # TODO(04-greedy-step): accept while draft[i] == argmax p[i]; emit the correction or the bonus argmax.
    raise NotImplementedError("04-greedy-step: greedy_step is not written yet")
