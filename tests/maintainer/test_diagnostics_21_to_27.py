"""The first message names the cause on exercises 21 to 27 (issue 39, items 3, 4 and 6).

Wrong versions a learner writes, each an edited copy of the solution (``edited_solution``):
- the order (item 3): graded as `kata check` grades, the whole suite with -x, so the test that
  reports the mistake first is the one that names it, a fixed case of the task where it lives;
- the messages (item 4): the suite's own test runs in-process with the wrong function, and the
  failure's first line names the function and the step that differs;
- the contracts (item 6): the table shows what the accept test compared; the texts say what the
  grader asks.
"""

from __future__ import annotations

import shutil

import pytest

from speckata.grading.learner_code import install_finder
from speckata.grading.suite_run import run_suite
from speckata.manifest import exercise_by_id, repo_root
from tests.maintainer.wrong_learners import edited_solution, failure_of


@pytest.fixture(autouse=True)
def exercise_imports():
    """Exercise 27's solution imports 25 and 26 from the graded folder, as the learner's does."""
    install_finder()


def first_failure(tmp_path, exercise_id: str, *edits: tuple[str, str]) -> tuple[str, str]:
    """(test name, first line of its message) of the first failure `kata check` (-x) shows on the edited solution."""
    folder = tmp_path / "graded"
    shutil.copytree(repo_root() / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / exercise_by_id(exercise_id).file
    source = path.read_text()
    for find, replace in edits:
        assert source.count(find) == 1, f"{find!r} must occur once in solutions/{path.name}"
        source = source.replace(find, replace)
    path.write_text(source)
    run = run_suite([exercise_by_id(exercise_id).tests, "-x"], folder, options=["--test-timeout=120"], timeout=600)
    failed = [t for t in (run.report or {}).get("tests", []) if t["outcome"] == "failed"]
    assert run.returncode == 1 and failed, run.tail(40)
    return failed[0]["nodeid"].split("::", 1)[1], failed[0]["message"].splitlines()[0]


# Item 3: each task's fixed cases, before a later task uses it --------------------------------------

def test_22_a_swapped_fusion_is_reported_by_task_2s_worked_example(tmp_path):
    test, first = first_failure(tmp_path, "22-eagle-head", ("torch.cat([target.token_embedding(tokens), features], dim=-1)",
                                                            "torch.cat([features, target.token_embedding(tokens)], dim=-1)"))
    assert test == "test_worked_example_features", test
    assert first.startswith("eagle_features concatenated (features, embedding): EAGLE's fusion reads the embedding FIRST"), first


def test_22_features_without_the_decoder_layer_are_reported_in_task_2_not_by_the_drafts(tmp_path):
    test, first = first_failure(tmp_path, "22-eagle-head", (
        "    return head.layer(head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1)))",
        "    return head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1))"))
    assert test == "test_worked_example_features", test
    assert first.startswith("eagle_features on (1, 3, 128) differs from the reference"), first


def test_23_p_for_every_row_is_reported_by_task_2s_worked_example(tmp_path):
    every_row = ("    return next_token_probabilities(model.exit_logits(hidden[-(len(drafts) + 1) :]), temperature)",
                 "    return next_token_probabilities(model.exit_logits(hidden), temperature)")
    test, first = first_failure(tmp_path, "23-early-exit", every_row)
    assert test == "test_worked_example_verify", test
    assert first == "early_exit_verify's p must be a tensor of shape (3, 96); got (23, 96).", first


# Item 4: the formula with the case's numbers, the step named in the first line -----------------------

def wrong_27(tmp_path, monkeypatch, *edits):
    from tests import test_27_adaptive_draft_length as suite

    learner = edited_solution(tmp_path, "27-adaptive-draft-length", *edits)
    monkeypatch.setattr(suite, "learner_function", lambda exercise, name: getattr(learner, name))
    return suite


def test_27_update_acceptance_with_the_weights_swapped_is_named_in_the_first_line(tmp_path, monkeypatch):
    suite = wrong_27(tmp_path, monkeypatch, ("    return beta * (sum(accepted) / tested) + (1 - beta) * ema",
                                             "    return (1 - beta) * (sum(accepted) / tested) + beta * ema"))
    lines = str(failure_of(suite.test_update_acceptance_blends_the_rounds_kept_over_tested_drafts,
                           (0.8, [1, 0], 2, 0.25))).splitlines()
    assert lines[0].startswith("update_acceptance(0.8, [1, 0], 2, 0.25) returned"), lines[0]
    assert lines[0].endswith("check the blend's weights: that is beta·ema + (1 - beta)·rate; beta weighs the round's "
                             "rate."), lines[0]
    assert "  beta·rate + (1 - beta)·ema = 0.25·0.333333 + 0.75·0.8 = 0.683333" in lines, lines


def test_27_update_acceptance_counting_k_tested_drafts_per_row_is_named_in_the_first_line(tmp_path, monkeypatch):
    suite = wrong_27(tmp_path, monkeypatch, ("    tested = sum(min(a + 1, k) for a in accepted)",
                                             "    tested = k * len(accepted)"))
    first = str(failure_of(suite.test_update_acceptance_blends_the_rounds_kept_over_tested_drafts,
                           (0.5, [2, 0, 1], 2, 0.5))).splitlines()[0]
    assert first.startswith("update_acceptance(0.5, [2, 0, 1], 2, 0.5) returned"), first
    assert first.endswith("check the tested count: that counts k drafts per row; a row that rejected tested "
                          "min(a + 1, k)."), first


def test_27_next_gamma_reading_the_next_table_row_is_named_in_the_first_line(tmp_path, monkeypatch):
    suite = wrong_27(tmp_path, monkeypatch, (
        '    row = max(int(np.searchsorted(np.asarray(batch_sizes), active_rows, side="right")) - 1, 0)',
        '    row = min(int(np.searchsorted(np.asarray(batch_sizes), active_rows, side="left")), len(batch_sizes) - 1)'))
    lines = str(failure_of(suite.test_next_gamma_on_the_toy_table, 0.9, 3)).splitlines()
    assert lines[0].startswith("next_gamma(0.9, 3, "), lines[0]
    assert "check the table row: g = " in lines[0] and "is the best of row 2 (batch size 4); 3 active rows read row 1 " \
           "(batch size 2)." in lines[0], lines[0]
    assert lines[1] == "  table row 1 (batch_sizes[1] = 2: the largest batch size <= 3 active rows)", lines


def wrong_24(tmp_path, monkeypatch, *edits):
    from tests import test_24_tree_shapes as suite

    learner = edited_solution(tmp_path, "24-tree-shapes", *edits)
    monkeypatch.setattr(suite, "learner", lambda name: getattr(learner, name))
    return suite


def test_24_a_shape_that_is_not_the_best_is_shown_beside_a_best_one(tmp_path, monkeypatch):
    suite = wrong_24(tmp_path, monkeypatch, ("        for size in range(1, nodes + 1):  # this child's subtree",
                                             "        for size in range(nodes, nodes + 1):  # this child's subtree"))
    lines = str(failure_of(suite.test_optimal_tree_worked_example)).splitlines()
    assert lines[0] == ("optimal_tree got the worked example (best: two children and a grandchild, 2.0) wrong: its shape "
                        "is not the best (expected tokens per pass 1.875; the best shape's 2.0)."), lines[0]
    assert lines[2:6] == ["  yours:     [(0,), (0, 0), (0, 0, 0)]", "    expected tokens per pass 1.875",
                          "  the best:  [(0,), (1,), (0, 0)]", "    expected tokens per pass 2.0"], lines


def test_24_dynamic_tree_expanding_other_nodes_shows_both_confidences(tmp_path, monkeypatch):
    suite = wrong_24(tmp_path, monkeypatch, ("        chosen = sorted(range(len(layer)), key=lambda i: (-layer[i][0], i))[:top_k]",
                                             "        chosen = list(range(len(layer)))[:top_k]"))
    lines = str(failure_of(suite.test_dynamic_tree_replays_the_reference, 2, 3, 6)).splitlines()
    assert lines[0].startswith("dynamic_tree expanded other nodes than the contract (seed 0): call "), lines[0]
    assert " of draft_probs expands (" in lines[0] and "(confidence 0." in lines[0] and "; the contract's expands (" in lines[0]
    assert "  yours, from call " in "\n".join(lines) and "with each path's confidence:" in "\n".join(lines), lines


# Item 6: what the accept test compared; the contracts the grader checks, in the text -----------------

def test_23_the_round_table_shows_p_over_q_beside_u(tmp_path, monkeypatch):
    from tests import test_23_early_exit as suite
    from tests.reference import ex23_checks

    learner = edited_solution(tmp_path, "23-early-exit", ("        if draw_uniform(generator) < float(p[i, x] / q[i, x]):",
                                                          "        if draw_uniform(generator) < float(q[i, x] / p[i, x]):"))
    monkeypatch.setattr(ex23_checks, "learner", lambda name: getattr(learner, name))
    lines = str(failure_of(suite.test_sampled_on_the_committed_target_matches_the_reference, "shipped", 3)).splitlines()
    header = next(line for line in lines if line.split()[:2] == ["round", "drafts"])
    assert header.split() == ["round", "drafts", "crop", "decision", "token", "u", "p/q", "out", "yours"], header
    tested = [line.split() for line in lines[lines.index(header) + 1:] if " accept " in line or " reject " in line]
    assert tested and all(len(row) >= 4 and float(row[-4 if " accept " in " ".join(row) else -1]) >= 0 for row in tested)


def test_texts_state_the_contracts_the_grader_checks():
    root = repo_root() / "exercises"
    text_22 = (root / "ex22_eagle_head.py").read_text()
    task_3 = text_22[text_22.index("Task 3: the loss"):text_22.index("Task 4:")]
    assert "width the target's (target.width)" in task_3 and '"width"' in task_3, task_3
    assert "in eagle_loss,\n    predicted and following whose last axis is not target.width" in text_22
    text_24 = (root / "ex24_tree_shapes.py").read_text()
    assert "max_depth levels of len(acceptance) children" not in text_24
    assert "K + K**2 + ...\n                 + K**max_depth nodes" in text_24
