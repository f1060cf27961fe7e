"""Exercise 28-eagle-head-cache: EAGLE's head with its own cache: draft steps that cost one row (torch).

Exercise 22's head recomputes its decoder layer over the whole sequence at every draft step: the
layer is causal, so the old rows come out as before, and a step on a sequence of n tokens costs n
rows. EAGLE (Li et al., 2024; SafeAILab/EAGLE, eagle/model/cnets.py) keeps the layer's keys and
values instead, as the target keeps its own, so a step costs one row. Two rules keep the cache
honest: a row computed from the head's OWN predicted feature is only good for the round that
drafted it; once the target has verified, the head keeps only rows of the target's TRUE features
(crop, like the target's cache), and the next round computes the rows of the kept tokens anew
from the target's features. The drafts and q are those of exercise 22, to float rounding.
Theory: theory/28-eagle-head-cache.md. Notebook: notebooks/28-eagle-head-cache.ipynb.

Given (speckata.heads.eagle, speckata.heads.eagle_cache), besides exercise 22's:
    head.forward_new(fused) -> (n, width)   the decoder layer over n new rows of fc's output
        fused (n, width), attending to the rows the head's cache holds and to themselves; the
        cache grows by n. head.cache_length (rows held), head.crop(length) (keep the first length
        rows; crop only rolls back), head.reset() (forget every row). What a row costs is what
        grading counts: head.forward_new computes n rows, head.layer(x) all of x's rows again.
    RecordingEagleHead(head): the same head (its weights and cache shared) that records each call,
        ('new', n, rows cached before), ('crop', length, rows before), ('reset', rows before) and
        ('layer', rows, T) for an uncached head.layer, in .calls; .rows_computed sums the rows.

Task 1: one step of the head against its cache
    eagle_head_step(head, target, features, tokens) -> tensor (n, width)
    features (n, width), n >= 1, and tokens (n,) int64: NEW rows of one sequence, the ones after
    the head.cache_length rows the cache holds (row t: the feature f_t and the token one step ahead
    x_{t+1}, as in exercise 22). Check them with check_features (speckata.heads.eagle). Return
        head.forward_new(head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1)))
    their predicted features, each computed once; the cache now holds n more rows.

Task 2: drafting gamma tokens, one row per step
    eagle_cached_draft(target, head, features, tokens, gamma, generator, temperature=1.0) -> (drafts, q)
    exercise 22's eagle_draft, with the cache. features (n, width): the target's TRUE features
    f_0 .. f_{n-1}; tokens (n,): x_1 .. x_n. The head's cache holds rows of the first m of them,
    m = head.cache_length < n. Under torch.no_grad():
      1. predicted = eagle_head_step(head, target, features[m:], tokens[m:])[-1]   (the n - m rows
         the cache lacks, all from the target's features, in ONE call)
      2. for i = 0 .. gamma-1: q_i = next_token_probabilities(target.head(predicted), temperature);
         x = sample_token(q_i, generator) (one draw); unless i is the last step,
         predicted = eagle_head_step(head, target, predicted[None], torch.tensor([x]))[-1]
         (one row: the head's OWN feature and the token it drew; the last draft's row feeds
         nothing, so it is not computed).
    Return drafts (gamma plain ints) and q, a float64 tensor (gamma, V): the same as exercise 22's
    eagle_draft on these features and tokens, to float rounding. Afterwards the cache holds
    n + gamma - 1 rows: n from the target's features, then gamma - 1 from the head's own.
    A cache of m >= n rows is a cache of another sequence (or one never cropped): ValueError
    mentioning "cache".

Task 3: the decoder, with the head's cache kept across rounds
    eagle_cached_generate(target, head, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0)
        -> SpeculativeResult
    Exercise 22's eagle_generate, calls, draws and result alike, except:
      0. after target.reset(), also head.reset();
      1. the round drafts with eagle_cached_draft (same arguments as eagle_draft);
      4. after exercise 01's rule keeps a drafts, BEFORE features grows: if head.cache_length >
         len(features) (n, the features the round started with), head.crop(n). That drops the rows
         of the rejected drafts (as the target's crop does) AND the rows of the kept drafts, which
         were computed from the head's own predictions; the next round's step 1 computes the a + 1
         new rows (the newest token's and the kept drafts') from the target's true features.
         Then, as in exercise 22: features += hidden[:a + 1], crop the target to len(sequence) - 1.
    Output: at temperature 0 the target's greedy decoding; at any temperature distributed as the
    target's own sampling; token for token and draw for draw exercise 22's eagle_generate.
    You may use exercise 01: `from ex01_speculative_step import speculative_step` (solve 01 first).

Task 4: bad input
    A ValueError naming the problem: "cache" (the head's cache holds as many rows as the features
    or more), "features" (not one sequence's (n >= 1, width)), "gamma" (< 1), and exercise 22's
    checks: "width", "tokens", "forward_new_hidden" (check_features), "prompt", "max_new_tokens",
    "temperature" (check_eagle_inputs).

Worked example (the committed target and head): the same tokens as exercise 22, and the head's rows.

>>> import torch
>>> from speckata.decoding.baseline import autoregressive_generate
>>> from speckata.heads.eagle import RecordingEagleHead, load_eagle_head
>>> from speckata.models.pretrained import char_tokenizer, load_target
>>> target, head = load_target(), RecordingEagleHead(load_eagle_head())
>>> prompt = char_tokenizer().encode("The class definition ")
>>> result = eagle_cached_generate(target, head, prompt, 24, 3, torch.Generator().manual_seed(0), temperature=0)
>>> result.tokens == autoregressive_generate(target, prompt, 24, torch.Generator(), temperature=0)
True
>>> result.accepted_per_pass, result.target_passes
([3, 3, 2, 3, 3, 3], 7)
>>> head.calls[:7]
[('reset', 0), ('new', 21, 0), ('new', 1, 21), ('new', 1, 22), ('crop', 21, 23), ('new', 4, 21), ('new', 1, 25)]
>>> head.rows_computed
52

Check it with:  kata check 28-eagle-head-cache   (or: pytest tests/test_28_eagle_head_cache.py)
"""

import torch  # noqa: F401

from speckata.decoding.baseline import SpeculativeResult, check_count  # noqa: F401  (given)
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token  # noqa: F401
from speckata.heads.eagle import check_eagle_inputs, check_features  # noqa: F401


def eagle_head_step(head, target, features, tokens):
    # TODO(28-eagle-head-cache): exercise 22's fusion, then head.forward_new instead of head.layer.
    raise NotImplementedError("28-eagle-head-cache: eagle_head_step is not written yet")


def eagle_cached_draft(target, head, features, tokens, gamma, generator, temperature=1.0):
    # TODO(28-eagle-head-cache): the rows the cache lacks in one step, then one row per draft.
    raise NotImplementedError("28-eagle-head-cache: eagle_cached_draft is not written yet")


def eagle_cached_generate(target, head, prompt_ids, max_new_tokens, gamma, generator, temperature=1.0):
    # TODO(28-eagle-head-cache): exercise 22's decoder; reset the head with the target, draft with
    # the cache, and after each round keep only the head's rows of the target's true features.
    raise NotImplementedError("28-eagle-head-cache: eagle_cached_generate is not written yet")
