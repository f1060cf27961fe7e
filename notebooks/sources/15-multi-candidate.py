# %% [markdown]
# # 15-multi-candidate, worked
#
# A draft proposes k candidates for one position and the target tries them in turn. This notebook
# runs your `verify_candidates`, `verify_candidates_without_replacement` and
# `acceptance_probability` (from `exercises/ex15_multi_candidate.py`) on the worked example, then
# thousands of times against the target, beside a tempting mix-up of the two rules, and finally
# measures how the chance of keeping the position grows with k. Theory:
# `theory/15-multi-candidate.md`.
#
# Notation: **p is the target**, **q is the draft**.

# %%
import matplotlib.pyplot as plt
import numpy as np

import learner
from speckata import ReplayRNG, sample

# Yours: "not written yet" (with the expected values) while it is the stub. Save your file, then
# run the cells again.
verify_candidates = learner.yours("ex15_multi_candidate", "verify_candidates")
verify_without = learner.yours("ex15_multi_candidate", "verify_candidates_without_replacement")
acceptance_probability = learner.yours("ex15_multi_candidate", "acceptance_probability")

# %% [markdown]
# ## The worked example
#
# p = [0.2, 0.5, 0.3], q = [0.5, 0.3, 0.2]. Candidate 0 has p/q = 0.4, so u = 0.6 rejects it, and
# the target becomes p_1 = [0, 2/3, 1/3]. With i.i.d. candidates q stays as it is, and candidate 2
# faces (1/3)/0.2 = 1.67: accepted. Drawn without replacement, candidate 2 came from q_1 =
# [0, 0.6, 0.4] and faces (1/3)/0.4 = 0.83: u = 0.9 rejects it, and the token comes from
# p_2 = [0, 1, 0]. A repeated i.i.d. candidate is always rejected the second time: p_1(0) = 0.

# %%
p, q = [0.2, 0.5, 0.3], [0.5, 0.3, 0.2]


def result_and_draws(verify, candidates, stream):
    rng = ReplayRNG(stream)
    return verify(p, q, candidates, rng), rng.draws


learner.compare(lambda: result_and_draws(verify_candidates, [0, 2], [0.6, 0.9]), ((2, 1), 2))
learner.compare(lambda: result_and_draws(verify_candidates, [0, 0], [0.6, 0.1, 0.5]), ((1, None), 3))
learner.compare(lambda: result_and_draws(verify_without, [0, 2], [0.6, 0.9, 0.5]), ((1, None), 3))

# %% [markdown]
# ## Many runs against p, and a mix-up of the two rules
#
# The suite's statistical case: four tokens, a draft that disagrees with the target, three
# candidates per run. Each rule is fed candidates drawn the way it assumes (numpy's `choice`, with
# or without replacement). The mix-up takes the without-replacement update (remove a rejected
# token from q) but is fed i.i.d. candidates: its q is no longer the distribution the next
# candidate came from, and the output drifts away from p.

# %%
p4 = np.array([0.06, 0.54, 0.32, 0.08])
q4 = np.array([0.72, 0.01, 0.08, 0.19])


def mixed_up(p, q, candidates, rng):  # biased: removes tokens from q although the draws were i.i.d.
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    for index, x in enumerate(candidates):
        u = rng.random()
        if q[x] > 0 and u < p[x] / q[x]:  # a repeat of a removed token (q[x] = 0) is rejected
            return int(x), index
        missing = np.maximum(p - q, 0)
        p = missing / missing.sum() if missing.sum() > 1e-12 else p
        q = q.copy()
        q[x] = 0.0
        q = q / q.sum() if q.sum() > 0 else q
    return sample(p, rng), None


def frequencies(verify, replace, runs=20_000, seed=0):
    gen = np.random.default_rng(seed)
    counts = np.zeros(len(p4))
    for _ in range(runs):
        candidates = gen.choice(len(p4), size=3, replace=replace, p=q4)
        counts[verify(p4, q4, candidates, gen)[0]] += 1
    return counts / runs


biased = frequencies(mixed_up, True)
iid = without = None
print(f"{'target p':<34}", p4.tolist())
with learner.until_written():
    iid = frequencies(verify_candidates, True)
    print(f"{learner.whose() + ', i.i.d. candidates':<34}", iid.round(3).tolist())
with learner.until_written():
    without = frequencies(verify_without, False)
    print(f"{learner.whose() + ', without replacement':<34}", without.round(3).tolist())
print(f"{'mix-up (biased), i.i.d. candidates':<34}", biased.round(3).tolist())

tokens = np.arange(len(p4))
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.bar(tokens - 0.3, p4, width=0.2, label="target p")
if iid is not None:
    ax.bar(tokens - 0.1, iid, width=0.2, label=f"{learner.whose()}, i.i.d., 20,000 runs")
if without is not None:
    ax.bar(tokens + 0.1, without, width=0.2, label=f"{learner.whose()}, without replacement")
ax.bar(tokens + 0.3, biased, width=0.2, label="mix-up, 20,000 runs")
ax.set_xticks(tokens)
ax.set_xlabel("emitted token")
ax.set_ylabel("frequency")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## How the chance of keeping the position grows with k
#
# Eight tokens; the target and the draft disagree on the order of the likely ones. For k = 1 to
# 5, the exact chance that some candidate is accepted (your `acceptance_probability`, by
# enumeration) beside the frequency measured with your verifiers over 4,000 runs, and the gain
# over one candidate. Drawing without replacement never wastes a candidate on a repeat (a
# rejected token has no mass left in the target), so its chance keeps climbing.

# %%
p8 = np.array([0.35, 0.25, 0.15, 0.10, 0.06, 0.04, 0.03, 0.02])
q8 = np.array([0.10, 0.30, 0.05, 0.25, 0.10, 0.10, 0.05, 0.05])


def measured(verify, k, replace, runs=4_000, seed=3):
    gen = np.random.default_rng(seed)
    hits = 0
    for _ in range(runs):
        candidates = gen.choice(len(p8), size=k, replace=replace, p=q8)
        hits += verify(p8, q8, candidates, gen)[1] is not None
    return hits / runs


table = {}
with learner.until_written():
    print(f"{'k':>2}  {'i.i.d. exact':>12}  {'measured':>8}  {'gain':>5}   {'without exact':>13}  {'measured':>8}  {'gain':>5}")
    for k in range(1, 6):
        exact_iid, exact_without = acceptance_probability(p8, q8, k), acceptance_probability(p8, q8, k, True)
        table[k] = (exact_iid, exact_without)
        print(f"{k:>2}  {exact_iid:>12.4f}  {measured(verify_candidates, k, True):>8.4f}  {exact_iid / table[1][0]:>5.2f}"
              f"   {exact_without:>13.4f}  {measured(verify_without, k, False):>8.4f}  {exact_without / table[1][1]:>5.2f}")

if table:
    ks = sorted(table)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(ks, [table[k][0] for k in ks], "o-", label="i.i.d. candidates")
    ax.plot(ks, [table[k][1] for k in ks], "s-", label="without replacement")
    ax.set_xlabel("candidates k")
    ax.set_ylabel("P(some candidate accepted)")
    ax.set_xticks(ks)
    ax.legend(fontsize=8)
    plt.show()
