# %% [markdown]
# # 22-eagle-head, worked
#
# EAGLE's head on the kata's trained character-level target: the training pairs (and the shift
# that is easy to get wrong), the head's predicted features and EAGLE's loss, a short training run
# with your three functions, drafting on the head's own features, and the decoder verified with
# exercise 01's rule: greedy (the target's own text) and sampled, round by round. Last, how many
# drafts per round EAGLE keeps beside exercise 21's Medusa heads and exercise 11's distilled draft.
# Theory: `theory/22-eagle-head.md`. Exercise: `exercises/ex22_eagle_head.py`.
#
# The cells run **your** functions from `exercises/ex22_eagle_head.py` (through notebooks/learner.py):
# while your file is the stub they say "not written yet" beside the expected values; save your
# file and run them again. Exercises 10 and 21 come from the reference.

# %%
import learner
import matplotlib.pyplot as plt
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.heads.eagle import EagleHead, load_distilled_draft, load_eagle_head
from speckata.heads.medusa import load_medusa_heads
from speckata.models.pretrained import char_tokenizer, load_target, text_windows

torch.set_num_threads(1)
eagle_pairs = learner.yours("ex22_eagle_head", "eagle_pairs")
eagle_features = learner.yours("ex22_eagle_head", "eagle_features")
eagle_loss = learner.yours("ex22_eagle_head", "eagle_loss")
eagle_draft = learner.yours("ex22_eagle_head", "eagle_draft")
eagle_generate = learner.yours("ex22_eagle_head", "eagle_generate")
medusa_generate = learner.reference("ex21_medusa_heads", "medusa_generate")
speculative_generate = learner.reference("ex10_speculative_generate", "speculative_generate")
target, head = load_target(), load_eagle_head()
tokenizer = char_tokenizer()

# %% [markdown]
# ## Task 1: the pairs, one step ahead
#
# Row t reads the target's feature $f_t$ (it has read $x_0 \dots x_t$) and the token one step ahead,
# $x_{t+1}$, already sampled when the head runs; it learns $f_{t+1}$.

# %%
ids = torch.tensor([[10, 11, 12, 13]])
learner.compare(lambda: eagle_pairs(target.hidden_states(ids), ids)[1].tolist(), [[11, 12, 13]])

window = torch.tensor([tokenizer.encode("class Foo:")])
with learner.until_written(), torch.no_grad():
    _, tokens, _ = eagle_pairs(target.hidden_states(window), window)
    print(f"{'t':>3} {'f_t has read':<14} {'token read with it':<20} learns")
    for t in range(tokens.shape[1]):
        print(f"{t:>3} {tokenizer.decode(window[0, : t + 1].tolist())!r:<14} {tokenizer.decode([int(tokens[0, t])])!r:<20} f_{t + 1}")

# %% [markdown]
# ## Tasks 2 and 3: the head's features and EAGLE's loss
#
# The committed head against a fresh one on the held-out text, teacher-forced: the loss
# (smooth L1 + 0.1 × cross-entropy through the target's frozen head), and how often the token
# the target's head reads off the predicted feature is the target's own greedy choice.

# %%
held = text_windows("held_out", 128)
with torch.no_grad(), learner.until_written():
    features, tokens, following = eagle_pairs(target.hidden_states(held), held)
    torch.manual_seed(0)
    for name, some_head in (("fresh head", EagleHead(target.width)), ("committed head", head)):
        predicted = eagle_features(some_head, target, features, tokens)
        agree = (target.head(predicted).argmax(-1) == target.head(following).argmax(-1)).float().mean()
        print(f"{name:<15} loss {eagle_loss(target, predicted, following).item():.3f}   top-1 agreement {agree:.3f}")

# %% [markdown]
# ## A short training run with your functions
#
# A fresh head, 150 Adam steps on batches of 16 training windows of 64 characters; the target is
# frozen (its features computed once, without gradients). The committed head was trained the same
# way for longer, with EAGLE's feature noise (`python -m trainers.train_eagle`).

# %%
train = text_windows("train", 64, limit=512)
with torch.no_grad():
    train_hidden = target.hidden_states(train)
torch.manual_seed(0)
short = EagleHead(target.width)
optimizer = torch.optim.Adam(short.parameters(), lr=3e-3)
generator = torch.Generator().manual_seed(0)
losses = []
with learner.until_written():
    for step in range(150):
        rows = torch.randint(0, train.shape[0], (16,), generator=generator)
        features, tokens, following = eagle_pairs(train_hidden[rows], train[rows])
        loss = eagle_loss(target, eagle_features(short, target, features, tokens), following)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print(f"loss: first step {losses[0]:.2f}, mean of the last 10 steps {sum(losses[-10:]) / 10:.2f}")
    plt.plot(losses)
    plt.xlabel("step")
    plt.ylabel("smooth L1 + 0.1 cross-entropy")
    plt.show()

# %% [markdown]
# ## Task 4: drafting on the head's own features
#
# From the prompt's features, four greedy drafts: each step appends the head's own predicted
# feature and the token it drafted, and runs the head again.

# %%
prompt = tokenizer.encode("The class definition ")
with torch.no_grad():
    prompt_features = target.hidden_states(torch.tensor([prompt[:-1]]))[0]
learner.compare(lambda: tokenizer.decode(eagle_draft(target, head, prompt_features, torch.tensor(prompt[1:]), 4,
                                                     torch.Generator(), temperature=0)[0]),
                tokenizer.decode(autoregressive_generate(target, prompt, 4, torch.Generator(), temperature=0)))

# %% [markdown]
# ## Task 5: the decoder, round by round
#
# Greedy, the output is the target's greedy decoding; each round shows the drafts and how many
# the target kept.

# %%
greedy = autoregressive_generate(target, prompt, 24, torch.Generator(), temperature=0)
learner.compare(lambda: eagle_generate(target, head, prompt, 24, 3, torch.Generator(), temperature=0).tokens == greedy, True)
with learner.until_written():
    result = eagle_generate(target, head, prompt, 24, 3, torch.Generator(), temperature=0)
    print(f"accepted per round {result.accepted_per_pass}")
    print(f"{len(result.tokens)} tokens in {result.target_passes} target passes: {tokenizer.decode(result.tokens)!r}")
    sampled = eagle_generate(target, head, prompt, 48, 3, torch.Generator().manual_seed(1))
    print(f"sampled: accepted per round {sampled.accepted_per_pass}\n  {tokenizer.decode(sampled.tokens)!r}")

# %% [markdown]
# ## EAGLE, Medusa and a distilled draft: drafts kept by depth
#
# Greedy, 48 new tokens from each of eight held-out windows of 24 characters, three drafts per
# round for each: EAGLE's head (about 83k parameters), exercise 21's three Medusa heads (86k) and
# exercise 11's distilled draft (50k, a model of its own). At depth d, the share of rounds whose
# first d drafts were all kept.

# %%
prompts = text_windows("held_out", 24, limit=8).tolist()


def by_depth(runs, depths=3):
    pairs = [(a, k) for run in runs for a, k in zip(run.accepted_per_pass, run.drafted_per_pass)]
    return [sum(a >= d for a, k in pairs if k >= d) / sum(k >= d for a, k in pairs) for d in range(1, depths + 1)]


with learner.until_written():
    distilled = load_distilled_draft()
    runs = {"EAGLE head": [eagle_generate(target, head, p, 48, 3, torch.Generator(), temperature=0) for p in prompts],
            "Medusa heads": [medusa_generate(target, load_medusa_heads(), p, 48) for p in prompts],
            "distilled draft": [speculative_generate(target, distilled, p, 48, 3, torch.Generator(), temperature=0)
                                for p in prompts]}
    for name, some in runs.items():
        shares = by_depth(some)
        per_pass = sum(len(r.tokens) for r in some) / sum(r.target_passes for r in some)
        print(f"{name:<16} kept at depth 1, 2, 3: {[round(s, 3) for s in shares]}   tokens per target pass {per_pass:.2f}")
        plt.plot([1, 2, 3], shares, marker="o", label=name)
    plt.xticks([1, 2, 3])
    plt.xlabel("depth d")
    plt.ylabel("share of rounds keeping the first d drafts")
    plt.legend()
    plt.show()
