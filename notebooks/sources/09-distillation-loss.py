# %% [markdown]
# # 09-distillation-loss, worked
#
# A draft is accepted as often as its distribution overlaps the target's: α = Σ min(p, q) =
# 1 − TV(p, q). This notebook trains a toy student on the distillation loss and watches the loss
# fall, the acceptance rate and the top-1 agreement climb, and Pinsker's bound
# α ≥ 1 − √(KL/2) hold all the way. Then the temperature: what T² does to the gradient.
# Theory: `theory/09-distillation-loss.md`. Exercise: `exercises/ex09_distillation_loss.py`.
#
# Notation: **p is the target** (the teacher), **q is the draft** (the student). The cells run
# **your** `distillation_loss` and `top1_agreement` from `exercises/ex09_distillation_loss.py`
# (through `notebooks/learner.py`): while your file is the stub they say "not written yet" beside
# the expected values; save your file and run them again.

# %%
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F

import learner

distillation_loss = learner.yours("ex09_distillation_loss", "distillation_loss")
top1_agreement = learner.yours("ex09_distillation_loss", "top1_agreement")

# %% [markdown]
# ## A teacher, a student, and gradient steps
#
# 64 rows (think: positions in a batch of sequences) over a vocabulary of 16. The teacher's
# logits are fixed; the student starts from unrelated logits and takes plain gradient steps on
# `distillation_loss` at T = 1 (the loss is a mean over rows, so the step size is large).

# %%
gen = torch.Generator().manual_seed(0)
teacher = 2.5 * torch.randn(64, 16, generator=gen, dtype=torch.float64)
student = (2.5 * torch.randn(64, 16, generator=gen, dtype=torch.float64)).requires_grad_()
optimiser = torch.optim.SGD([student], lr=8.0)
print("before training: distillation_loss(student, teacher), rounded")
learner.compare(lambda: round(float(distillation_loss(student.detach(), teacher)), 4), 3.4909)
print("top1_agreement(student, teacher): 5 rows of 64 agree")
learner.compare(lambda: top1_agreement(student.detach(), teacher), 0.078125)

def acceptance(student, teacher):
    """Mean over rows of Σ min(p, q): the chance a drafted token survives, at temperature 1."""
    return float(torch.minimum(F.softmax(teacher, -1), F.softmax(student, -1)).sum(-1).mean())

def train(steps):
    history = []
    for step in range(steps + 1):
        loss = distillation_loss(student, teacher)
        history.append((step, float(loss.detach()), acceptance(student.detach(), teacher),
                        top1_agreement(student.detach(), teacher)))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return history

history = None  # with your functions, once written
with learner.until_written():
    history = train(400)
    for step, loss_value, alpha, top1 in history[::100]:
        print(f"step {step:>3}: loss {loss_value:.4f}  acceptance {alpha:.3f}  top-1 agreement {top1:.3f}")

    steps = [h[0] for h in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.4))
    left.plot(steps, [h[1] for h in history])
    left.set_yscale("log")
    left.set_xlabel("step")
    left.set_ylabel("distillation loss (mean KL)")
    right.plot(steps, [h[2] for h in history], label="acceptance α = Σ min(p, q)")
    right.plot(steps, [h[3] for h in history], label="top-1 agreement (greedy acceptance)")
    right.plot(steps, [max(0.0, 1 - (h[1] / 2) ** 0.5) for h in history], "--",
               label="Pinsker's bound 1 − √(KL/2), which α stays above")
    right.set_xlabel("step")
    right.set_ylim(0, 1.02)
    right.legend(fontsize=8)
    plt.tight_layout()
    plt.show()

# %% [markdown]
# ## Pinsker's bound, row by row
#
# For every row, α = 1 − TV ≥ 1 − √(KL(p ‖ q)/2). At the start (far apart) and after training
# (close), every row sits above the line. (The trained rows appear once your loss has trained the
# student above.)

# %%
def rowwise(student, teacher):
    p, q = F.softmax(teacher, -1), F.softmax(student, -1)
    kl = (p * (p.log() - q.log())).sum(-1)
    return kl, torch.minimum(p, q).sum(-1)

start = 2.5 * torch.randn(64, 16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
rows = {"untrained student": rowwise(start, teacher)}
if history is not None:
    rows["after 400 steps"] = rowwise(student.detach(), teacher)
grid = torch.linspace(0, 2.5, 200)
fig, ax = plt.subplots(figsize=(6, 3.4))
ax.plot(grid, (1 - (grid / 2).sqrt()).clamp(min=0), "k--", label="1 − √(KL/2)")
for name, (kl, alpha) in rows.items():
    ax.scatter(kl, alpha, s=12, label=name)
ax.set_xlabel("KL(p ‖ q) of the row")
ax.set_ylabel("α of the row")
ax.legend(fontsize=8)
plt.show()
print("every row above the bound:", all(bool((alpha >= 1 - (kl / 2).sqrt() - 1e-12).all()) for kl, alpha in rows.values()))

# %% [markdown]
# ## What T² does
#
# The gradient of the softened KL with respect to the student's logits falls about as 1/T²;
# `distillation_loss` multiplies by T², which keeps it comparable across temperatures.

# %%
with learner.until_written():
    for temperature in (1.0, 2.0, 4.0, 8.0):
        fresh = torch.zeros(64, 16, dtype=torch.float64, requires_grad=True)
        distillation_loss(fresh, teacher, temperature).backward()
        with_t2 = float(fresh.grad.norm())
        print(f"T = {temperature}: gradient norm with T² {with_t2:.4f}, without it {with_t2 / temperature ** 2:.4f}")
