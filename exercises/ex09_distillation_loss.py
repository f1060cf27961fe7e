"""Exercise 09-distillation-loss: train the draft to agree with the target.

Speculative decoding is only as fast as its acceptance rate, and for one position that rate is
α = Σ_x min(p(x), q(x)) = 1 − TV(p, q): the closer the draft's distribution q is to the target's
p, the more drafts survive. Distillation trains the draft (the student) on the target's (the
teacher's) distributions, and this loss is what it minimises. Exercise 11 trains a draft with it.
Theory: theory/09-distillation-loss.md. Worked example: notebooks/09-distillation-loss.ipynb.

Task 1: distillation_loss(student_logits, teacher_logits, temperature=1.0)
    The logits are two floating-point tensors of one shape (..., V): any leading dimensions
    (batch, sequence, ...), each of their rows the logits of one next-token distribution.
    Flatten the leading dimensions into N rows, soften both with the temperature T,
        p_T = softmax(teacher_logits / T),   q_T = softmax(student_logits / T)   (per row),
    and return
        T² · (1/N) · Σ_rows KL(p_T ‖ q_T),   where KL(p ‖ q) = Σ_x p(x) · (log p(x) − log q(x)),
    as a 0-dim tensor in the student's dtype. That is
        F.kl_div(F.log_softmax(s / T, -1), F.log_softmax(t / T, -1), log_target=True,
                 reduction="batchmean") * T**2
    on the flattened (N, V) rows s and t. Mind that "batchmean" divides by the size of the FIRST
    dimension only: on (batch, seq, V) logits it would divide by batch, not batch · seq.
    - Take logarithms with log_softmax, never log(softmax(...)): a probability that underflows
      to 0 gives log(0) = -inf, and the loss becomes NaN.
    - The teacher is fixed: no gradient may reach teacher_logits (detach it); the student's
      gradient is T · (q_T − p_T) / N.
    - The loss is 0 when the two rows agree, also up to a constant added to a row (softmax
      ignores it), and positive otherwise.
    - Why T²: without it the gradient would be (q_T − p_T) / (T · N), and q_T − p_T itself
      shrinks like 1/T as T grows, so about 1/T² in all; the factor keeps the gradient's size
      comparable across temperatures (Hinton, Vinyals and Dean, 2015).
    Bad input raises ValueError naming it: "shape" (shapes that differ, no dimension, or no row),
    "temperature" (not a positive finite number), "finite" (NaN or infinite logits).

Task 2: top1_agreement(student_logits, teacher_logits) -> float
    The fraction of rows (leading dimensions flattened) where the student's argmax equals the
    teacher's; ties go to the lowest index, as torch.argmax does. A plain Python float in [0, 1].
    It is exactly the acceptance rate of greedy speculative decoding for one token: greedy p and
    q are one-hot, and min(p, q) sums to 1 when the argmaxes agree and to 0 when they do not.
    Bad input: the same "shape" and "finite" ValueErrors.

>>> import torch
>>> teacher = torch.tensor([[2.0, 1.0, 0.0], [0.0, 3.0, 0.0]])
>>> float(distillation_loss(teacher, teacher)), float(distillation_loss(teacher + 5.0, teacher))
(0.0, 0.0)
>>> student = torch.tensor([[1.0, 1.0, 1.0], [0.0, 2.0, 1.0]])
>>> round(float(distillation_loss(student, teacher)), 4), round(float(distillation_loss(student, teacher, 2.0)), 4)
(0.2215, 0.3166)
>>> top1_agreement(torch.tensor([[0.1, 0.9, 0.0], [0.0, 3.0, 0.0]]), teacher)   # row 0 disagrees
0.5

Check it with:  kata check 09-distillation-loss   (or: pytest tests/test_09_distillation_loss.py)
"""

import torch
import torch.nn.functional as F  # noqa: F401


def distillation_loss(student_logits, teacher_logits, temperature=1.0) -> torch.Tensor:
    # TODO(09-distillation-loss): T² times the mean over rows of KL(softmax(t/T) ‖ softmax(s/T)).
    raise NotImplementedError("09-distillation-loss: distillation_loss is not written yet")


def top1_agreement(student_logits, teacher_logits) -> float:
    # TODO(09-distillation-loss): the fraction of rows whose argmax agree, as a Python float.
    raise NotImplementedError("09-distillation-loss: top1_agreement is not written yet")
