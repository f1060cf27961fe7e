"""Exercise 19-jacobi-decoding: reference solution. The exercise text is in exercises/ex19_jacobi_decoding.py."""

from speckata.checks.decoding import check_count, check_prompt, checked_token_ids
from speckata.decoding.results import SpeculativeResult


def jacobi_generate(model, prompt_ids, max_new_tokens, n, initial_guess=None) -> SpeculativeResult:
    sequence = check_prompt(prompt_ids, model.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("n", n, 1)
    if initial_guess is None:
        guess = [sequence[-1]] * n
    else:
        guess = checked_token_ids("initial_guess", list(initial_guess), model.vocab_size)
        if len(guess) != n:
            raise ValueError(f"initial_guess must hold n = {n} token ids; got {len(guess)}")
    model.reset()
    result = SpeculativeResult()
    new = result.tokens
    while len(new) < max_new_tokens:
        k = min(n, max_new_tokens - len(new) - 1)  # never overshoot
        guessed = guess[:k]
        logits = model.forward_new(sequence[model.cache_length :] + guessed)
        pred = logits[-(k + 1) :].argmax(dim=-1).tolist()  # torch: the first index on a tie
        a = 0
        while a < k and guessed[a] == pred[a]:
            a += 1
        kept = pred[: a + 1]  # pred[a] follows a correct prefix: always right
        sequence += kept
        new += kept
        if model.cache_length > len(sequence) - 1:
            model.crop(len(sequence) - 1)  # forget the wrong guesses (and keep the newest out)
        guess = (pred[a + 1 :] + [pred[k]] * n)[:n]  # the Jacobi update of the positions still open
        result.drafted_per_pass.append(k)
        result.accepted_per_pass.append(a)
        result.target_passes += 1
    return result
