# %% [markdown]
# # 05-sampling-settings, worked
#
# What temperature, top-k and top-p do to a distribution, how they move the acceptance rate, and
# an experiment: the verify step with both sides warped lands on the warped target, while
# warping only one side does not. Theory: `theory/05-sampling-settings.md`. Exercise:
# `exercises/ex05_sampling_settings.py`.
#
# Notation: **p is the target**, **q is the draft**. The cells run **your** `warp` and
# `speculative_step_from_logits` from `exercises/ex05_sampling_settings.py` (through
# `notebooks/learner.py`): while your file is the stub they say "not written yet" beside the
# expected values; save your file and run them again. Exercises 01 and 02 come from their
# reference solutions.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner

# Yours, from exercises/ex05_sampling_settings.py ...
warp = learner.yours("ex05_sampling_settings", "warp")
speculative_step_from_logits = learner.yours("ex05_sampling_settings", "speculative_step_from_logits")
# ... and the earlier exercises this notebook builds on.
speculative_step = learner.reference("ex01_speculative_step", "speculative_step")
acceptance_rate = learner.reference("ex02_acceptance_rate", "acceptance_rate")

logits = np.array([2.0, 1.6, 1.0, 0.3, -0.2, -1.5])
settings = {
    "raw softmax": {},
    "temperature 0.5": {"temperature": 0.5},
    "temperature 2": {"temperature": 2.0},
    "top_k = 3": {"top_k": 3},
    "top_p = 0.8": {"top_p": 0.8},
    "T 0.7, top_k 4, top_p 0.9": {"temperature": 0.7, "top_k": 4, "top_p": 0.9},
}
expected_warps = {  # the reference's, rounded to 4 places
    "temperature 0.5": [0.613, 0.2755, 0.083, 0.0205, 0.0075, 0.0006],
    "top_k = 3": [0.4906, 0.3289, 0.1805, 0.0, 0.0, 0.0],
    "top_p = 0.8": [0.4906, 0.3289, 0.1805, 0.0, 0.0, 0.0],
}
for name, expected in expected_warps.items():
    print(f"warp(logits, {', '.join(f'{k}={v}' for k, v in settings[name].items())}), rounded")
    learner.compare(lambda: warp(logits, **settings[name]).round(4).tolist(), expected)

tokens = np.arange(len(logits))
with learner.until_written():
    warped = {name: warp(logits, **kwargs) for name, kwargs in settings.items()}
    fig, ax = plt.subplots(figsize=(8, 3.4))
    width = 0.8 / len(settings)
    for index, (name, probabilities) in enumerate(warped.items()):
        ax.bar(tokens + (index - len(settings) / 2 + 0.5) * width, probabilities, width=width, label=name)
    ax.set_xticks(tokens)
    ax.set_xlabel("token")
    ax.set_ylabel("probability")
    ax.legend(fontsize=7)
    plt.show()

# %% [markdown]
# ## The acceptance rate under each setting
#
# The same two models (target and draft logits below), warped identically. Settings change their
# overlap, so the speed of speculative decoding depends on the sampling settings too.

# %%
target_logits = np.array([[2.0, 1.6, 1.0, 0.3, -0.2, -1.5], [0.0, 0.5, 1.0, 0.0, -1.0, 0.2]])
draft_logits = np.array([[1.0, 2.1, 0.4, 0.9, -0.5, 0.2]])
with learner.until_written():
    for name, kwargs in settings.items():
        alpha = acceptance_rate(warp(target_logits[0], **kwargs), warp(draft_logits[0], **kwargs))
        print(f"{name:<28} α = {alpha:.3f}")

# %% [markdown]
# ## Both sides, or a biased output
#
# Temperature 1.5 and top_k = 4. Drafts are sampled from the warped draft, as a draft model
# sampling with these settings would. The correct step warps both sides; the buggy ones warp
# only the target or only the draft. 20,000 steps each; we count the first emitted token.

# %%
kwargs = {"temperature": 1.5, "top_k": 4}

def only_target_warped(target_logits, draft_logits, draft, rng, **kwargs):  # a bug: never do this
    return speculative_step(warp(target_logits, **kwargs), warp(draft_logits), draft, rng)

def only_draft_warped(target_logits, draft_logits, draft, rng, **kwargs):  # a bug: never do this
    return speculative_step(warp(target_logits), warp(draft_logits, **kwargs), draft, rng)

def first_tokens(step, runs=20_000, seed=5):
    gen = np.random.default_rng(seed)
    counts = np.zeros(len(p[0]))
    for draft in gen.choice(len(q[0]), size=runs, p=q[0]):
        counts[step(target_logits, draft_logits, [int(draft)], gen, **kwargs)[0]] += 1
    return counts / runs

with learner.until_written():
    p = warp(target_logits, **kwargs)
    q = warp(draft_logits, **kwargs)
    results = {
        f"both sides warped ({learner.whose()})": first_tokens(speculative_step_from_logits),
        "only the target warped": first_tokens(only_target_warped),
        "only the draft warped": first_tokens(only_draft_warped),
    }
    print("warped target p[0]            ", p[0].round(3).tolist())
    for name, frequencies in results.items():
        print(f"{name:<30}", frequencies.round(3).tolist(), " TV from p[0]:",
              round(0.5 * float(np.abs(frequencies - p[0]).sum()), 3))

    fig, ax = plt.subplots(figsize=(8, 3.4))
    ax.bar(tokens - 0.3, p[0], width=0.2, color="k", label="warped target p[0]")
    for index, (name, frequencies) in enumerate(results.items()):
        ax.bar(tokens - 0.1 + 0.2 * index, frequencies, width=0.2, label=name)
    ax.set_xticks(tokens)
    ax.set_xlabel("first emitted token")
    ax.set_ylabel("frequency")
    ax.legend(fontsize=8)
    plt.show()
