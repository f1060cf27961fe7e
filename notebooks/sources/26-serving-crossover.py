# %% [markdown]
# # 26-serving-crossover, worked
#
# When does speculation stop paying in a server, and when does it pay again? The exercise's worked
# example, then the crossover read from two **measured** pass-cost tables (this repository's CPU
# bench, one thread: the shipped target and SmolLM2-135M) beside one from a **modelled** GPU
# (a roofline of an H100 SXM serving Llama-3-8B, `speckata/roofline.py`: not a measurement).
# Theory: `theory/26-serving-crossover.md`. Exercise: `exercises/ex26_serving_crossover.py`.
#
# The cells run **your** functions from `exercises/ex26_serving_crossover.py` (through
# `notebooks/learner.py`): while your file is the stub they say "not written yet" beside the
# expected values; save your file and run them again. Notation: **p is the target**, **q is the
# draft**, α the acceptance rate, g the drafts per row, B the batch size, L the context length.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner
from speckata.measured_costs import measured_cost_table
from speckata.roofline import H100_SXM, LLAMA3_8B, LLAMA32_1B, modelled_draft_cost, modelled_target_cost

serving_throughput = learner.yours("ex26_serving_crossover", "serving_throughput")
best_gamma = learner.yours("ex26_serving_crossover", "best_gamma")
largest_winning_batch = learner.yours("ex26_serving_crossover", "largest_winning_batch")

target_cost = np.zeros((2, 3, 2))
target_cost[:, :, 0] = [[10, 10, 10], [10, 20, 30]]      # short context: B = 1, B = 16
target_cost[:, :, 1] = [[20, 20, 20], [100, 110, 120]]   # long context
worked = (target_cost, np.ones((2, 2)), [1, 16], 0.5)
print("throughput at B = 16, short context, g = 0, 1, 2")
learner.compare(lambda: np.round(serving_throughput(*worked)[1, :, 0], 4).tolist(), [1.6, 1.1429, 0.875])
print("best g per (B, context)")
learner.compare(lambda: best_gamma(*worked).tolist(), [[2, 2], [0, 2]])
print("largest batch size at which speculation wins, per context")
learner.compare(lambda: largest_winning_batch(*worked).tolist(), [1, 16])

# %% [markdown]
# ## What a pass of n tokens costs, measured
#
# The premise is c(B, n, L) ≈ c(B, 1, L). Each panel is one committed bench table (**measured**
# on this machine's CPU, one torch thread, medians over interleaved repeats): the cost of a pass
# of n new tokens per row relative to one token, one line per batch size. On these CPUs the
# premise is weak even for one row: at B = 1 a pass of 9 tokens costs 1.4 to 2.7 times a pass of
# one (printed under the figure: a CPU thread does little arithmetic per byte it reads, unlike a
# GPU). Large batches climb further towards n (the premise is gone), less so with the long
# context.

# %%
tables = {name: measured_cost_table(name) for name in ("shipped", "smollm2")}
fig, axes = plt.subplots(2, 2, figsize=(6.8, 7), sharey=True)  # 2 x 2, under 690 px: shown at full size on the site
for ax_pair, (name, table) in zip(axes, tables.items()):
    c = table["target_cost"]
    n = np.arange(1, c.shape[1] + 1)
    for l, (ax, L) in enumerate(zip(ax_pair, table["context_lengths"])):
        for b, B in enumerate(table["batch_sizes"]):
            ax.plot(n, c[b, :, l] / c[b, 0, l], marker=".", label=f"B={B}", color=plt.cm.viridis(b / len(c)))
        ax.plot(n, n, "k:", linewidth=0.8)
        ax.set_title(f"{name}, L = {L} (measured, CPU)", fontsize=11)
        ax.set_xlabel("n new tokens per row")
        ax.legend(fontsize=7.5, ncol=2)
for ax in axes[:, 0]:
    ax.set_ylabel("c(B, n, L) / c(B, 1, L)")
axes[0, 0].set_ylim(0.8, 9.5)
plt.tight_layout()
plt.show()
for name, table in tables.items():
    c = table["target_cost"]
    print(f"{name}: c(1, 9) / c(1, 1) per context {table['context_lengths']}:",
          [round(float(x), 2) for x in c[0, 8, :] / c[0, 0, :]])
print("commands:", *(table["command"] for table in tables.values()), sep="\n  ")

# %% [markdown]
# ## Speedup of the best g over plain decoding, measured
#
# Your `serving_throughput` and `best_gamma` on the measured tables: the throughput of the best g
# divided by plain decoding's, by batch size, for two acceptance rates (an assumption: the
# i.i.d. model of exercise 03, not a measured α). On the dotted line at 1 the best g is 0: plain
# decoding wins there (the ratio cannot fall below 1, since g = 0 is among the choices).

# %%
with learner.until_written():
    fig, axes = plt.subplots(2, 1, figsize=(6.6, 7.5), sharey=True)  # stacked, under 690 px: full size on the site
    for ax, (name, table) in zip(axes, tables.items()):
        for alpha, style in ((0.5, "--"), (0.8, "-")):
            args = (table["target_cost"], table["draft_cost"], table["batch_sizes"], alpha)
            throughput, best = serving_throughput(*args), best_gamma(*args)
            for l, L in enumerate(table["context_lengths"]):
                gain = [throughput[b, best[b, l], l] / throughput[b, 0, l] for b in range(len(best))]
                ax.plot(table["batch_sizes"], gain, style, marker="o", label=f"L={L}, α={alpha}")
            print(f"{name}, α = {alpha}: largest winning batch per context {largest_winning_batch(*args).tolist()}, "
                  f"best g by batch size (rows: contexts) {best.T.tolist()}")
        ax.axhline(1, color="k", linestyle=":", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{name} (measured, CPU, one thread)", fontsize=11)
        ax.set_xlabel("batch size B")
        ax.set_ylabel("best g's throughput / plain's")
        ax.legend(fontsize=9)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## The crossover against context length, modelled
#
# **Modelled, not measured**: the roofline bound of `speckata/roofline.py`, pass time =
# max(bytes / bandwidth, FLOPs / peak), weights read once per pass, each row's KV cache read per
# pass. It is optimistic (theory page 26, section 2: timed per operation, as separate kernels,
# the crossovers at short contexts fall to smaller batches; the trend with context stays). The numbers and their sources are printed below. For each context length, the largest
# batch size (up to 4096) at which speculation still wins: it grows with the context, because each
# row's cache, not the weights, dominates the pass. (An H100 holds 80 GB: the largest batches at
# long contexts would not fit in one; the trend is the point.)

# %%
print("modelled GPU:", H100_SXM["name"])
print("modelled target:", LLAMA3_8B, "\nmodelled draft:", LLAMA32_1B)
sizes = [2**k for k in range(13)]
contexts = [32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
modelled = modelled_target_cost(sizes, 9, contexts)
with learner.until_written():
    fig, axes = plt.subplots(2, 1, figsize=(6.6, 9.5))  # stacked, under 690 px: full size on the site
    for alpha in (0.5, 0.6, 0.8, 0.9):
        for window, style in ((None, "-"), (512, "--")):
            draft = modelled_draft_cost(sizes, contexts, draft_window=window)
            crossover = largest_winning_batch(modelled, draft, sizes, alpha)
            label = f"α={alpha}" + ("" if window is None else ", draft cache capped at 512")
            axes[0].plot(contexts, np.maximum(crossover, 0.5), style, marker=".", label=label)
            if alpha == 0.8 and window is None:
                print("α = 0.8, modelled largest winning batch per context:", dict(zip(contexts, crossover.tolist())))
    axes[0].set_xscale("log", base=2)
    axes[0].set_yscale("log", base=2)
    axes[0].set_xlabel("context length L (tokens per row)")
    axes[0].set_ylabel("largest winning batch (4096: all)")
    axes[0].set_title("modelled: H100 SXM roofline, Llama-3-8B / Llama-3.2-1B", fontsize=11)
    axes[0].legend(fontsize=8, ncol=2)
    best = best_gamma(modelled, modelled_draft_cost(sizes, contexts), sizes, 0.8)
    image = axes[1].pcolormesh(np.arange(len(contexts)), np.arange(len(sizes)), best, shading="nearest", cmap="viridis")
    axes[1].set_xticks(range(len(contexts)), [str(L) for L in contexts], rotation=60, fontsize=9)
    axes[1].set_yticks(range(len(sizes)), [str(B) for B in sizes], fontsize=9)
    axes[1].set_xlabel("context length L")
    axes[1].set_ylabel("batch size B")
    axes[1].set_title("modelled best g at α = 0.8 (0: plain decoding)", fontsize=11)
    fig.colorbar(image, ax=axes[1])
    plt.tight_layout()
    plt.show()

# %% [markdown]
# The lesson, in both pictures: with short contexts the weights dominate a pass, a large batch makes
# it arithmetic-bound, and speculation loses past some batch size; with long contexts each row's
# KV cache dominates, a pass of n tokens still costs about one, and speculation pays again at
# large batches (MagicDec, Chen et al., 2024). The CPU tables show the same direction with
# different absolute numbers: on a CPU small passes are dominated by per-operation overhead, so
# read their ratios, never their times, as a GPU's.
