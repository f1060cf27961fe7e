# %% [markdown]
# # 13-ngram-draft, worked
#
# Prompt lookup step by step on words, then a simulation of how many tokens a target pass yields
# when the output copies its input and when it does not, and finally what it measured on a real
# model: SmolLM2-135M-Instruct on this kata's CPU machines, against transformers' own plain
# decoding, prompt lookup and assisted generation. Theory: `theory/13-ngram-draft.md`. Exercise:
# `exercises/ex13_ngram_draft.py`.
#
# This notebook needs no model: the SmolLM2 figures are read from
# `speckata/real/results/bench.json`, written by `python -m speckata.bench real --json ...` (which
# needs the optional extra, `bash scripts/setup-real.sh`).

# %%
import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import learner
from speckata.manifest import repo_root

# Yours, from exercises/ex13_ngram_draft.py: "not written yet" (with the expected values) while it
# is the stub. Save your file, then run the cells again.
ngram_draft = learner.yours("ex13_ngram_draft", "ngram_draft")


def words_to_ids(text):
    words = text.split()
    vocab = sorted(set(words))
    return [vocab.index(w) for w in words], vocab

# %% [markdown]
# ## The lookup, one size at a time
#
# Longest n-gram first; for each size, the most recent earlier occurrence of the context's last
# m tokens; copy what followed it. On the words below (numbered from 0), the context ends with
# "sat on the":
#
# | m | suffix | earlier occurrences start at | proposal |
# |---|---|---|---|
# | 3 | sat on the | 2 | copy from 5: mat . later the |
# | 2 | on the | 3 | (not needed when n = 3: m = 3 already matched) |
# | 1 | the | 0, 4, 8 | most recent 8, copy from 9: cat sat on the (the answer when n = 1) |
#
# In `[1, 2, 3, 1, 2, 3, 1]` with n = 2 the suffix [3, 1] last occurred at 2, so the copy starts
# at 4 and, once it reaches the context's end, goes on copying the tokens it has just proposed.

# %%
text = "the cat sat on the mat . later the cat sat on the"
ids, vocab = words_to_ids(text)
print(" ".join(f"{i}:{word}" for i, word in enumerate(text.split())))
print()
learner.compare(lambda: [vocab[t] for t in ngram_draft(ids, 3, 4)], ["mat", ".", "later", "the"])
learner.compare(lambda: [vocab[t] for t in ngram_draft(ids, 1, 4)], ["cat", "sat", "on", "the"])
learner.compare(lambda: ngram_draft([1, 2, 3, 1, 2, 3, 1], 2, 6), [2, 3, 1, 2, 3, 1])

# %% [markdown]
# ## Tokens per pass, simulated
#
# A stand-in for greedy decoding with no model: the "target" writes a fixed text, so a proposal
# is accepted exactly while it agrees with the text (temperature 0). The first text copies a
# paragraph from its prompt; the second writes new sentences with a few repeated words. Each
# round costs one target pass and emits the accepted prefix plus one token.

# %%
paragraph = ("the old mill by the river ground flour for the village for two hundred years until "
             "the great flood of the spring carried away its wheel and the miller moved to the town")
free = ("on sunday the market opened early and people came from the hills with cheese honey and wool "
        "while children ran between the stalls and a fiddler played by the well until the bells rang")
copy_prompt, _ = words_to_ids("please copy : " + paragraph + " . copy : " + paragraph)
free_prompt, _ = words_to_ids("please write : " + free)


def passes_for(sequence, start, gamma, n=3):
    """Target passes to produce sequence[start:] with lookup proposals, greedy."""
    position, passes = start, 0
    while position < len(sequence):
        proposal = ngram_draft(sequence[:position], n, min(gamma, len(sequence) - position - 1))
        accepted = 0
        while accepted < len(proposal) and proposal[accepted] == sequence[position + accepted]:
            accepted += 1
        position += accepted + 1
        passes += 1
    return passes


copy_start = len(words_to_ids("please copy : " + paragraph + " . copy :")[0])
free_start = 3
gammas = range(1, 11)
with learner.until_written():
    for name, seq, start in (("copying", copy_prompt, copy_start), ("free text", free_prompt, free_start)):
        per_pass = [(len(seq) - start) / passes_for(seq, start, g) for g in gammas]
        print(f"{name:>9}: tokens per pass for γ = 1..10:", [round(x, 2) for x in per_pass])
        plt.plot(list(gammas), per_pass, marker="o", label=name)
plt.xlabel("γ (most tokens proposed)")
plt.ylabel("tokens per target pass")
plt.legend()
plt.show()

# %% [markdown]
# ## Measured on SmolLM2-135M
#
# Each decoder made the same number of new tokens from the same chat prompt, greedy (T = 0) and
# sampled (T = 1), on the same float32 model, several times, the decoders taking turns; a sampled
# case uses one seed in every round, so each round repeats the same work (a decoder samples the
# same text every time) and the spread is the machine's. Each cell below is the **median** time
# with the **span** from the fastest to the slowest run; the speedup is over transformers' plain
# `generate()` at the medians, with its worst and best case across the spans. The verdict compares each of ours with its transformers counterpart and says
# "ahead" only where the spans do not overlap (theory page, section 5). Beside it, "per round":
# the decoders of one round ran back to back, so theirs / ours within each round is a paired
# speedup that a slow stretch of the machine touches on both sides; its span, and whether ours
# was faster in every round, are shown too (never instead of the verdict). The cost model (ms per
# cached target pass over j new tokens) was measured in the same run; our lookup decoder chose
# its proposal lengths with it. The run is committed with the repository (its settings are
# printed first); the machine may have been shared with other work, which is what the spans show.

# %%
results_path = repo_root() / "speckata" / "real" / "results" / "bench.json"
results = json.loads(results_path.read_text()) if results_path.is_file() else None
if results is None or "median" not in results["rows"][0]:
    print(f"{results_path} is missing or from an older bench: run python -m speckata.bench real --json {results_path}")
    results = None
else:
    settings = results["settings"]
    print(f"settings: tokens {settings['tokens']}, threads {settings['threads']}, {settings['repeats']} rounds, "
          f"γ ≤ {settings['gamma']} (ours), {settings['hf_gamma']} (transformers), n ≤ {settings['n']}; "
          f"torch {settings['torch']}; {settings['seconds']:.0f} s in all")
    for threads, forward in results["forward_ms"].items():
        costs = ", ".join(f"{j}: {ms:.1f}" for j, ms in forward.items())
        print(f"{threads} thread(s), ms per pass over j new tokens: {costs}  (9 / 1 = {forward['9'] / forward['1']:.2f})")
    print(f"\n{'thr':>3} {'tok':>4} {'prompt':<10} {'T':>2}  {'decoder':<14} {'median s [min-max]':>20} "
          f"{'speedup [span]':>19} {'tok/pass':>8}  verdict")
    for row in results["rows"]:
        low, high = row["speedup_span"]
        verdict = f"{row['verdict']} ({row['versus']})" if "verdict" in row else ""
        if "paired_span" in row:
            verdict += f"; per round x{row['paired_span'][0]:.2f}-{row['paired_span'][1]:.2f}, {row['paired_verdict']}"
        print(f"{row['threads']:>3} {row['tokens']:>4} {row['prompt']:<10} {row['temperature']:>2g}  {row['decoder']:<14} "
              f"{row['median']:>6.2f} [{row['min']:.2f}-{row['max']:.2f}] {row['speedup']:>6.2f}x [{low:.2f}-{high:.2f}] "
              f"{row['tokens_per_pass']:>8.2f}  {verdict}")

# %%
if results:
    decoders = [d for d in ("plain (ours)", "lookup (ours)", "lookup (hf)", "tiny (ours)", "assisted (hf)")
                if any(r["decoder"] == d for r in results["rows"])]
    first = (results["rows"][0]["threads"], results["rows"][0]["tokens"])  # one setting per plot
    rows = [r for r in results["rows"] if (r["threads"], r["tokens"]) == first]
    cases = sorted({(r["prompt"], r["temperature"]) for r in rows}, key=lambda c: (c[1], c[0]))
    by_case = {(r["prompt"], r["temperature"], r["decoder"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(10, 3.6))
    width = 0.8 / len(decoders)
    for k, decoder in enumerate(decoders):
        found = [by_case.get((p, t, decoder)) for p, t in cases]
        middle = [r["speedup"] if r else np.nan for r in found]
        below = [r["speedup"] - r["speedup_span"][0] if r else 0 for r in found]
        above = [r["speedup_span"][1] - r["speedup"] if r else 0 for r in found]
        ax.bar(np.arange(len(cases)) + (k - (len(decoders) - 1) / 2) * width, middle, width, yerr=[below, above],
               capsize=2, label=decoder)
    ax.axhline(1.0, color="k", linewidth=0.8)
    ax.set_xticks(np.arange(len(cases)))
    ax.set_xticklabels([f"{p}\nT={t:g}" for p, t in cases])
    ax.set_ylabel("speedup over plain generate()")
    ax.set_title(f"{first[1]} new tokens, {first[0]} thread(s); bars: medians, whiskers: worst to best run")
    ax.legend(fontsize=8, ncol=len(decoders))
    plt.show()

# %% [markdown]
# ## Which tokens the lookup drafted, on SmolLM2
#
# The same decoder, greedy, 64 new tokens (recorded by `python -m speckata.real.record_trace`
# into a committed JSON, so this cell needs no model). Green: proposals the target kept. Red: the
# target's correction after it rejected a proposal. Blue: the free bonus token after a fully kept
# proposal. Uncoloured: a plain step (nothing to propose).

# %%
import html

from IPython.display import HTML, display

trace_path = repo_root() / "speckata" / "real" / "results" / "trace.json"
colours = {"correction": "#f4b6b6", "bonus": "#b6cff4", "plain": "transparent"}

def coloured(passes):
    parts = []
    for step in passes:
        if step["kept"]:
            parts.append(f'<span style="background:#b9e6b3">{html.escape(step["kept"])}</span>')
        parts.append(f'<span style="background:{colours[step["kind"]]}">{html.escape(step["own"])}</span>')
    return "".join(parts)

if trace_path.is_file():
    trace = json.loads(trace_path.read_text())
    for name, record in trace["prompts"].items():
        display(HTML(f"<p><b>{name}</b>: {record['target_passes']} target passes for "
                     f"{trace['settings']['tokens']} tokens</p>"
                     f"<div style='white-space:pre-wrap;font-family:monospace'>{coloured(record['passes'])}</div>"))
else:
    print(f"{trace_path} is missing: run python -m speckata.real.record_trace")

# %% [markdown]
# ## What to take from it
#
# - Where the reply copies the prompt (the copy prompt, greedy), almost every proposal survives
#   and a pass yields several tokens: both lookups run at a multiple of plain decoding's speed.
# - Where it copies a little (summarising, editing code), a pass yields only a little more than
#   one token, and a wider pass costs more than a one-token pass (the cost model above): a lookup
#   pays for itself only if it proposes where the match is long. Ours proposes by the match
#   length and the cost model, transformers' proposes 10 tokens after any match of 1 or 2 tokens.
# - Free chat gives the lookup little to find: our decoder's rounds become plain steps.
# - Sampling at T = 1 lowers acceptance: a proposal survives with probability p(x), below 1 even
#   where the greedy choice agrees; our decoder learns that during the generation and proposes less.
# - Our plain decoder and our lookup decoder run on `speckata.real.lean_llama.LeanLlama`: the
#   same weights and operations as transformers' model, without its per-call machinery, with
#   logits equal to transformers' within float32 rounding. Verification is exact whatever is
#   proposed: at T = 0 every decoder here makes the tokens of plain greedy decoding
#   (tests/maintainer/test_real_model.py and `python -m speckata.bench real --equality 12 --tokens 64`).
