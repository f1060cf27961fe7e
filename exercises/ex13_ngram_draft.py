"""Exercise 13-ngram-draft: prompt lookup, a draft with no model at all.

When a model copies (a quotation, a variable name, code being edited, a summary reusing the
source's words), the next tokens are often already in the context, right after an earlier
occurrence of the last few tokens. Prompt lookup drafts them from there: no draft model, no draft
pass, almost no cost. Theory: theory/13-ngram-draft.md. Measured on SmolLM2-135M:
notebooks/13-ngram-draft.ipynb.

Inputs
    context_ids  the token ids so far (prompt and generated), oldest first: a list, a tuple or a
                 1-D numpy array of non-negative integers. Do not modify it.
    n            the longest n-gram to look up, an integer >= 1.
    gamma        the most tokens to propose, an integer >= 0.

The rule. Write L = len(context_ids) and c = context_ids.
    1. Try the sizes m = n, n-1, ..., 1 in that order (longest first); skip a size with m >= L
       (the suffix needs at least one token before it).
    2. For size m, the suffix is c[L-m:]. Find its most recent EARLIER occurrence: the largest
       start s with s < L - m and c[s:s+m] == c[L-m:]. The earlier occurrence may overlap the
       suffix (s + m > L - m is fine). If there is none, go on to the next smaller m.
    3. At the first size that has an occurrence, propose the gamma tokens that follow it: token j
       (j = 0 .. gamma-1) is e[s+m+j], where e is the context followed by the tokens proposed so
       far. So the proposal copies c[s+m:], and where the copy reaches the end of the context it
       goes on copying its own first tokens (as in LZ77): after [1, 2, 3, 1, 2, 3, 1] the
       proposal repeats the period, 2, 3, 1, 2, 3, ... Since s + m < L, every token is defined,
       and the proposal always has exactly gamma tokens.
    4. If no size has an earlier occurrence, return an empty list.

Return a list of plain Python ints: gamma tokens, or [] when nothing matched (and when gamma = 0).

Bad input raises ValueError; the grader looks for these phrases: "n must be" (n not an integer
>= 1), "gamma must be" (gamma not an integer >= 0), "1-D" (a 2-D array of ids), "integer" (an
id that is not an integer, such as 1.5 or True), "negative" (an id below 0). bool is not an
integer here; numpy integers are.

Worked example (from theory/13-ngram-draft.md):

>>> context = [5, 1, 2, 9, 7, 1, 2, 3, 4, 1, 2]
>>> ngram_draft(context, 3, 3)   # [4, 1, 2] never came before; [1, 2] did, last at 5: copy from 7
[3, 4, 1]
>>> ngram_draft([1, 2, 3, 1, 2, 3, 1], 2, 5)   # [3, 1] last at 2 (overlapping), copy from 4 on
[2, 3, 1, 2, 3]
>>> ngram_draft([1, 2, 3], 2, 4)   # neither [2, 3] nor [3] came before
[]

Tasks (the grader reports a failure by its task number):
    Task 1: the worked example
    Task 2: the most recent earlier occurrence, never the suffix itself
    Task 3: longest n-gram first, then shorter ones
    Task 4: overlapping matches copy their own proposal
    Task 5: empty proposals
    Task 6: inputs and outputs
    Task 7: thousands of random cases against the reference
    Task 8: bad input

Check it with:  kata check 13-ngram-draft   (or: pytest tests/test_13_ngram_draft.py)
"""


def ngram_draft(context_ids, n, gamma) -> list[int]:
    # TODO(13-ngram-draft): look up the last n (then n-1, ...) tokens earlier in the context and
    # copy the gamma tokens that followed the most recent occurrence.
    raise NotImplementedError("13-ngram-draft: ngram_draft is not written yet")
