"""Exercise 19-jacobi-decoding: guess several tokens, let the target correct them all in one pass (torch).

Jacobi decoding needs no draft model. Guess the next n tokens, feed them to the target in ONE
pass, and read the target's greedy prediction at every position. Wherever the guess agreed with
the prediction, the guess was right, and the next prediction after a run of right guesses is
right as well: every pass yields at least one new token, sometimes several. The predictions past
the first wrong guess become the next guess (a Jacobi iteration of the fixed-point equations
"each token is the argmax given the ones before it"). Theory: theory/19-jacobi-decoding.md.
Worked example with the trained character model: notebooks/19-jacobi-decoding.ipynb.

The model follows speckata.models.interface (as in exercise 10): model.forward_new(ids) -> logits
(n, V), model.cache_length, model.crop(length), model.reset(). The grader records every call.

jacobi_generate(model, prompt_ids, max_new_tokens, n, initial_guess=None)
    prompt_ids      a non-empty list (or 1-D tensor) of token ids.
    max_new_tokens  how many new tokens to return (>= 0).
    n               how many guessed tokens a pass may carry (>= 1).
    initial_guess   None, or a list of exactly n token ids to use as the first guess.
Returns a speckata.decoding.results.SpeculativeResult with: tokens (exactly max_new_tokens plain
ints, the prompt not included), drafted_per_pass (k of each pass, below), accepted_per_pass (the
a of each pass), target_passes (how many forward_new calls the model received), draft_passes = 0.

Greedy: the prediction of a row of logits is its argmax, the FIRST index on a tie (torch's
argmax does this; next_token_probabilities(row, 0) is its one-hot).

The contract. Check the inputs (ValueError phrases below), then model.reset(). The first guess
is initial_guess, or when it is None the prompt's last token repeated n times. Repeat passes
until max_new_tokens tokens are out (sequence = prompt + tokens so far, L = len(sequence)):
    1. k = min(n, max_new_tokens - (tokens so far) - 1): no pass may overshoot. g = guess[:k].
    2. One call: feed sequence[model.cache_length:] + g. Let pred[0..k] be the predictions of the
       last k + 1 rows: pred[j] is the target's token for position L + j (pred[0] follows the
       sequence's last token, pred[j] follows g[j-1]).
    3. a = how many leading guesses are right: the largest a <= k with g[i] == pred[i] for all
       i < a. Append pred[0], ..., pred[a] to the sequence (a + 1 new tokens: pred[a] was
       predicted from a correct prefix, so it is right too, even when a = 0).
    4. Roll back: if the cache holds more than len(sequence) - 1 tokens, crop it to
       len(sequence) - 1 (it then holds the prompt, the kept tokens but the newest, and no wrong
       guess). A crop that changes nothing (to the cache's own length) is allowed and not graded.
    5. The next guess: pred[a+1:] (the predictions for the positions still guessed), padded to n
       tokens by repeating pred[k] (the last prediction):  (pred[a+1:] + [pred[k]] * n)[:n].
Pass i's entry in drafted_per_pass is its k, in accepted_per_pass its a. With max_new_tokens = 0
there is no forward call (only the reset).

Bad input raises ValueError; the grader looks for these phrases: "prompt" (empty prompt or an id
out of range), "max_new_tokens" (not an integer >= 0), "n must be" (not an integer >= 1),
"initial_guess" (not n token ids of the vocabulary).

Worked example: a Markov chain whose greedy path from 0 is 1, 2, 3, 0, 1, 2, ...
>>> from speckata.models.markov import MarkovModel
>>> cycle = MarkovModel([[.1, .7, .1, .1], [.1, .1, .7, .1], [.1, .1, .1, .7], [.7, .1, .1, .1]])
>>> result = jacobi_generate(cycle, [0], 6, 2, initial_guess=[1, 2])   # a perfect guess
>>> result.tokens, result.accepted_per_pass, result.target_passes   # pass 1 keeps 2 + 1 tokens
([1, 2, 3, 0, 1, 2], [2, 0, 0, 0], 4)

After pass 1 nothing is left of the guess, so the next one is [3, 3] (pred[k] repeated): wrong.

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: the output is the target's greedy decoding, ties to the first index
    Task 3: the calls: what each pass feeds, the crops, the guesses
    Task 4: passes and the per-pass counts
    Task 5: bad input

Check it with:  kata check 19-jacobi-decoding   (or: pytest tests/test_19_jacobi_decoding.py)
"""

from speckata.checks.decoding import check_count, check_prompt, checked_token_ids  # noqa: F401
from speckata.decoding.results import SpeculativeResult  # noqa: F401


def jacobi_generate(model, prompt_ids, max_new_tokens, n, initial_guess=None) -> SpeculativeResult:
    # TODO(19-jacobi-decoding): guess, verify the guess in one pass, keep the fixed-point prefix
    # plus one, crop the cache, and use the remaining predictions as the next guess.
    raise NotImplementedError("19-jacobi-decoding: jacobi_generate is not written yet")
