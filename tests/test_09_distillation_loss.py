"""Grading suite for exercise 09-distillation-loss: distillation_loss(student_logits,
teacher_logits, temperature) and top1_agreement(student_logits, teacher_logits).

Values and gradients are compared with an independent numpy float64 reference
(tests/reference/ex09_reference.py); the claim that top-1 agreement is the greedy acceptance rate
is checked against exercise 01's reference.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from tests.reference.ex01_reference import reference_trace
from tests.reference.ex09_reference import reference_loss, reference_student_gradient, reference_top1_agreement

EXERCISE = "09-distillation-loss"
DTYPES = [torch.float32, torch.float64]
DTYPE_IDS = ["float32", "float64"]
TOLERANCE = {torch.float32: dict(rtol=2e-5, atol=1e-6), torch.float64: dict(rtol=1e-10, atol=1e-12)}
# The absolute part grows with T²: each log-probability carries a rounding error of about eps·|log p| however
# small the KL, and the loss is T² times it. (At T = 4, float32 logits that differ by 0.3 at most give a loss
# of 0.0199 that float32 gets to 3e-6: fresh streams, --streams 102958, drew such a pair.)


def distillation_loss():
    return learner_function(EXERCISE, "distillation_loss")


def top1_agreement():
    return learner_function(EXERCISE, "top1_agreement")


def describe(student, teacher, temperature=None) -> str:
    shown = lambda t: str(t.tolist()) if t.numel() <= 12 else f"<{t.dtype} tensor of shape {tuple(t.shape)}>"  # noqa: E731
    text = f"  student_logits = {shown(student)}\n  teacher_logits = {shown(teacher)}"
    return text + (f"\n  temperature    = {temperature}" if temperature is not None else "")


def loss_of(student, teacher, temperature=None) -> torch.Tensor:
    args = (student, teacher) if temperature is None else (student, teacher, temperature)
    loss = call_learner(distillation_loss(), *args, case=describe(student, teacher, temperature))
    if not isinstance(loss, torch.Tensor) or loss.ndim != 0:
        raise GradingFailure(f"distillation_loss must return a 0-dim tensor (a scalar loss); got {loss!r}\n{describe(student, teacher, temperature)}")
    if loss.dtype != student.dtype:
        raise GradingFailure(f"distillation_loss must return the student's dtype {student.dtype}; got {loss.dtype}")
    return loss


def check_loss(student, teacher, temperature, what: str) -> float:
    loss = float(loss_of(student, teacher, temperature))
    expected = reference_loss(student, teacher, 1.0 if temperature is None else temperature)
    tolerance = dict(TOLERANCE[student.dtype])
    tolerance["atol"] *= max(1.0, (1.0 if temperature is None else temperature) ** 2)
    if not np.isclose(loss, expected, **tolerance):
        rows = student.reshape(-1, student.shape[-1]).shape[0]
        hints = []
        if expected and np.isclose(loss * rows / student.shape[0], expected, rtol=1e-4) and rows != student.shape[0]:
            hints.append(f"yours is {rows // student.shape[0]}x the expected value: the mean must run over all {rows} rows "
                         "(flatten the leading dimensions first; 'batchmean' divides by the first dimension only)")
        t = 1.0 if temperature is None else temperature
        if t != 1 and expected and np.isclose(loss * t, expected, rtol=1e-4):
            hints.append("yours is the expected value divided by T: multiply by T ** 2, not T")
        if t != 1 and expected and np.isclose(loss * t * t, expected, rtol=1e-4):
            hints.append("yours is the expected value divided by T²: multiply the KL by T ** 2")
        raise GradingFailure(
            f"distillation_loss got {what} wrong.\n{describe(student, teacher, temperature)}\n"
            f"  yours:    {loss!r}\n  expected: {expected!r}  (T² · mean over rows of KL(softmax(t/T) ‖ softmax(s/T)))"
            + "".join(f"\n  hint: {hint}" for hint in hints)
        )
    return loss


# Task 1: distillation_loss ---------------------------------------------------------------------

TEACHER = torch.tensor([[2.0, 1.0, 0.0], [0.0, 3.0, 0.0]])
STUDENT = torch.tensor([[1.0, 1.0, 1.0], [0.0, 2.0, 1.0]])


@pytest.mark.task(1)
def test_worked_example():
    assert round(check_loss(STUDENT, TEACHER, None, "the worked example (T = 1, the default)"), 4) == 0.2215
    assert round(check_loss(STUDENT, TEACHER, 2.0, "the worked example at T = 2"), 4) == 0.3166


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(1)
def test_zero_when_the_logits_agree_even_up_to_a_shift_per_row(dtype):
    teacher = TEACHER.to(dtype)
    for student, what in ((teacher.clone(), "identical logits"), (teacher + torch.tensor([[5.0], [-3.0]], dtype=dtype), "logits shifted by a constant per row")):
        loss = float(loss_of(student, teacher))
        if abs(loss) > 1e-6:
            raise GradingFailure(f"distillation_loss must be 0 for {what} (softmax ignores a constant per row); got {loss!r}\n{describe(student, teacher)}")


SHAPES = [(7,), (6, 11), (3, 4, 9), (2, 2, 3, 5)]


@pytest.mark.generated
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("temperature", [1.0, 0.5, 2.0, 4.0])
@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
@pytest.mark.task(1)
def test_random_logits_match_the_reference(shape, temperature, dtype):
    gen = torch.Generator().manual_seed(case_seed(100 * len(shape) + sum(shape) + int(10 * temperature)))
    for index in range(3):
        teacher = 3 * torch.randn(shape, generator=gen, dtype=dtype)
        student = teacher + 2 * torch.randn(shape, generator=gen, dtype=dtype)
        loss = check_loss(student, teacher, temperature, f"random logits {index} of shape {shape} at T = {temperature}")
        assert loss >= -1e-6


@pytest.mark.generated
@pytest.mark.task(1)
def test_the_mean_runs_over_every_row_not_the_first_dimension():
    gen = torch.Generator().manual_seed(case_seed(9))
    teacher = torch.randn(2, 5, 4, generator=gen, dtype=torch.float64)
    check_loss(teacher.flip(-1), teacher, 1.0, "(2, 5, 4) logits: 10 rows, so the sum of KLs is divided by 10")


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.task(1)
def test_logits_in_the_thousands_stay_finite(dtype):
    teacher = torch.tensor([[0.0, 400.0, 800.0, 1200.0], [900.0, 0.0, 300.0, 600.0]], dtype=dtype)
    student = torch.tensor([[1200.0, 800.0, 400.0, 0.0], [0.0, 900.0, 300.0, 600.0]], dtype=dtype)
    loss = float(loss_of(student, teacher))
    if not np.isfinite(loss):
        raise GradingFailure(
            f"distillation_loss returned {loss} for large logits: take logarithms with F.log_softmax, never "
            f"torch.log(F.softmax(...)), whose tiny probabilities underflow to 0 and log(0) = -inf.\n{describe(student, teacher)}"
        )
    check_loss(student, teacher, None, "logits in the thousands")


@pytest.mark.generated
@pytest.mark.parametrize("temperature", [1.0, 3.0])
@pytest.mark.task(1)
def test_the_gradient_reaches_the_student_and_not_the_teacher(temperature):
    gen = torch.Generator().manual_seed(case_seed(4))
    teacher = torch.randn(3, 2, 6, generator=gen, dtype=torch.float64).requires_grad_()
    student = torch.randn(3, 2, 6, generator=gen, dtype=torch.float64).requires_grad_()
    loss = loss_of(student, teacher, temperature)
    if not loss.requires_grad:
        raise GradingFailure("distillation_loss returned a loss with no gradient: keep the computation in torch on the student's logits.")
    loss.backward()
    if teacher.grad is not None and bool(teacher.grad.abs().max() > 0):
        raise GradingFailure("A gradient reached teacher_logits: the teacher is fixed, so detach it (teacher_logits.detach()).")
    expected = reference_student_gradient(student, teacher, temperature)
    if student.grad is None or not np.allclose(student.grad.numpy(), expected, rtol=1e-8, atol=1e-12):
        raise GradingFailure(
            f"The gradient with respect to student_logits is wrong at T = {temperature}; it should be T · (q_T − p_T) / N.\n"
            f"  yours (first row):    {None if student.grad is None else student.grad.reshape(-1, 6)[0].tolist()}\n"
            f"  expected (first row): {expected.reshape(-1, 6)[0].tolist()}"
        )


# Task 2: top1_agreement ------------------------------------------------------------------------

def agreement_of(student, teacher) -> float:
    value = call_learner(top1_agreement(), student, teacher, case=describe(student, teacher))
    if type(value) is not float:
        raise GradingFailure(f"top1_agreement must return a plain Python float; got {type(value).__name__} {value!r}")
    return value


def check_agreement(student, teacher, what: str) -> float:
    value = agreement_of(student, teacher)
    expected = reference_top1_agreement(student, teacher)
    if abs(value - expected) > 1e-12:
        raise GradingFailure(f"top1_agreement got {what} wrong.\n{describe(student, teacher)}\n  yours:    {value!r}\n  expected: {expected!r}")
    return value


@pytest.mark.task(2)
def test_top1_worked_example_and_extremes():
    assert check_agreement(torch.tensor([[0.1, 0.9, 0.0], [0.0, 3.0, 0.0]]), TEACHER, "the worked example") == 0.5
    assert check_agreement(TEACHER + 1.0, TEACHER, "rows that all agree") == 1.0
    assert check_agreement(-TEACHER, TEACHER, "rows that all disagree") == 0.0


@pytest.mark.task(2)
def test_top1_ties_go_to_the_lowest_index():
    student = torch.tensor([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0], [5.0, 5.0, 5.0]])
    teacher = torch.tensor([[1.0, 0.5, 0.0], [0.0, 0.0, 2.0], [1.0, 0.0, 0.0]])
    assert check_agreement(student, teacher, "rows with ties (the lowest index wins, as torch.argmax)") == 2 / 3


@pytest.mark.generated
@pytest.mark.task(2)
def test_top1_flattens_the_leading_dimensions():
    gen = torch.Generator().manual_seed(case_seed(5))
    teacher = torch.randn(4, 6, 5, generator=gen)
    student = teacher + 1.5 * torch.randn(4, 6, 5, generator=gen)
    check_agreement(student, teacher, "(4, 6, 5) logits (24 rows)")


@pytest.mark.generated
@pytest.mark.task(2)
def test_top1_agreement_is_the_greedy_acceptance_rate():
    """With one-hot (greedy) p and q, exercise 01's rule accepts a draft exactly when the argmaxes agree."""
    gen = torch.Generator().manual_seed(case_seed(6))
    teacher = torch.randn(200, 7, generator=gen, dtype=torch.float64)
    student = teacher + torch.randn(200, 7, generator=gen, dtype=torch.float64)
    accepted = 0
    for s_row, t_row in zip(student.numpy(), teacher.numpy()):
        p = np.eye(7)[[t_row.argmax(), t_row.argmax()]]  # greedy target rows (position 0 and the bonus row)
        q = np.eye(7)[[s_row.argmax()]]
        trace = reference_trace(p, q, [int(s_row.argmax())], [0.5, 0.5])
        accepted += trace.events[0].kind == "accept"
    rate = accepted / 200
    value = agreement_of(student, teacher)
    if abs(value - rate) > 1e-12:
        raise GradingFailure(f"top1_agreement gave {value} on 200 rows where greedy speculative decoding accepts {rate} of the drafts.")


# Bad input: the exercise text numbers its tasks per function, so each test below grades its function's task.

# Task 1: distillation_loss ---------------------------------------------------------------------

BAD_LOSS_INPUTS = {
    "shapes-differ": ((STUDENT, TEACHER[:, :2], 1.0), ("shape",), "student (2, 3) against teacher (2, 2)"),
    "a-scalar": ((torch.tensor(1.0), torch.tensor(1.0), 1.0), ("shape",), "0-dim logits"),
    "no-rows": ((torch.empty(0, 3), torch.empty(0, 3), 1.0), ("shape",), "logits with no rows"),
    "temperature-zero": ((STUDENT, TEACHER, 0.0), ("temperature",), "temperature 0"),
    "negative-temperature": ((STUDENT, TEACHER, -1.0), ("temperature",), "temperature -1"),
    "nan-temperature": ((STUDENT, TEACHER, float("nan")), ("temperature",), "temperature NaN"),
    "nan-logits": ((torch.tensor([[0.0, float("nan"), 1.0]]), torch.zeros(1, 3), 1.0), ("finite",), "a NaN student logit"),
    "infinite-teacher-logits": ((torch.zeros(1, 3), torch.tensor([[0.0, float("inf"), 1.0]]), 1.0), ("finite",), "an infinite teacher logit"),
}


@pytest.mark.parametrize("name", BAD_LOSS_INPUTS)
@pytest.mark.task(1)
def test_bad_loss_input_raises_a_value_error_naming_the_problem(name):
    args, mentions, problem = BAD_LOSS_INPUTS[name]
    expect_value_error(distillation_loss(), *args, mentions=mentions, problem=problem)


# Task 2: top1_agreement ------------------------------------------------------------------------

@pytest.mark.parametrize("student, teacher, mentions, problem", [
    (STUDENT, TEACHER[:1], ("shape",), "student (2, 3) against teacher (1, 3)"),
    (torch.tensor([[float("nan"), 0.0]]), torch.zeros(1, 2), ("finite",), "a NaN student logit"),
], ids=["shapes-differ", "nan-logits"])
@pytest.mark.task(2)
def test_bad_top1_input_raises_a_value_error(student, teacher, mentions, problem):
    expect_value_error(top1_agreement(), student, teacher, mentions=mentions, problem=problem)

