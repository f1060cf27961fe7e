# %% [markdown]
# # 24-tree-shapes, worked
#
# What a tree shape is worth under an acceptance vector, the best shape for a node budget
# (Sequoia's dynamic programme) against a chain, and EAGLE-2's dynamic tree on the worked example.
# Theory: `theory/24-tree-shapes.md`. Exercise: `exercises/ex24_tree_shapes.py`.
#
# The cells run **your** functions from `exercises/ex24_tree_shapes.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again.

# %%
import learner
import matplotlib.pyplot as plt

from speckata.decoding.tree_shapes import chain

expected_tokens = learner.yours("ex24_tree_shapes", "expected_tokens")
optimal_tree = learner.yours("ex24_tree_shapes", "optimal_tree")
dynamic_tree = learner.yours("ex24_tree_shapes", "dynamic_tree")

# %% [markdown]
# ## Task 1: what a shape is worth
#
# Acceptance (0.5, 0.5): the first child is accepted half the time; after it is rejected, the
# second child half the time. So the second child is THE accepted one with chance 0.5 x 0.5 = 0.25.
# A chain of three nodes earns 1 + 0.5 + 0.25 + 0.125; a tree with two children at the top and one
# grandchild earns 1 + 0.5 + 0.25 + 0.25.

# %%
learner.compare(lambda: expected_tokens([(0,), (0, 0), (0, 0, 0)], [0.5, 0.5]), 1.875)
learner.compare(lambda: expected_tokens([(0,), (1,), (0, 0)], [0.5, 0.5]), 2.0)

# %% [markdown]
# ## Task 2: the best shape for a budget
#
# A vector like the one `python -m speckata.bench tree` measures for sampled children: the chain's
# value stops growing after a few nodes, the best tree's keeps growing, by putting more children
# at the top and deepening only its likeliest branches.

# %%
vector = [0.55, 0.27, 0.2, 0.16]
learner.compare(lambda: optimal_tree([0.5, 0.5], 3).paths, [(0,), (1,), (0, 0)])
budgets = [1, 2, 4, 8, 16, 32]
with learner.until_written():
    chains = [expected_tokens(chain(n), vector) for n in budgets]
    best = [expected_tokens(optimal_tree(vector, n), vector) for n in budgets]
    for n, a, b in zip(budgets, chains, best):
        print(f"n = {n:2}: chain {a:.3f}   best tree {b:.3f} expected tokens per pass")
    plt.plot(budgets, chains, marker="o", label="chain of n nodes")
    plt.plot(budgets, best, marker="o", label="best tree of n nodes (DP)")
    plt.xscale("log", base=2)
    plt.xlabel("drafted nodes per round")
    plt.ylabel("expected tokens per target pass")
    plt.ylim(bottom=0)
    plt.legend()
    plt.show()

# %% [markdown]
# ## Task 3: EAGLE-2's dynamic tree on the worked example
#
# The draft's rows after the newest token and after each of its top two tokens. Level 1: tokens 0
# (confidence 0.6) and 1 (0.3). Level 2: both are expanded; their children are (0, 0) 0.3,
# (0, 1) 0.24, (1, 0) 0.27, (1, 1) 0.015. The four most confident nodes are kept; (1, 0) beats
# (0, 1) because the draft is sure what follows token 1.

# %%
rows = {(): [0.6, 0.3, 0.1], (0,): [0.5, 0.1, 0.4], (1,): [0.9, 0.05, 0.05]}
asked = []


def draft_probs(path):
    asked.append(path)
    return rows[path]


learner.compare(lambda: (dynamic_tree(draft_probs, 4, 2, 2).paths, asked),
                ([(0,), (1,), (0, 0), (1, 0)], [(), (0,), (1,)]))
