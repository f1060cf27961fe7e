# %% [markdown]
# # 10-speculative-generate, on the trained models
#
# The committed character-level target and its much smaller draft (`speckata.models.pretrained`)
# decode text with exercise 10's `speculative_generate`. We colour which tokens were drafts the
# target kept, which were corrections, and which were free bonus tokens; look at how many drafts a
# round keeps; check greedy equality; and measure the speedup against the theory.
# Theory: `theory/10-speculative-generate.md`. Exercise: `exercises/ex10_speculative_generate.py`.
#
# This notebook runs **your** `speculative_generate` (from `exercises/ex10_speculative_generate.py`);
# while it is still the stub, each cell says "not written yet" and shows the expected values.
# Save your file and run the cells again.

# %%
import html

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import HTML, display

import learner
from speckata.decoding.baseline import autoregressive_generate
from speckata.models.pretrained import char_tokenizer, load_draft, load_target, settings

speculative_generate = learner.yours("ex10_speculative_generate", "speculative_generate")
torch.set_num_threads(1)
target, draft, chars = load_target(), load_draft(), char_tokenizer()
for name in ("target", "draft"):
    record = settings()["models"][name]
    print(f"{name:<7} {record['parameters']:>9,} parameters, {record['layers']} layer(s) of width {record['width']}, "
          f"held-out loss {record['held_out_loss']} nats/character")

# %% [markdown]
# ## Which tokens did the draft write?
#
# Each round emits the drafts the target kept (green), then one token the target sampled itself:
# a **correction** after a rejection (orange, drawn from the residual max(0, p − q)) or a **bonus**
# when every draft was kept (blue, drawn from p_k). The statistics in the result are enough to
# tell them apart.

# %%
def provenance(result):
    kinds = []
    for accepted, drafted in zip(result.accepted_per_pass, result.drafted_per_pass):
        kinds += ["kept"] * accepted + ["correction" if accepted < drafted else "bonus"]
    return kinds

COLOURS = {"kept": "#c8f7c5", "correction": "#ffd199", "bonus": "#b9d7ff"}

def coloured(prompt_text, result):
    spans = [f"<b>{html.escape(prompt_text)}</b>"]
    for token, kind in zip(result.tokens, provenance(result)):
        text = html.escape(chars.decode([token])).replace("\n", "&#8629;<br>")
        spans.append(f'<span style="background:{COLOURS[kind]}">{text}</span>')
    legend = " ".join(f'<span style="background:{c}">&nbsp;{k}&nbsp;</span>' for k, c in COLOURS.items())
    return HTML(f'<div style="font-family:monospace;white-space:pre-wrap;line-height:1.6">{"".join(spans)}</div>'
                f"<p>{legend}</p>")

def summary(result):
    return (f"{len(result.tokens)} tokens in {result.target_passes} target passes "
            f"({result.tokens_per_pass:.2f} per pass), acceptance rate {result.acceptance_rate:.3f}")

prompt_text = "Assignment statements "
decoded = []
def decode():
    decoded.append(speculative_generate(target, draft, chars.encode(prompt_text), 220, 4,
                                        torch.Generator().manual_seed(1), temperature=0.8))
    return decoded[-1]

learner.compare(decode, "220 tokens in 115 target passes (1.91 per pass), acceptance rate 0.493",
                describe=lambda r: r if isinstance(r, str) else summary(r))
if decoded:  # once your decoder runs
    display(coloured(prompt_text, decoded[-1]))

# %% [markdown]
# ## How many drafts does a round keep?
#
# If every draft were kept with the same probability α, independently, a round with γ = 4 would
# keep n < 4 drafts with probability α^n (1 − α) and all 4 with probability α^4. Real text is not
# that uniform (some stretches are easy, others hard), so the measured histogram is flatter.

# %%
gamma, runs = 4, 12
kept = []
with learner.until_written():
    for seed in range(runs):
        out = speculative_generate(target, draft, chars.encode("The "), 150, gamma, torch.Generator().manual_seed(seed))
        kept += [a for a, k in zip(out.accepted_per_pass, out.drafted_per_pass) if k == gamma]
kept = np.array(kept, dtype=int)
alpha = kept.sum() / max(1, kept.sum() + (kept < gamma).sum())
model = np.array([alpha**n * (1 - alpha) for n in range(gamma)] + [alpha**gamma])
fig, ax = plt.subplots(figsize=(7, 3.2))
if len(kept):  # once your decoder runs
    counts = np.bincount(kept, minlength=gamma + 1) / len(kept)
    ax.bar(np.arange(gamma + 1) - 0.2, counts, width=0.4, label=f"measured, {len(kept)} rounds")
    ax.bar(np.arange(gamma + 1) + 0.2, model, width=0.4, label=f"independent drafts, α = {alpha:.3f}")
ax.set_xlabel("drafts kept in a round (γ = 4)")
ax.set_ylabel("fraction of rounds")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## Greedy: the same tokens as the target alone
#
# At temperature 0 speculative decoding must reproduce the target's greedy decoding token for token
# (theory, section 5). Here on the float32 models, whose logits for a token scored inside a
# (γ+1)-token pass may differ from a one-token pass in the last bits; on these prompts that never
# changes an argmax.

# %%
for text in ("The ", "A class definition ", "   for_stmt ::= "):
    prompt = chars.encode(text)
    greedy = autoregressive_generate(target, prompt, 120, torch.Generator(), temperature=0)  # the target alone
    learner.compare(lambda: speculative_generate(target, draft, prompt, 120, 4, torch.Generator(), temperature=0).tokens
                    == greedy, True, describe=lambda same: f"{text!r}: identical to the target's greedy decoding = {same}")
print(repr(chars.decode(greedy)))

# %% [markdown]
# ## Speedup against the theory
#
# `speckata.bench.generate.measure` is what `python -m speckata.bench generate` prints (here with
# fewer tokens, so that the notebook stays quick), run on your decoder: the bench itself times the
# reference, here `generate=` hands it your `speculative_generate`. Measured tokens per pass should sit near the
# formula (1 − α^(γ+1)) / (1 − α) (an estimate, theory/10 §6); the wall-clock speedup stays under the benchmark's
# `bound` column, (1 − α^(γ+1)) / ((1 − α)(γc + 1)), by about as much as the verify pass costs more than one
# one-token pass (the last column) and the decoding loop's own Python work.

# %%
from speckata.bench.generate import measure

with learner.until_written():
    speculative_generate(target, draft, chars.encode("The "), 1, 1, torch.Generator())  # is yours written yet?
    bench = measure(tokens=120, repeats=2, temperature=1.0, generate=speculative_generate)
    print(f"c = {bench['cost_ratio']:.3f} (draft {bench['draft_ms']:.3f} ms, target {bench['target_ms']:.3f} ms "
          "per one-token pass)")
    print(f"{'γ':>2}  {'α':>6}  {'tok/pass':>8}  {'formula':>7}  {'speedup':>7}  {'bound':>6}  {'verify':>6}")
    for row in bench["rows"]:
        print(f"{row['gamma']:>2}  {row['alpha']:>6.3f}  {row['tokens_per_pass']:>8.3f}  "
              f"{row['tokens_per_pass_formula']:>7.3f}  {row['speedup']:>6.2f}x  {row['speedup_bound']:>5.2f}x  "
              f"{row['verify_cost']:>5.2f}x")

    gammas = [row["gamma"] for row in bench["rows"]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
    left.plot(gammas, [r["tokens_per_pass_formula"] for r in bench["rows"]], "k--", label="(1 − α^(γ+1)) / (1 − α)")
    left.plot(gammas, [r["tokens_per_pass"] for r in bench["rows"]], "o-", label="measured")
    left.set_xlabel("γ")
    left.set_ylabel("tokens per target pass")
    left.legend(fontsize=8)
    right.plot(gammas, [r["speedup_bound"] for r in bench["rows"]], "k--", label="bound, verify = one pass")
    right.plot(gammas, [r["speedup"] for r in bench["rows"]], "o-", label="measured wall clock")
    right.axhline(1.0, color="grey", lw=0.8)
    right.set_xlabel("γ")
    right.set_ylabel("speedup over autoregressive")
    right.legend(fontsize=8)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## Next: a better draft
#
# Every number above is driven by α. `notebooks/11-distill-draft.ipynb` distils this draft on the
# target's distributions (exercise 11), prints α and top-1 agreement before and after, beside a
# cross-entropy control of the same budget, and decodes with the distilled draft to measure α
# where it matters.
