"""The per-position reports (exercises 01, 07, 08) name the real mistake, not a symptom of it.

Each wrong version is a mutant of tests/mutants (so the mutant gate also shows the suite fails on
it), written out as the learner's file in a temporary folder and loaded from there. The suite's
own test function then runs in-process with that file's function in place of the learner's, and
the GradingFailure it raises is checked: its text, and the structured result (``detail``) that the
plugin writes to --report-json and the ``kata`` CLI reads to highlight the first difference.
"""

from __future__ import annotations

import sys

from speckata.cli.colour import Palette
from speckata.cli.display import grading_message
from speckata.grading import GradingFailure
from speckata.grading.position_table import MARK
from speckata.manifest import exercise_by_id
from tests.maintainer.test_mutants import MUTANTS_DIR, materialise
from tests.maintainer.wrong_learners import failure_of, module_from_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def wrong_version(tmp_path, exercise_id: str, mutant_name: str):
    """The learner's module with the mistake of the mutant named ``mutant_name``, loaded from a file."""
    exercise = exercise_by_id(exercise_id)
    stem = exercise.file.removesuffix(".py")
    spec = tomllib.loads((MUTANTS_DIR / f"{stem}.toml").read_text())
    mutant = next(m for m in spec["mutant"] if m["name"] == mutant_name)
    folder = tmp_path / "learner"
    materialise(exercise_id, mutant, folder)
    return module_from_file(f"learner_{stem}_{mutant_name.replace('-', '_')}", folder / exercise.file)


def check_marked_line(failure: GradingFailure) -> list[str]:
    """The detail's marked line is the table row that carries the marker; returns the lines."""
    lines = str(failure).split("\n")
    marked = failure.detail["marked_line"]
    assert marked is not None and MARK in lines[marked], (marked, str(failure))
    assert sum(MARK in line for line in lines) == 1
    return lines


def test_07_a_float64_uniform_is_a_stream_mistake_named_by_its_dtype(tmp_path, monkeypatch):
    import torch

    from tests import test_07_torch_step as suite

    learner = wrong_version(tmp_path, "07-torch-step", "uniforms-in-the-inputs-dtype")
    monkeypatch.setattr(suite, "speculative_decode_step", lambda: learner.speculative_decode_step)
    failure = failure_of(suite.test_u_equal_to_the_ratio_rejects, torch.float64, 3)
    headline = str(failure).split("\n")[0]
    assert "drew other random numbers than the contract" in headline and "state" in headline, headline
    assert "wrong" not in headline, "the accept decision was right: the headline must not call it wrong"
    notes = failure.detail["notes"]
    assert len(notes) == 1 and "float64" in notes[0] and "dtype=target_probs.dtype" in notes[0], notes
    assert "Exercise 08 is the other way round" in notes[0]
    check_marked_line(failure)


def test_07_a_state_mismatch_is_reported_even_when_the_tokens_differ(tmp_path, monkeypatch):
    import torch

    from tests import test_07_torch_step as suite

    learner = wrong_version(tmp_path, "07-torch-step", "uniforms-in-the-inputs-dtype")
    monkeypatch.setattr(suite, "speculative_decode_step", lambda: learner.speculative_decode_step)
    failure = failure_of(suite.test_all_accepted_adds_a_bonus_token_from_the_last_row, torch.float64)
    assert "the generator's state afterwards differs" in str(failure).split("\n")[0]


def test_08_accepts_after_a_rejection_are_named_not_blamed_on_padding(tmp_path, monkeypatch):
    from tests import test_08_batched_verifier as suite
    from tests.reference import ex08_checks as checks  # where the suite gets the learner's function

    learner = wrong_version(tmp_path, "08-batched-verifier", "counts-accepts-after-a-rejection")
    monkeypatch.setattr(checks, "speculative_step_batched", lambda: learner.speculative_step_batched)
    failure = failure_of(suite.test_worked_example)
    text = str(failure)
    assert "row 2 kept draft 1 after rejecting draft 0:" in text, text
    assert "counts every accept, as a sum does" in text
    assert "padding must be" not in text, "the padding note is a red herring here"
    assert failure.detail["expected"] == [0, -1, -1] and failure.detail["yours"] == [1, 1, -1]
    check_marked_line(failure)


def test_08_the_batch_minimum_note_lists_each_row_in_order(tmp_path, monkeypatch):
    from tests import test_08_batched_verifier as suite
    from tests.reference import ex08_checks as checks  # where the suite gets the learner's function

    learner = wrong_version(tmp_path, "08-batched-verifier", "batch-minimum")
    monkeypatch.setattr(checks, "speculative_step_batched", lambda: learner.speculative_step_batched)
    failure = failure_of(suite.test_worked_example)
    assert "the rows accept [2, 1, 0] here, row by row" in str(failure), str(failure)


def test_08_padding_other_than_minus_one_is_still_named(tmp_path, monkeypatch):
    from tests import test_08_batched_verifier as suite
    from tests.reference import ex08_checks as checks  # where the suite gets the learner's function

    learner = wrong_version(tmp_path, "08-batched-verifier", "padding-with-zero")
    monkeypatch.setattr(checks, "speculative_step_batched", lambda: learner.speculative_step_batched)
    failure = failure_of(suite.test_worked_example)
    assert "the padding must be -1; yours holds [0] there" in str(failure)
    assert "kept draft" not in str(failure)


def test_01_another_random_source_is_named_from_the_draw_count(tmp_path, monkeypatch):
    from tests import test_01_speculative_step as suite

    learner = wrong_version(tmp_path, "01-speculative-step", "draws-from-np-random")
    monkeypatch.setattr(suite, "speculative_step", lambda: learner.speculative_step)
    failure = failure_of(suite.test_worked_example_all_accepted)
    text = str(failure)
    assert ("you drew 1 number from rng, the reference drew 3: is another random source (np.random, random) "
            "in use?") in text, text
    assert "after 1 draw\n" in text and "1 draws" not in text
    assert failure.detail["first_difference"] == 2
    check_marked_line(failure)


def test_01_and_07_matrix_rows_line_up_under_the_first():
    import torch

    from tests.reference.ex01_report import describe_case as case_01
    from tests.reference.ex07_report import describe_case as case_07

    text_01 = case_01([[0.2, 0.8], [0.5, 0.5]], [[0.1, 0.9]], [1], [0.5])
    text_07 = case_07(torch.tensor([[0.1, 0.9]]), torch.tensor([[0.2, 0.8], [0.5, 0.5]]), torch.tensor([1]), 0)
    for text, first in ((text_01, "  p (target) = "), (text_07, "  target_probs (p) = ")):
        lines = text.split("\n")
        row = next(index for index, line in enumerate(lines) if line.startswith(first))
        assert lines[row].index("[[") + 1 == lines[row + 1].index("["), text


def test_the_cli_highlights_the_line_the_detail_names_not_the_marker_text():
    class Workspace:
        palette = Palette(enabled=True)

    message = f"headline\nan unrelated line that quotes {MARK}\nthe row that differs"
    shown = grading_message(Workspace(), message, {"marked_line": 2})
    assert shown[2].startswith("\033[") and not shown[1].startswith("\033["), shown
    assert not any(line.startswith("\033[1;33m") for line in grading_message(Workspace(), message, None))
