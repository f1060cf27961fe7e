"""Exercise 09-distillation-loss: an independent reference in numpy float64.

It imports neither solutions/ nor torch.nn.functional: the loss is written from its definition,
T² · mean over rows of Σ_x p_T(x) (log p_T(x) − log q_T(x)), with a log-softmax that subtracts
each row's maximum first, so logits in the thousands stay finite.
"""

from __future__ import annotations

import numpy as np


def as_rows(logits) -> np.ndarray:
    values = np.asarray(logits.detach().cpu().double() if hasattr(logits, "detach") else logits, dtype=np.float64)
    return values.reshape(-1, values.shape[-1])


def log_softmax(rows: np.ndarray) -> np.ndarray:
    shifted = rows - rows.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def reference_loss(student_logits, teacher_logits, temperature: float = 1.0) -> float:
    log_q = log_softmax(as_rows(student_logits) / temperature)
    log_p = log_softmax(as_rows(teacher_logits) / temperature)
    per_row = (np.exp(log_p) * (log_p - log_q)).sum(axis=-1)
    return float(temperature**2 * per_row.mean())


def reference_student_gradient(student_logits, teacher_logits, temperature: float = 1.0) -> np.ndarray:
    """d loss / d student_logits = T · (q_T − p_T) / N, in the student's shape."""
    q = np.exp(log_softmax(as_rows(student_logits) / temperature))
    p = np.exp(log_softmax(as_rows(teacher_logits) / temperature))
    gradient = temperature * (q - p) / q.shape[0]
    return gradient.reshape(tuple(student_logits.shape))


def reference_top1_agreement(student_logits, teacher_logits) -> float:
    return float((as_rows(student_logits).argmax(axis=-1) == as_rows(teacher_logits).argmax(axis=-1)).mean())
