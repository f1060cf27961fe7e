# %% [markdown]
# # 28-eagle-head-cache, worked
#
# EAGLE's head with its own cache, on the kata's trained character-level target: one step against
# the cache gives the rows the whole sequence gives, a round of drafting computes one row per draft,
# and the decoder keeps only rows of the target's true features between rounds. Every call on the
# head is recorded (`RecordingEagleHead`), so we can watch the cache grow and be cropped, and count
# the rows exercise 22's head recomputes. Theory: `theory/28-eagle-head-cache.md`.
#
# The cells run **your** functions from `exercises/ex28_eagle_head_cache.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again. Exercise 22 comes from the reference.

# %%
import learner
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.heads.eagle import RecordingEagleHead, load_eagle_head
from speckata.models.pretrained import char_tokenizer, load_target

torch.set_num_threads(1)
eagle_head_step = learner.yours("ex28_eagle_head_cache", "eagle_head_step")
eagle_cached_draft = learner.yours("ex28_eagle_head_cache", "eagle_cached_draft")
eagle_cached_generate = learner.yours("ex28_eagle_head_cache", "eagle_cached_generate")
eagle_features = learner.reference("ex22_eagle_head", "eagle_features")
eagle_draft = learner.reference("ex22_eagle_head", "eagle_draft")
eagle_generate = learner.reference("ex22_eagle_head", "eagle_generate")
target, head = load_target(), load_eagle_head()
prompt = char_tokenizer().encode("The class definition ")
ids = torch.tensor(prompt)
with torch.no_grad():
    features, tokens = target.hidden_states(ids[None, :-1])[0], ids[1:]  # f_0 .. f_19 and x_1 .. x_20

# %% [markdown]
# ## Task 1: steps against the cache give the whole sequence's rows
#
# Feed the 20 rows in three steps (12, 1, then 7 rows) and compare with exercise 22's features of
# all 20 at once.

# %%
def in_steps():
    head.reset()
    rows = [eagle_head_step(head, target, features[a:b], tokens[a:b]) for a, b in ((0, 12), (12, 13), (13, 20))]
    return torch.cat(rows)


with torch.no_grad():
    whole = eagle_features(head, target, features, tokens)
learner.compare(lambda: bool(torch.allclose(in_steps(), whole, atol=1e-5)), True)
learner.compare(lambda: head.cache_length, 20)

# %% [markdown]
# ## Task 2: a round of drafting, one row per draft
#
# From a cold cache: the 20 rows of the target's features in one call, then one row of the head's
# own per draft but the last. The drafts and q are exercise 22's.

# %%
recorder = RecordingEagleHead(head)
with learner.until_written():
    recorder.reset()
    recorder.calls.clear()
    mine = eagle_cached_draft(target, recorder, features, tokens, 4, torch.Generator().manual_seed(7))
    theirs = eagle_draft(target, head, features, tokens, 4, torch.Generator().manual_seed(7))
    print("drafts:", mine[0], "exercise 22's:", theirs[0])
    print("largest difference in q:", float((mine[1] - theirs[1]).abs().max()))
    print("the head's calls:", recorder.calls)
learner.compare(lambda: recorder.calls, [("new", 20, 0), ("new", 1, 20), ("new", 1, 21), ("new", 1, 22)])

# %% [markdown]
# ## Task 3: the decoder, round by round
#
# Greedy, 24 new tokens, three drafts per round: the target's greedy text, and the head's calls.
# Each round starts by computing the rows the cache lacks (the newest token's and the kept drafts'),
# and ends with a crop back to the rows of the target's true features.

# %%
greedy = autoregressive_generate(target, prompt, 24, torch.Generator(), temperature=0)
recorder = RecordingEagleHead(head)
learner.compare(lambda: eagle_cached_generate(target, recorder, prompt, 24, 3, torch.Generator(),
                                              temperature=0).tokens == greedy, True)
with learner.until_written():
    for call in recorder.calls[:9]:
        print(call)

# %% [markdown]
# ## The rows saved
#
# The same run with exercise 22's head (no cache) recomputes the whole sequence at every step.

# %%
rows = {}
for name, generate in (("exercise 22, no cache", eagle_generate), ("yours, cached", eagle_cached_generate)):
    recorder = RecordingEagleHead(head)
    with learner.until_written():
        generate(target, recorder, prompt, 24, 3, torch.Generator(), temperature=0)
        rows[name] = recorder.rows_computed
learner.compare(lambda: rows, {"exercise 22, no cache": 567, "yours, cached": 52})

# %% [markdown]
# ## What a step costs: the shipped target and its 24-layer twin
#
# Rows are not seconds (page 28, section 4): on the shipped target a layer's cost is mostly the
# fixed cost of its operations, and your cached step, one layer of the head and its fusion, costs
# about a quarter of a target pass. The target's 24-layer twin (page 28, section 5) has its own
# head, of the same shape, trained on it; there the same kind of step is a small share of a pass,
# as in EAGLE's setting. Timed on this machine (one thread, each figure the median of 5 interleaved
# blocks of 40 calls, at a context of 88 characters): your `eagle_head_step` on the newest row,
# against the target's pass over one new token.

# %%
import statistics
import time

from speckata.models.pretrained import load_deep_target, text_windows


def step_share(model, eagle, context=88, calls=40, blocks=5):
    """Your cached step's time over one target pass's, on ``model`` with its head ``eagle``."""
    window = text_windows("held_out", context + 1, limit=1)[0]
    with torch.no_grad():
        model.reset()
        true, _ = model.forward_new_hidden(window[:context].tolist())
        ahead = window[1: context + 1]
        eagle.reset()
        eagle_head_step(eagle, model, true[:-1], ahead[:-1])  # the cache holds every row but the newest

        def one_step():
            eagle.crop(context - 1)
            eagle_head_step(eagle, model, true[-1:], ahead[-1:])

        def one_pass():
            model.crop(context - 1)
            model.forward_new_hidden(window[context - 1: context].tolist())

        times = {one_step: [], one_pass: []}
        for _ in range(blocks):
            for run in times:  # interleaved: a slow stretch of the machine touches both
                started = time.perf_counter()
                for _ in range(calls):
                    run()
                times[run].append(time.perf_counter() - started)
    return statistics.median(times[one_step]) / statistics.median(times[one_pass])


with learner.until_written():
    for name, model, eagle in (("shipped target, 6 layers", target, head),
                               ("deep twin, 24 layers", load_deep_target(), load_eagle_head(on="deep"))):
        print(f"{name:26} a cached step costs {step_share(model, eagle):.2f} of a target pass")
