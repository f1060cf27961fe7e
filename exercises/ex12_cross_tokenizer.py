"""Exercise 12-cross-tokenizer: drafting with a model that has another tokenizer, exactly (torch).

A draft that shares the target's tokenizer proposes tokens with known probabilities q, and the rule
of exercise 01 needs those q. A draft with ANOTHER tokenizer (here: word pieces, while the target
reads characters) proposes text. Universal Assisted Generation turns that text into the target's
tokens and verifies them; but the probability that the draft's process produced exactly those
target tokens takes more draft passes with every token (theory page 12 §1), and plugging in a
stand-in (such as "the probability of the first draft piece that covers the token", page 12 §2)
breaks exactness. This exercise makes it exact by treating the re-encoded tokens as a proposal
the draft puts ALL its mass on: q = 1 on the proposed token.
Theory: theory/12-cross-tokenizer.md. Worked example: notebooks/12-cross-tokenizer.ipynb.

The pieces (speckata.models.tokenizers; the grader also hands you tiny toy versions):
    target_tokenizer  CharTokenizer: encode(text) -> ids (ValueError naming a character it lacks),
                      decode(ids) -> text, has(ch) -> whether a character has a target id.
    draft_tokenizer   WordTokenizer: pieces(text) -> the pieces its encoding cuts text into (they
                      join back to text); encode(text, add_bos=True) -> [<bos>] + ids;
                      decode(ids) -> text (<bos> decodes to "", <unk> to U+FFFD, which the target
                      has no id for); ids_starting_with(prefix) -> ids of the pieces whose text
                      starts with prefix (specials excluded), ascending; BOS = 0.
    target, draft     models with the interface of exercise 10 (forward_new, cache_length, crop,
                      reset); the draft over the draft tokenizer's ids.

Task 1: verify_proposal(p, proposal, generator) -> list of ints
    p: float64 tensor (k+1, V) of the target's probabilities at each proposal position and one more;
    proposal: k target token ids. For i = 0 .. k-1: u = draw_uniform(generator); keep proposal[i]
    if u < p[i, proposal[i]] (strictly). At the first rejection, set that token's probability to 0
    in a copy of p[i] and draw sample_token(copy, generator); if the copy has no mass (its total is
    at most 1e-12), draw from p[i] instead; stop. If all k are kept, add sample_token(p[k], generator).
    This is exercise 01's rule with q one-hot on the proposed token: min(1, p/q) = p, and
    max(0, p − q) is p without it.

Task 2: target_proposal(drafted_text, tail, target_tokenizer) -> list of ints
    The committed text ends with `tail`, the last piece, which the draft was asked to complete.
    If drafted_text does not start with tail, return []. Otherwise take the text after the tail, cut
    it before the first character target_tokenizer.has() rejects, and return its target ids.

Task 3: cross_tokenizer_generate(target, target_tokenizer, draft, draft_tokenizer, prompt,
                                 max_new_tokens, gamma, generator, temperature=1.0, draft_window=64)
    prompt is text. Start with check_cross_tokenizer_inputs(prompt, max_new_tokens, gamma,
    temperature) (given), sequence = target_tokenizer.encode(prompt), target.reset(), draft.reset().
    Repeat rounds until max_new_tokens target tokens are out:
    1. room = max_new_tokens - (tokens so far) - 1. text = target_tokenizer.decode(sequence);
       tail = draft_tokenizer.pieces(text)[-1] (the last word may still grow); head = text without
       the tail. If room > 0 and draft_tokenizer.ids_starting_with(tail) is not empty, draft:
       a. ids = draft_tokenizer.encode(head): <bos> once, then the head's pieces; if longer than
          draft_window, keep <bos> and the last draft_window - 1 ids.
       b. The draft's cache holds the ids it was fed before. Keep the longest common prefix of
          those and ids[:-1] (crop the draft to it if it holds more) and feed the rest of ids in
          one call.
       c. The first piece is the allowed id (ids_starting_with(tail)) with the largest logit in the
          last row; then gamma - 1 more pieces, each fed back alone and chosen by argmax (ties: the
          lowest id). Greedy: drafting draws no random numbers. gamma draft calls in all; the cache
          then holds ids + all pieces but the last.
       d. proposal = target_proposal(draft_tokenizer.decode(pieces), tail, target_tokenizer)[:room].
       Otherwise the proposal is empty and the draft is not called.
    2. Feed the target sequence[target.cache_length:] + proposal in one call; p = next_token_
       probabilities(last len(proposal) + 1 rows, temperature); tokens = verify_proposal(p, proposal,
       generator); extend sequence; crop the target to len(sequence) - 1 if it holds more.
    Return a CrossTokenizerResult (speckata.decoding.baseline): text (target_tokenizer.decode of the
    new tokens), tokens, proposed_per_pass, accepted_per_pass, target_passes, draft_passes.
    The output is distributed exactly as the target's own samples, whatever the draft proposes;
    at temperature 0 it is the target's greedy decoding.

Bad input: ValueError naming "prompt", "max_new_tokens", "gamma" or "temperature" (the given
check), or from target_tokenizer.encode a "vocabulary" error for prompt characters it lacks.

Worked example (toy tokenizers: the target reads "a", "b", " "; the draft also knows "c"):

>>> import torch
>>> from speckata.models.tokenizers import CharTokenizer, WordTokenizer
>>> chars, words = CharTokenizer("ab "), WordTokenizer([" ab", "ab", "ba"], alphabet="abc ")
>>> words.pieces("ab ab b"), words.encode("ab ab b"), words.ids_starting_with(" ")
(['ab', ' ab', ' b'], [0, 7, 6, 5, 3], [5, 6])
>>> target_proposal(" abc ab", " a", chars)        # after the tail " a": "bc ab", cut before "c"
[1]
>>> p = torch.tensor([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]], dtype=torch.float64)
>>> g = torch.Generator().manual_seed(0)           # uniforms 0.9701, 0.7078, ...
>>> verify_proposal(p, [1], g)                     # 0.9701 >= 0.7: reject "b"; [0.2, 0, 0.1] -> token 2
[2]

Check it with:  kata check 12-cross-tokenizer   (or: pytest tests/test_12_cross_tokenizer.py)
"""

import torch  # noqa: F401

from speckata.decoding.baseline import CrossTokenizerResult, check_cross_tokenizer_inputs  # noqa: F401  (given)
from speckata.decoding.sampling import draw_uniform, next_token_probabilities, sample_token  # noqa: F401


def verify_proposal(p, proposal, generator):
    # TODO(12-cross-tokenizer): keep proposal[i] with probability p[i, proposal[i]]; on the first
    # rejection sample from p[i] without that token; all kept: a bonus token from p[k].
    raise NotImplementedError("12-cross-tokenizer: verify_proposal is not written yet")


def target_proposal(drafted_text, tail, target_tokenizer):
    # TODO(12-cross-tokenizer): strip the tail, cut at the first character the target lacks, encode.
    raise NotImplementedError("12-cross-tokenizer: target_proposal is not written yet")


def cross_tokenizer_generate(target, target_tokenizer, draft, draft_tokenizer, prompt, max_new_tokens, gamma,
                             generator, temperature=1.0, draft_window=64):
    # TODO(12-cross-tokenizer): draft text with the other tokenizer, re-encode it for the target,
    # verify it in one target pass, roll back; repeat.
    raise NotImplementedError("12-cross-tokenizer: cross_tokenizer_generate is not written yet")
