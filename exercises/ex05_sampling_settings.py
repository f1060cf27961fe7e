"""Exercise 05-sampling-settings: temperature, top-k and top-p, on both sides of the verify step (numpy).

Real decoders do not sample from the model's raw softmax: they sharpen or flatten it with a
temperature and cut its tail with top-k and top-p (nucleus) sampling. Speculative decoding stays
exact only if the accept test compares the distributions the two models REALLY sample from: the
warped target p and the warped draft q, warped with the same settings. Warping one side only is
a real bug class in public engines (theory/05-sampling-settings.md measures the damage).
Notebook: notebooks/05-sampling-settings.ipynb. Notation: p is the target, q is the draft.

warp(logits, temperature=1.0, top_k=None, top_p=None) -> probs
    logits   shape (V,) for one row or (rows, V) for several (each row is warped on its own).
             Finite numbers, or -inf for a masked token (probability 0). A NaN, a +inf, or a row
             with every logit -inf is an error.
    returns  float64 probabilities of the same shape, each row summing to 1, removed tokens
             exactly 0.0. The input is not modified.
    The steps, in this order:
    1. Temperature T. T > 0: probs = softmax(logits / T) (subtract the row's maximum first so
       that large logits do not overflow). T = 0: all mass on the argmax (the limit T -> 0), a
       one-hot row; on a tie the lowest index. T = 1 is the plain softmax.
    2. Top-k (None: skip). Rank the tokens by their probability after step 1, most likely first,
       ties broken by the LOWER INDEX first. Keep exactly the first k of that ranking (fewer
       tokens than k: keep all), set the rest to 0, renormalise. Ties at the boundary are NOT
       all kept: of three tokens tied for second place, top_k = 2 keeps the lowest-index one.
    3. Top-p (None: skip). Using the distribution left by step 2 (renormalised) and the same
       ranking, keep the shortest prefix of the ranking whose cumulative probability reaches
       top_p (cumulative >= top_p); if rounding leaves every cumulative sum below top_p, keep
       every token. At least one token is always kept. Zero the rest, renormalise.
    Settings: temperature a finite number >= 0; top_k None or an int >= 1 (0 is an error, not
    "off"); top_p None or a number with 0 < top_p <= 1.

speculative_step_from_logits(target_logits, draft_logits, draft, rng, temperature=1.0, top_k=None, top_p=None)
    target_logits  shape (γ+1, V): the target's logits at the draft positions and one more.
    draft_logits   shape (γ, V): the logits the draft sampled draft[i] from, with the SAME
                   settings. For γ = 0 an empty list or an array of shape (0, V).
    Warp both with warp(..., temperature, top_k, top_p) and return
        speculative_step(p, q, draft, rng)   (exercise 01)   when temperature > 0,
        greedy_step(p, q, draft)             (exercise 04)   when temperature == 0; no draws.
    Import them (the graded folder is on sys.path): they already validate and draw exactly as
    their exercises say, so this function draws exactly what exercise 01 draws, and nothing at
    temperature 0.
    A drafted token that the warped draft gives probability 0 (cut by top-k or top-p, masked
    by -inf, or at temperature 0 anything but the draft's argmax) could not have been proposed:
    exercise 01's check raises ValueError mentioning "zero probability". That is the intended
    behaviour: do not catch it.

Bad input raises ValueError with a message containing: "shape" (logits not 1-D or 2-D, V = 0,
or rows that do not fit the draft), "NaN", "inf" (a +inf logit), "all -inf" (a row with no
finite logit), "temperature", "top_k", "top_p" (a setting out of range), and exercise 01's
phrases for the step ("out of range", "zero probability").

Worked example (a target whose softmax is [0.4, 0.3, 0.2, 0.1]):

>>> import numpy as np
>>> logits = np.log([0.4, 0.3, 0.2, 0.1])
>>> warp(logits).round(4).tolist()
[0.4, 0.3, 0.2, 0.1]
>>> warp(logits, temperature=0.5).round(4).tolist()     # ∝ [0.16, 0.09, 0.04, 0.01]
[0.5333, 0.3, 0.1333, 0.0333]
>>> warp(logits, top_k=2).round(4).tolist()             # [0.4, 0.3] renormalised
[0.5714, 0.4286, 0.0, 0.0]
>>> warp(logits, top_k=3, top_p=0.75).round(4).tolist() # after top-k [4/9, 3/9, 2/9]: 4/9 + 3/9 >= 0.75
[0.5714, 0.4286, 0.0, 0.0]
>>> warp(logits, temperature=0).tolist()
[1.0, 0.0, 0.0, 0.0]
>>> from speckata import ReplayRNG
>>> target = np.log([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])   # exercise 01's rows
>>> drafts = np.log([[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]])
>>> speculative_step_from_logits(target, drafts, [1, 2], ReplayRNG([0.6, 0.9, 0.2]))
[1, 2, 0]
>>> speculative_step_from_logits(target, drafts, [1, 2], ReplayRNG([]), temperature=0)   # greedy, no draws
Traceback (most recent call last):
    ...
ValueError: q[0, 1] = 0: the draft gave drafted token 1 zero probability at position 0, ...

At temperature 0 the draft proposes its argmax: token 0 at position 0 (0.5) and token 2 at
position 1 (0.6). Draft [1, 2] is impossible there; draft [0, 2] is what it would propose, and
the target's argmax at position 0 is token 1, so greedy verification emits [1].

>>> speculative_step_from_logits(target, drafts, [0, 2], ReplayRNG([]), temperature=0)
[1]

Tasks (the grader reports a failure by its task number):
    Task 1: warp, temperature
    Task 2: warp, top-k
    Task 3: warp, top-p
    Task 4: warp, the order of the steps and the shapes
    Task 5: the step from logits
    Task 6: the output follows the warped target
    Task 7: bad input

Check it with:  kata check 05-sampling-settings   (or: pytest tests/test_05_sampling_settings.py)
"""

import numpy as np  # noqa: F401

from ex01_speculative_step import speculative_step  # noqa: F401  (your exercise 01)
from ex04_greedy_step import greedy_step  # noqa: F401  (your exercise 04)


def warp(logits, temperature=1.0, top_k=None, top_p=None):
    # TODO(05-sampling-settings): temperature, then top-k, then top-p, renormalising; 1-D or 2-D.
    raise NotImplementedError("05-sampling-settings: warp is not written yet")


def speculative_step_from_logits(target_logits, draft_logits, draft, rng, temperature=1.0, top_k=None, top_p=None):
    # TODO(05-sampling-settings): warp BOTH sides with the same settings, then exercise 01 (or 04 at temperature 0).
    raise NotImplementedError("05-sampling-settings: speculative_step_from_logits is not written yet")
