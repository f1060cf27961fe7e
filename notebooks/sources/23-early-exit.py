# %% [markdown]
# # 23-early-exit, worked
#
# Self-speculation on the kata's trained character-level target: its own first k layers, read
# through its final norm and head, draft; the remaining layers verify, continuing from the states
# the draft already computed. Layer by layer: what one draft round and one verification feed each
# layer, the layer computations the model counts, a whole decode checked against the target's
# greedy decoding, and what each exit layer buys on a target that was never trained to exit early.
# Theory: `theory/23-early-exit.md`. Exercise: `exercises/ex23_early_exit.py`.
#
# The cells run **your** functions from `exercises/ex23_early_exit.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again.

# %%
import matplotlib.pyplot as plt
import torch

import learner
from speckata.decoding.baseline import autoregressive_generate
from speckata.models.early_exit import RecordingLayerModel
from speckata.models.pretrained import char_tokenizer, load_target, text_windows

torch.set_num_threads(1)
early_exit_draft = learner.yours("ex23_early_exit", "early_exit_draft")
early_exit_verify = learner.yours("ex23_early_exit", "early_exit_verify")
early_exit_generate = learner.yours("ex23_early_exit", "early_exit_generate")
target, tokenizer = load_target(), char_tokenizer()
prompt = tokenizer.encode("The class definition ")

# %% [markdown]
# ## Task 1: drafting with the first 3 of 6 layers
#
# Two drafts, greedy. The first pass runs the whole prompt through layers 0..2; the second only
# the first draft. Layers 3..5 have read nothing yet. `states` keeps every row the first layers
# produced: verification continues from them.

# %%
target.reset()
learner.compare(lambda: early_exit_draft(target, prompt, 3, 2, torch.Generator().manual_seed(0), 0)[0], [1, 1])
target.reset()
recorder = RecordingLayerModel(target)
with learner.until_written():
    drafts, q, states = early_exit_draft(recorder, prompt, 3, 2, torch.Generator().manual_seed(0), 0)
    for call in recorder.calls:
        print(call)
    print("drafts", repr(tokenizer.decode(drafts)), "states", tuple(states.shape), "layer caches", target.layer_cache_lengths)

# %% [markdown]
# ## Task 2: verification finishes the climb
#
# The same two drafts again, then verification. The last draft goes through layers 0..2 (the
# draft never fed it), then the 22 + 1 rows through
# layers 3..5 in one call. The full model's greedy choices after the prompt, the first draft and
# the second: a draft is kept when it equals the choice before it.

# %%
with learner.until_written():
    target.reset()
    recorder = RecordingLayerModel(target)
    drafts, q, states = early_exit_draft(recorder, prompt, 3, 2, torch.Generator().manual_seed(0), 0)
    before = target.layer_computations
    p = early_exit_verify(recorder, prompt, drafts, states, 3, 0)
    for call in recorder.calls[-3:]:
        print(call)
    print("the target's choices", repr(tokenizer.decode(p.argmax(dim=-1).tolist())),
          "layer computations", target.layer_computations - before, "(recomputing would be", 23 * 6, ")")

# %% [markdown]
# ## Task 3 and 4: a whole decode is the target's greedy decoding

# %%
greedy = autoregressive_generate(target, prompt, 16, torch.Generator(), temperature=0)
learner.compare(lambda: early_exit_generate(target, prompt, 16, 3, 4, torch.Generator().manual_seed(0), 0).tokens, greedy)
learner.compare(lambda: early_exit_generate(target, prompt, 16, 3, 4, torch.Generator().manual_seed(0), 0).accepted_per_pass,
                [0, 1, 1, 2, 3, 3])

# %% [markdown]
# ## What each exit layer buys on an untrained target
#
# Four held-out windows of 24 characters, 48 new tokens each, gamma = 4, sampled at T = 1. Plain
# decoding costs 6 layer computations per token, and 6 layers climbed one after the other.
#
# Layer computations per token cannot fall below 6 for any speculative decoder: a round of gamma
# drafts costs (gamma + 1) * 6 with the reuse (every position climbs every layer once) and yields
# at most gamma + 1 tokens. That column measures waste. What self-speculation can save is
# latency, the layers climbed one after the other (gamma shallow draft steps of k layers, then one
# verification of 6). The committed target was never trained to exit early (LayerSkip trains for
# it), and the figures show it: the output stays exact, and the latency proxy does not fall below
# plain decoding's either.

# %%
prompts = text_windows("held_out", 24, limit=4).tolist()


def measure(k, model=target):
    tokens = passes = work = depth = 0
    for index, start in enumerate(prompts):
        before = model.layer_computations
        result = early_exit_generate(model, start, 48, k, 4, torch.Generator().manual_seed(index), 1.0)
        work += model.layer_computations - before - len(start) * model.num_layers
        depth += result.draft_passes * k + result.target_passes * model.num_layers  # layers in sequence
        tokens, passes = tokens + len(result.tokens), passes + result.target_passes
    return tokens / passes, work / tokens, depth / tokens


with learner.until_written():
    figures = [measure(k) for k in range(1, 6)]
    for k, (rate, work, depth) in enumerate(figures, start=1):
        print(f"exit after {k} layers: {rate:.2f} tokens per pass, {work:.1f} layer computations per token, "
              f"{depth:.1f} layers climbed in sequence per token")
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3))
    left.plot(range(1, 6), [rate for rate, _, _ in figures], marker="o")
    left.set_xlabel("exit layer k")
    left.set_ylabel("tokens per verification pass")
    right.plot(range(1, 6), [work for _, work, _ in figures], marker="o", label="layer computations (work)")
    right.plot(range(1, 6), [depth for _, _, depth in figures], marker="s", label="layers in sequence (latency)")
    right.axhline(6, color="gray", linestyle="--", label="plain decoding (both)")
    right.set_xlabel("exit layer k")
    right.set_ylabel("per token")
    right.legend()
    plt.show()

# %% [markdown]
# ## The same decoder on a target trained to exit early
#
# `load_layerskip_target()` is the shipped target's twin (same shape, same text, same 600 steps)
# trained with LayerSkip's recipe by `python -m trainers.train_layerskip`: layer dropout that
# grows with depth and an early-exit loss through the shared final norm and head at every layer.
# Your `early_exit_generate` runs on it unchanged. First, exactness: at temperature 0 its output
# is still the trained target's own greedy decoding. Then the exits' agreement with the full
# model on held-out text, both targets side by side (`speckata.models.exit_agreement`), and the
# same measurement as above on the trained target.

# %%
from speckata.models.exit_agreement import exit_agreement
from speckata.models.pretrained import load_layerskip_target

trained = load_layerskip_target()
trained_greedy = autoregressive_generate(trained, prompt, 32, torch.Generator(), temperature=0)
learner.compare(lambda: early_exit_generate(trained, prompt, 32, 2, 4, torch.Generator(), 0).tokens, trained_greedy)
windows = text_windows("held_out", 256)
for name, model in (("shipped", target), ("layerskip", trained)):
    print(f"{name:10} exit agreement with the full model, k = 1..5:", exit_agreement(model, windows))

# %%
with learner.until_written():
    trained_figures = [measure(k, trained) for k in range(1, 6)]
    for k, ((rate, work, depth), (rate_t, work_t, depth_t)) in enumerate(zip(figures, trained_figures), start=1):
        print(f"exit after {k} layers: tokens per pass {rate:.2f} shipped, {rate_t:.2f} trained; layers climbed in "
              f"sequence per token {depth:.1f} shipped, {depth_t:.1f} trained")
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3))
    for label, rows in (("shipped", figures), ("LayerSkip", trained_figures)):
        left.plot(range(1, 6), [rate for rate, _, _ in rows], marker="o", label=label)
        right.plot(range(1, 6), [depth for _, _, depth in rows], marker="s", label=label)
    right.axhline(6, color="gray", linestyle="--", label="plain decoding")
    left.set_xlabel("exit layer k")
    left.set_ylabel("tokens per verification pass")
    right.set_xlabel("exit layer k")
    right.set_ylabel("layers in sequence per token")
    left.legend()
    right.legend()
    plt.show()

# %% [markdown]
# The trained exits keep more drafts per pass at every k and climb fewer layers one after the
# other per token than the shipped target's, though only the shallowest exit climbs fewer than
# plain decoding's 6 (the figures above). Whether any of it is faster on a clock depends on
# what a shallow step and a verification pass cost on your machine:
# `python -m speckata.bench early_exit` times both targets at every exit layer and prints the
# cost model beside the measured speedup (theory/23-early-exit.md, section 6).
