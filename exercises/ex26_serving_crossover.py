"""Exercise 26-serving-crossover: when speculation stops paying in a server, and when it pays again (numpy).

Speculative decoding rests on one premise: a target pass over n new tokens per row costs about
what a pass over one token costs, because a decoding pass is bound by reading memory (the
weights, the rows' KV caches), not by arithmetic. A server decodes B requests at once, and a large
batch erases the premise: the weights are read once per pass for all B rows, so the arithmetic on
B·n tokens takes over and verifying n tokens costs about n times one. Past some batch size
speculation makes the server slower; vLLM and SGLang turn it off or shorten it under load. With
long contexts each row's KV cache, read at every pass and growing with B, dominates again, and
speculation pays again at large batches (MagicDec, Chen et al., 2024).

You get a table of measured (or modelled) pass costs and an acceptance rate, and compute which
decoding wins at each batch size and context length.

Theory: theory/26-serving-crossover.md. Worked example, step by step: notebooks/26-serving-crossover.ipynb.

The inputs (the same four for every function):
    target_cost   float array (num_B, N, num_L): target_cost[b, n - 1, l] is the time of ONE target
                  pass over batch_sizes[b] rows, each feeding n new tokens (n = 1 .. N) against
                  context_lengths[l] cached tokens per row. Any unit of time (seconds, ms, ...).
                  Every entry finite and > 0.
    draft_cost    float array (num_B, num_L): draft_cost[b, l] is the time of ONE draft pass of one
                  new token per row over the same batch and context. Finite and >= 0 (0: a free
                  draft, such as a lookup).
    batch_sizes   1-D ints (num_B,), each >= 1, strictly increasing. Python or numpy ints; floats
                  and bools are refused.
    alpha         the acceptance rate in [0, 1], exercise 03's i.i.d. model: each draft is kept
                  with probability alpha, independently, so a round emits on average
                  E(alpha, g) = 1 + alpha + ... + alpha**g tokens per row (g + 1 at alpha = 1).
Lists and nested lists are accepted wherever an array is. The context lengths themselves are not
needed: the tables hold their effect.

The cost model of one round with g drafts (g >= 1) per row, the same for every row of the batch:
g draft passes (g · draft_cost[b, l]; the draft's catch-up on the last accepted token rides on its
first pass and is not charged apart), then ONE target pass of n = g + 1 tokens per row (the g
drafts plus the position that yields the bonus or the replacement): target_cost[b, g, l]. Plain
decoding is one target pass of n = 1 token per row per token: target_cost[b, 0, l].

serving_throughput(target_cost, draft_cost, batch_sizes, alpha) -> float64 array (num_B, N, num_L)
    Tokens per unit of time over the WHOLE batch (all B rows together, not per row):
        index 0 (plain):      B / target_cost[b, 0, l]
        index g = 1 .. N - 1: B · E(alpha, g) / (target_cost[b, g, l] + g · draft_cost[b, l])
    with B = batch_sizes[b]. A table with N = 1 has only the plain column. Graded to a relative
    1e-9 against exact values.
best_gamma(target_cost, draft_cost, batch_sizes, alpha) -> int64 array (num_B, num_L)
    The g in 0 .. N - 1 with the largest serving_throughput at [b, :, l]; 0 means plain decoding
    wins. Ties: throughputs within a relative 1e-9 of the largest count as equal, and the SMALLEST
    such g wins, i.e. the first g with throughput >= (1 - 1e-9) · max. (So plain wins a tie with
    speculation, and a result replays exactly whatever order your arithmetic takes.)
largest_winning_batch(target_cost, draft_cost, batch_sizes, alpha) -> int64 array (num_L,)
    For each context length l, the largest batch size batch_sizes[b] at which speculation wins,
    i.e. best_gamma[b, l] >= 1; 0 where it wins at no batch size. It does not assume the pattern
    is monotone: with long contexts speculation may lose at middle batch sizes and win again at
    large ones, and then the answer is the large one. (The whole pattern is best_gamma(...) > 0.)

Bad input raises ValueError, with a message containing the phrases in quotes:
    target_cost not 3-D, or N, num_B or num_L of 0                "target_cost", "shape"
    draft_cost not of shape (num_B, num_L)                        "draft_cost", "shape"
    batch_sizes not 1-D of length num_B                           "batch_sizes", "shape"
    a cost that is NaN or infinite                                "finite"
    a cost below 0                                                "negative"
    a target cost of exactly 0                                    "target_cost", "positive"
    a batch size that is not an int (3.0, True)                   "batch_sizes", "integer"
    a batch size below 1                                          "batch_sizes", "at least 1"
    batch sizes not strictly increasing                           "batch_sizes", "increasing"
    alpha not a real number in [0, 1] (NaN too)                  "alpha"

Worked example: two batch sizes (1 and 16), N = 3, two context lengths (short, long), a draft pass
costing 1, alpha = 0.5 (E = 1, 1.5, 1.75 for g = 0, 1, 2). With the short context one row's pass
costs 10 whatever n (memory-bound), 16 rows cost 10 n (compute-bound); with the long context the
rows' caches dominate and 16 rows cost 100, 110, 120.

>>> import numpy as np
>>> target_cost = np.zeros((2, 3, 2))
>>> target_cost[:, :, 0] = [[10, 10, 10], [10, 20, 30]]      # short context: B = 1, B = 16
>>> target_cost[:, :, 1] = [[20, 20, 20], [100, 110, 120]]   # long context
>>> draft_cost, batch_sizes = np.ones((2, 2)), [1, 16]
>>> throughput = serving_throughput(target_cost, draft_cost, batch_sizes, 0.5)
>>> np.round(throughput[1], 4)          # B = 16: rows g = 0, 1, 2; columns short, long
array([[1.6   , 0.16  ],
       [1.1429, 0.2162],
       [0.875 , 0.2295]])
>>> best_gamma(target_cost, draft_cost, batch_sizes, 0.5)   # 16 x 1.5 / (20 + 1) < 16 / 10
array([[2, 2],
       [0, 2]])
>>> largest_winning_batch(target_cost, draft_cost, batch_sizes, 0.5)
array([ 1, 16])

Tasks (the grader reports a failure by its task number):
    Task 1: serving_throughput on given tables
    Task 2: best_gamma and its tie rule
    Task 3: largest_winning_batch, monotone or not
    Task 4: generated tables against exact values
    Task 5: bad input

Check it with:  kata check 26-serving-crossover   (or: pytest tests/test_26_serving_crossover.py)
"""

import numbers  # noqa: F401

import numpy as np  # noqa: F401


def serving_throughput(target_cost, draft_cost, batch_sizes, alpha) -> np.ndarray:
    # TODO(26-serving-crossover): validate, then B / c(B, 1, L) at index 0 and B·E(alpha, g) / (c(B, g + 1, L) + g·d(B, L)) at index g.
    raise NotImplementedError("26-serving-crossover: serving_throughput is not written yet")


def best_gamma(target_cost, draft_cost, batch_sizes, alpha) -> np.ndarray:
    # TODO(26-serving-crossover): the first g whose throughput is within a relative 1e-9 of the largest.
    raise NotImplementedError("26-serving-crossover: best_gamma is not written yet")


def largest_winning_batch(target_cost, draft_cost, batch_sizes, alpha) -> np.ndarray:
    # TODO(26-serving-crossover): per context length, the largest batch size whose best gamma is >= 1 (0 if none).
    raise NotImplementedError("26-serving-crossover: largest_winning_batch is not written yet")
