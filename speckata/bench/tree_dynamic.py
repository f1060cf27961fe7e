"""EAGLE-2's dynamic tree on exercise 20's verifier, unchanged: a new shape every round.

Exercise 20's tree_speculative_generate takes one shape for a whole run, so each round here is one
call of it: the prompt is the text so far, the shape is exercise 24's dynamic_tree for that text,
and only the call's first round is kept (its accepted nodes and its correction or bonus token,
distributed exactly as the target's, as every round of exercise 20 is). The call may go on to
later rounds with the same shape; those are thrown away, and only kept rounds are counted.
The draft's rows for the expansion come from a second copy of the draft, cropped back to the text
before each path, so that the verifier's own draft calls stay exactly exercise 20's.
"""

from __future__ import annotations

from speckata.decoding.results import SpeculativeResult
from speckata.decoding.sampling import next_token_probabilities


def draft_rows(expander, text: list[int], temperature: float):
    """draft_probs(path) for exercise 24: the draft's distribution after ``text`` + path, as a list."""
    expander.reset()
    root = next_token_probabilities(expander.forward_new(text)[-1], temperature).tolist()

    def draft_probs(path) -> list[float]:
        if not path:
            return root
        expander.crop(len(text))
        return next_token_probabilities(expander.forward_new(list(path))[-1], temperature).tolist()

    return draft_probs


def dynamic_generate(tree_generate, dynamic_tree, target, draft, expander, prompt: list[int], max_new_tokens: int,
                     generator, temperature: float, budget: int, top_k: int, depth: int) -> SpeculativeResult:
    result = SpeculativeResult()
    text = list(prompt)
    while len(result.tokens) < max_new_tokens:
        shape = dynamic_tree(draft_rows(expander, text, temperature), budget, top_k, depth)
        wanted = min(max_new_tokens - len(result.tokens), max(shape.depths) + 1)  # round 1 is never truncated
        one = tree_generate(target, draft, text, wanted, shape.paths, generator, temperature, "top_k")
        kept = one.tokens[: one.accepted_per_pass[0] + 1]
        text += kept
        result.tokens += kept
        result.accepted_per_pass.append(one.accepted_per_pass[0])
        result.drafted_per_pass.append(one.drafted_per_pass[0])
        result.target_passes += 1
    return result
