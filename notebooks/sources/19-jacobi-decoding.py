# %% [markdown]
# # 19-jacobi-decoding, worked
#
# Jacobi decoding on a toy chain, pass by pass, then on the kata's trained character model: how
# many tokens each pass yields for n = 1 .. 8 guesses, and where in the text the passes that
# yield more than one token fall. Theory: `theory/19-jacobi-decoding.md`. Exercise:
# `exercises/ex19_jacobi_decoding.py`.

# %%
import matplotlib.pyplot as plt
import torch

import learner
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import char_tokenizer, load_target
from speckata.models.recording import RecordingModel

torch.set_num_threads(1)

# Yours, from exercises/ex19_jacobi_decoding.py: "not written yet" (with the expected values) while
# it is the stub. Save your file, then run the cells again.
jacobi_generate = learner.yours("ex19_jacobi_decoding", "jacobi_generate")

# %% [markdown]
# ## Pass by pass on a chain
#
# The chain's greedy path from 0 is 1, 2, 3, 0, 1, ... A perfect first guess [1, 2] is kept whole
# and the prediction after it comes free: three tokens from pass 1. After that the guess is the
# last prediction repeated, which is wrong on a cycle, and each pass yields one token. The
# recorder shows every call: what was fed, with the cache length it met, and the crops that
# forget the wrong guesses.

# %%
cycle = MarkovModel([[.1, .7, .1, .1], [.1, .1, .7, .1], [.1, .1, .1, .7], [.7, .1, .1, .1]])
recorded = RecordingModel(cycle)
learner.compare(lambda: jacobi_generate(recorded, [0], 6, 2, initial_guess=[1, 2]).tokens, [1, 2, 3, 0, 1, 2])
learner.compare(lambda: recorded.calls,
                [("reset", 0), ("forward", (0, 1, 2), 0), ("forward", (3, 3, 3), 3), ("crop", 4, 6),
                 ("forward", (0, 0), 4), ("crop", 5, 6), ("forward", (1,), 5)])

# %% [markdown]
# ## Tokens per pass on the trained character model
#
# 64 new tokens after each prompt, for n = 1 .. 8. The output is the target's greedy decoding
# whatever n is; only the number of passes changes.

# %%
target, tokenizer = load_target(), char_tokenizer()
prompts = ["The quick brown fox ", "Once upon a time, ", "def speculative_step("]
sizes = range(1, 9)
with learner.until_written():
    for prompt in prompts:
        ids = tokenizer.encode(prompt)
        rates = [jacobi_generate(target, ids, 64, n).tokens_per_pass for n in sizes]
        print(f"{prompt!r:24}", [round(rate, 2) for rate in rates])
        plt.plot(list(sizes), rates, marker="o", label=repr(prompt))
    plt.xlabel("n (guessed tokens per pass)")
    plt.ylabel("tokens per target pass")
    plt.legend()
    plt.show()

# %% [markdown]
# ## Where the extra tokens come from
#
# Each pass's new tokens, bracketed, for the code prompt at n = 8: the long passes are the run of
# spaces after the newline, where "the last prediction repeated" is the right guess. On prose
# almost every pass is a single character.

# %%
with learner.until_written():
    for prompt in ("def speculative_step(", "The quick brown fox "):
        result = jacobi_generate(target, tokenizer.encode(prompt), 48, 8)
        pieces, at = [], 0
        for a in result.accepted_per_pass:
            pieces.append(tokenizer.decode(result.tokens[at : at + a + 1]))
            at += a + 1
        print(repr(prompt), "->", "".join(f"[{piece}]" for piece in pieces).replace("\n", "\\n"))
        print()
