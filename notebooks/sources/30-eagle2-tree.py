# %% [markdown]
# # 30-eagle2-tree, worked
#
# EAGLE-2's dynamic tree on the cached EAGLE head, on the kata's trained character-level target:
# one round's tree (expanded level by level on the head's confidences, one head call per level,
# reranked to the budget), the decoder that verifies it in one target pass, and the tokens per
# pass it keeps beside exercise 28's chain. Every call on the head is recorded
# (`RecordingEagleHead`). Theory: `theory/30-eagle2-tree.md`.
#
# The cells run **your** functions from `exercises/ex30_eagle2_tree.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again. Exercises 24 and 28 come from the reference.

# %%
import learner
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.heads.eagle import RecordingEagleHead, load_eagle_head
from speckata.models.pretrained import char_tokenizer, load_target, text_windows

torch.set_num_threads(1)
eagle2_tree = learner.yours("ex30_eagle2_tree", "eagle2_tree")
eagle2_generate = learner.yours("ex30_eagle2_tree", "eagle2_generate")
eagle_cached_generate = learner.reference("ex28_eagle_head_cache", "eagle_cached_generate")
dynamic_tree = learner.reference("ex24_tree_shapes", "dynamic_tree")
target, head, text = load_target(), load_eagle_head(), char_tokenizer()
prompt = text.encode("The class definition ")
ids = torch.tensor(prompt)
with torch.no_grad():
    features, tokens = target.hidden_states(ids[None, :-1])[0], ids[1:]  # f_0 .. f_19 and x_1 .. x_20

# %% [markdown]
# ## Task 1: one round's tree
#
# Budget 8, top_k 3, depth 4, from a cold head cache: the 20 true rows in one call, then one
# `forward_tree` of 3 rows for each level after the first, then the crop back to the true rows.

# %%
recorder = RecordingEagleHead(head)
with learner.until_written():
    recorder.reset()
    recorder.calls.clear()
    shape, nodes = eagle2_tree(target, recorder, features, tokens, 8, 3, 4)

    def branch(node):
        return "" if node == -1 else branch(shape.parents[node]) + text.decode([nodes[node]])
    print("the tree's branches:", [branch(node) for node in range(len(shape))])
    print("the head's calls:", recorder.calls)
learner.compare(lambda: recorder.calls, [("new", 20, 0), ("tree", 3, 20), ("tree", 3, 23), ("tree", 3, 26),
                                         ("crop", 20, 29)])

# %% [markdown]
# The same shape is exercise 24's `dynamic_tree` fed the head's probabilities after each token path
# (here recomputed without a cache, path by path):

# %%
def draft_probs(path):
    with torch.no_grad():
        feats, toks = features, tokens.tolist()
        row = head.layer(head.fc(torch.cat([target.token_embedding(torch.tensor(toks)), feats], -1)))[-1]
        for token in path:
            feats, toks = torch.cat([feats, row[None]]), toks + [token]
            row = head.layer(head.fc(torch.cat([target.token_embedding(torch.tensor(toks)), feats], -1)))[-1]
        return torch.softmax(target.head(row).double(), -1).numpy()


def fresh_tree():
    head.reset()  # the cell above left the head holding the 20 true rows
    return eagle2_tree(target, head, features, tokens, 8, 3, 4)[0].paths


learner.compare(fresh_tree, dynamic_tree(draft_probs, 8, 3, 4).paths)

# %% [markdown]
# ## Task 2: the decoder
#
# Greedy, 24 new tokens: the target's greedy text, in fewer target passes than the chain.

# %%
greedy = autoregressive_generate(target, prompt, 24, torch.Generator(), temperature=0)
learner.compare(lambda: eagle2_generate(target, head, prompt, 24, 8, 3, 4, torch.Generator(),
                                        temperature=0).tokens == greedy, True)
learner.compare(lambda: eagle2_generate(target, head, prompt, 24, 8, 3, 4, torch.Generator(),
                                        temperature=0).accepted_per_pass, [4, 4, 4, 4, 2])

# %% [markdown]
# ## Tokens per pass: the chain against trees
#
# Four held-out prompts, 48 new tokens each, greedy. The tree with top_k 1 and depth 4 is the
# chain of 4.

# %%
prompts = [w[:24].tolist() for w in text_windows("held_out", 128, 4)]


def per_pass(run):
    results = [run(p, torch.Generator().manual_seed(i)) for i, p in enumerate(prompts)]
    return round(sum(len(r.tokens) for r in results) / sum(r.target_passes for r in results), 2)


print("exercise 28's chain of 4:", per_pass(lambda p, g: eagle_cached_generate(target, head, p, 48, 4, g, 0.0)))
learner.compare(lambda: [per_pass(lambda p, g: eagle2_generate(target, head, p, 48, *s, g, 0.0))
                         for s in [(4, 1, 4), (10, 2, 5), (16, 4, 5)]], [3.2, 3.92, 4.27])
