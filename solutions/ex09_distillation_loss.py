"""Exercise 09-distillation-loss: reference solution. The exercise text is in exercises/ex09_distillation_loss.py."""

import math

import torch
import torch.nn.functional as F


def distillation_loss(student_logits, teacher_logits, temperature=1.0) -> torch.Tensor:
    check_logits(student_logits, teacher_logits)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 < temperature < math.inf:
        raise ValueError(f"the temperature must be a positive finite number; got {temperature!r}")
    vocab = student_logits.shape[-1]
    student = student_logits.reshape(-1, vocab)
    teacher = teacher_logits.detach().reshape(-1, vocab).to(student.dtype)  # the teacher is fixed
    log_q = F.log_softmax(student / temperature, dim=-1)
    log_p = F.log_softmax(teacher / temperature, dim=-1)
    # "batchmean" divides by the first dimension, the number of rows now that they are flattened.
    return F.kl_div(log_q, log_p, log_target=True, reduction="batchmean") * temperature**2


def top1_agreement(student_logits, teacher_logits) -> float:
    check_logits(student_logits, teacher_logits)
    vocab = student_logits.shape[-1]
    student_top = student_logits.reshape(-1, vocab).argmax(dim=-1)
    teacher_top = teacher_logits.reshape(-1, vocab).argmax(dim=-1)
    return float((student_top == teacher_top).double().mean())


def check_logits(student_logits, teacher_logits) -> None:
    for name, logits in (("student_logits", student_logits), ("teacher_logits", teacher_logits)):
        if not isinstance(logits, torch.Tensor) or not logits.is_floating_point():
            raise ValueError(f"{name} must be a floating-point tensor; got {type(logits).__name__}")
    if student_logits.shape != teacher_logits.shape:
        raise ValueError(
            f"student_logits and teacher_logits must have one shape; got shape {tuple(student_logits.shape)} "
            f"and {tuple(teacher_logits.shape)}"
        )
    if student_logits.ndim == 0 or student_logits.numel() == 0:
        raise ValueError(f"the logits must have shape (..., V) with at least one row; got shape {tuple(student_logits.shape)}")
    for name, logits in (("student_logits", student_logits), ("teacher_logits", teacher_logits)):
        if not bool(torch.isfinite(logits).all()):
            raise ValueError(f"{name} must be finite: it holds NaN or an infinite entry")
