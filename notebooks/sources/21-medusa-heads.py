# %% [markdown]
# # 21-medusa-heads, worked
#
# Medusa's heads on the kata's trained character-level target: the labels each head learns (and
# the off-by-one that is easy to get wrong), the heads' logits and the weighted loss, a short
# training run with your three functions, how often the committed heads guess right on held-out
# text, and greedy decoding with the heads' guesses verified in one target pass, round by round.
# Theory: `theory/21-medusa-heads.md`. Exercise: `exercises/ex21_medusa_heads.py`.
#
# The cells run **your** functions from `exercises/ex21_medusa_heads.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again.

# %%
import matplotlib.pyplot as plt
import torch

import learner
from speckata.decoding.baseline import autoregressive_generate
from speckata.heads.medusa import MedusaHeads, RecordingHiddenModel, load_medusa_heads
from speckata.models.pretrained import char_tokenizer, load_target, text_windows

torch.set_num_threads(1)
medusa_labels = learner.yours("ex21_medusa_heads", "medusa_labels")
medusa_logits = learner.yours("ex21_medusa_heads", "medusa_logits")
medusa_loss = learner.yours("ex21_medusa_heads", "medusa_loss")
medusa_generate = learner.yours("ex21_medusa_heads", "medusa_generate")
target, heads = load_target(), load_medusa_heads()
tokenizer = char_tokenizer()

# %% [markdown]
# ## Task 1: who predicts what
#
# At position t the target has read ids[0..t] and its own head predicts ids[t + 1]. Head k
# predicts ids[t + k + 2]: head 0 the token after the target's. Past the end of the window the
# label is -100 (ignored by the loss).

# %%
ids = torch.tensor([[10, 11, 12, 13, 14]])
learner.compare(lambda: medusa_labels(ids, 2).tolist(), [[[12, 13, 14, -100, -100]], [[13, 14, -100, -100, -100]]])

# %% [markdown]
# On text: at each position of a short window, what the target's head should say next, and what
# heads 0 and 1 should say after it.

# %%
window = torch.tensor([tokenizer.encode("class Foo:")])
with learner.until_written():
    labels = medusa_labels(window, 2)[:, 0].tolist()
    print(f"{'t':>3} {'read':<12} {'target: t+1':<12} {'head 0: t+2':<12} {'head 1: t+3':<12}")
    for t in range(window.shape[1]):
        shown = [repr(tokenizer.decode([i])) if i >= 0 else "-" for i in
                 ([int(window[0, t + 1])] if t + 1 < window.shape[1] else [-100]) + [labels[0][t], labels[1][t]]]
        print(f"{t:>3} {tokenizer.decode(window[0, : t + 1].tolist())!r:<12} {shown[0]:<12} {shown[1]:<12} {shown[2]:<12}")

# %% [markdown]
# ## Tasks 2 and 3: the heads' logits and the weighted loss
#
# A fresh head (block all zeros, projection copied from the target's head) is the target's own
# head: SiLU(0) = 0, so h + SiLU(W h + b) = h. Its loss on the worked example is large, because it
# predicts the token one position too early.

# %%
fresh = MedusaHeads.from_target(target, 2)
learner.compare(lambda: torch.allclose(medusa_logits(fresh, target.hidden_states(ids))[1], target(ids), atol=1e-5), True)
learner.compare(lambda: round(medusa_loss(medusa_logits(fresh, target.hidden_states(ids)), medusa_labels(ids, 2)).item(), 4),
                8.9395)

# %% [markdown]
# ## A short training run with your functions
#
# Two fresh heads, 150 Adam steps on batches of 16 training windows of 64 characters, the target
# frozen (its hidden states computed once, without gradients). The committed heads were trained
# the same way for longer (`python -m trainers.train_medusa`).

# %%
train = text_windows("train", 64, limit=512)
with torch.no_grad():
    train_hidden = target.hidden_states(train)
short = MedusaHeads.from_target(target, 2)
optimizer = torch.optim.Adam(short.parameters(), lr=3e-3)
generator = torch.Generator().manual_seed(0)
losses = []
with learner.until_written():
    for step in range(150):
        rows = torch.randint(0, train.shape[0], (16,), generator=generator)
        loss = medusa_loss(medusa_logits(short, train_hidden[rows]), medusa_labels(train[rows], 2))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print(f"loss: first step {losses[0]:.2f}, mean of the last 10 steps {sum(losses[-10:]) / 10:.2f}")
    plt.plot(losses)
    plt.xlabel("step")
    plt.ylabel("weighted loss (head 0 + 0.8 head 1)")
    plt.show()

# %% [markdown]
# ## How often the committed heads guess right
#
# Top-1 accuracy on the held-out split (every tenth help topic, never trained on): the target's
# own head on the next token, then each head on its own token further ahead.

# %%
held = text_windows("held_out", 128)
with torch.no_grad(), learner.until_written():
    held_hidden = target.hidden_states(held)
    held_labels = medusa_labels(held, 3)
    guesses = medusa_logits(heads, held_hidden).argmax(dim=-1)
    kept = held_labels != -100
    accuracy = [float((guesses[k] == held_labels[k])[kept[k]].float().mean()) for k in range(3)]
    own = float((target.head(held_hidden)[:, :-1].argmax(dim=-1) == held[:, 1:]).float().mean())
    names = ["target (t+1)", "head 0 (t+2)", "head 1 (t+3)", "head 2 (t+4)"]
    for name, value in zip(names, [own] + accuracy):
        print(f"{name:<14} {value:.3f}")
    plt.bar(names, [own] + accuracy)
    plt.ylabel("held-out top-1 accuracy")
    plt.show()

# %% [markdown]
# ## Task 4: decoding, round by round
#
# Each round feeds the target's own token and the three heads' guesses in one pass, keeps the
# guesses the target confirms, and crops the cache to them. The output is the target's greedy
# decoding.

# %%
prompt = tokenizer.encode("The class definition ")
recorder = RecordingHiddenModel(target)
greedy = autoregressive_generate(target, prompt, 16, torch.Generator(), temperature=0)
learner.compare(lambda: medusa_generate(recorder, heads, prompt, 16).tokens, greedy)
learner.compare(lambda: medusa_generate(recorder, heads, prompt, 16).accepted_per_pass, [1, 1, 0, 2, 2, 0, 2])
rounds = RecordingHiddenModel(target)
with learner.until_written():
    result = medusa_generate(rounds, heads, prompt, 16)
    for call in rounds.calls:
        if call[0] == "hidden" and call[2] > 0:
            fed = list(call[1])
            print(f"pass: token {tokenizer.decode(fed[:1])!r} + guesses {tokenizer.decode(fed[1:])!r}", end="   ")
        elif call[0] == "crop" and call[2] > 0:
            print(f"-> keep {call[1] - (call[2] - len(fed))} of the {len(fed)} fed")
    print(f"{len(result.tokens)} tokens in {result.target_passes} target passes (the prompt's included): "
          f"{tokenizer.decode(result.tokens)!r}")

# %% [markdown]
# ## More heads, more tokens per pass (with diminishing returns)
#
# Greedy, 48 new tokens from each of four held-out windows of 24 characters, with the first 1, 2
# or all 3 committed heads. Head k's guess only counts when every head before it was right.

# %%
prompts = text_windows("held_out", 24, limit=4).tolist()


def first_heads(count):
    kept = MedusaHeads(heads.width, heads.vocab_size, count)
    kept.load_state_dict({key: value for key, value in heads.state_dict().items() if int(key.split(".")[1]) < count})
    return kept


def tokens_per_pass(some_heads):
    runs = [medusa_generate(target, some_heads, prompt, 48) for prompt in prompts]
    return sum(len(run.tokens) for run in runs) / sum(run.target_passes for run in runs)


with learner.until_written():
    rates = [tokens_per_pass(first_heads(count)) for count in (1, 2, 3)]
    for count, rate in zip((1, 2, 3), rates):
        print(f"{count} head{'s' if count > 1 else ''}: {rate:.2f} tokens per target pass")
    plt.plot([1, 2, 3], rates, marker="o")
    plt.xticks([1, 2, 3])
    plt.xlabel("heads")
    plt.ylabel("tokens per target pass")
    plt.show()
