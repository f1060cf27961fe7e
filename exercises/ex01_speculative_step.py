"""Exercise 01-speculative-step: the verify step of speculative decoding (numpy).

A small draft model has proposed γ tokens. The big target model has scored all of them in one
pass. Your job: decide which proposals to keep so that the tokens you return are distributed
exactly as if the target had sampled them one by one. Theory: theory/01-speculative-step.md.
Worked example, step by step: notebooks/01-speculative-step.ipynb.

Inputs
    p      target distributions, shape (γ+1, V): p[i] is the target's next-token distribution
           at draft position i, and p[γ] the one after the last proposal.
    q      draft distributions, shape (γ, V): q[i] is what the draft sampled draft[i] from.
    draft  the γ proposed token ids.
    rng    anything with a .random() method returning a uniform number in [0, 1).
    Lists are accepted as well as numpy arrays. γ = 0 is allowed.

The rule, for i = 0, 1, ..., γ-1 with x = draft[i]:
    1. Draw u = rng.random(). Accept x if u < p[i, x] / q[i, x] (strictly less).
    2. On the first rejection, sample a replacement from the residual max(0, p[i] - q[i]) with
       sample(residual, rng) (it normalises for you), and stop: later proposals are never
       looked at. If the residual has no mass (its total is at most 1e-12, which happens only
       when p[i] and q[i] agree up to rounding), sample from p[i] instead.
    3. If all γ proposals are accepted, sample one bonus token from p[γ] with sample(p[γ], rng).

Return the accepted tokens followed by the replacement or the bonus token, as a list of 1 to γ+1
plain Python ints.

The random-number contract (the grader replays fixed streams and counts your draws): exactly one
rng.random() per accept test and exactly one per sample (sample draws it for you), in the order
the rule visits them. Never draw ahead, never draw a number you do not use.

Bad input raises ValueError with a message naming the problem; the grader looks for these
phrases: "shape" (shapes that disagree), "out of range" (a drafted token id), "zero probability"
(q[i, draft[i]] == 0: the draft could not have proposed it), "negative", "NaN", "sum to 1" (a row
off by more than 1e-6 for float64 rows and Python floats, 1e-4 for float32 rows: rounding grows with
the vocabulary), "complex", "integer" (a drafted id such as 2.5 or inf). The given speckata.check_step_inputs(p, q, draft) does all of this and
returns float64 arrays; calling it first is allowed and recommended.

Worked example (from theory/01-speculative-step.md):

>>> from speckata import ReplayRNG
>>> p = [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]]
>>> q = [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]]
>>> rng = ReplayRNG([0.6, 0.9, 0.2])
>>> speculative_step(p, q, [1, 2], rng), rng.draws   # 0.6 < 5/3, 0.9 < 4/3, bonus from p[2]
([1, 2, 0], 3)
>>> rng = ReplayRNG([0.6, 0.9, 0.2])
>>> speculative_step(p, q, [0, 2], rng), rng.draws   # 0.6 >= 0.4: reject, residual [0, 2/3, 1/3]
([2], 2)

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: the accept test is strict
    Task 3: the number of tokens
    Task 4: the residual with no mass
    Task 5: inputs and outputs
    Task 6: hundreds of random cases against the reference
    Task 7: the output is distributed exactly as p
    Task 8: bad input

Check it with:  kata check 01-speculative-step   (or: pytest tests/test_01_speculative_step.py)
"""

from speckata import check_step_inputs, sample  # noqa: F401  (given helpers)


def speculative_step(p, q, draft, rng) -> list[int]:
    # TODO(01-speculative-step): implement the accept / reject / resample rule described above.
    raise NotImplementedError("01-speculative-step: speculative_step is not written yet")
