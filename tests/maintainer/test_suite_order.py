"""A suite runs its fixed cases first, its generated cases next, its statistical and cost tests last
(speckata/grading/ordering.py), so `kata check -x` shows a wrong answer before any slow test starts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from speckata.grading.completion_guard import GUARDED_PID
from speckata.manifest import exercise_by_id, repo_root

SUITES = ["tests/test_01_speculative_step.py", "tests/test_08_batched_verifier.py", "tests/test_12_cross_tokenizer.py"]
LAST = {
    "tests/test_01_speculative_step.py": ["test_random_cases_match_the_reference[100]", "test_first_token_is_distributed_as_p"],
    "tests/test_08_batched_verifier.py": [
        "test_the_number_of_operations_does_not_grow_with_the_batch_or_gamma",
        "test_no_tensor_as_large_as_the_inputs_is_built",
        "test_the_token_at_every_position_is_distributed_as_p",
    ],
    "tests/test_12_cross_tokenizer.py": ["test_verify_emits_tokens_distributed_as_p", "test_generated_text_is_distributed_as_the_target"],
}


def collected() -> list[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "--target=solutions", *SUITES],
                         cwd=repo_root(), capture_output=True, text=True, timeout=300, check=False)
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_slow_tests_run_last_and_each_file_stays_together():
    nodes = collected()
    files = [node.split("::")[0] for node in nodes]
    assert files == sorted(files, key=SUITES.index), "a file's tests were interleaved with another file's"
    for suite, last in LAST.items():
        names = [node.split("::")[1] for node in nodes if node.startswith(suite)]
        assert names[-len(last):] == last, f"{suite} ends with {names[-len(last):]}, not {last}"
        generated = [i for i, name in enumerate(names) if "random" in name or "generated" in name]
        fixed = [i for i, name in enumerate(names) if "bad_input" in name or "worked_example" in name]
        assert max(fixed) < min(generated), f"{suite}: a fixed case runs after a generated one"


# Exercises 21 to 27 (issue 39): each task's fixed cases run in task order, so a task is tested on its own
# before a later task's test calls it; and a task with generated cases has fixed ones too, except a task
# that only replays the earlier ones on random inputs (it adds no function of its own).
TASK_ORDER_SUITES = [exercise_by_id(f"{n}-{name}").tests for n, name in (
    (21, "medusa-heads"), (22, "eagle-head"), (23, "early-exit"), (24, "tree-shapes"), (25, "ragged-batch"),
    (26, "serving-crossover"), (27, "adaptive-draft-length"))]
REPLAY_ONLY_TASKS = {"tests/test_25_ragged_batch.py": {6}, "tests/test_26_serving_crossover.py": {4}}


class TaskTiers:
    """Records (file, test, task, tier) of every collected item, in the order the suite runs them."""

    def __init__(self):
        self.items = []

    def pytest_collection_finish(self, session):
        from speckata.grading.ordering import tier

        for item in session.items:
            tasks = [mark.args[0] for mark in item.iter_markers("task")]
            self.items.append((item.nodeid.split("::")[0], item.name, tasks[0] if tasks else None, tier(item)))


def test_21_to_27_run_each_tasks_fixed_cases_in_task_order(monkeypatch):
    recorder = TaskTiers()
    # A collection inside this process must not fork the completion guard: in a worker of pytest -n the
    # fork's child would go on running the worker's tests while the parent waits for it (a hang).
    monkeypatch.setenv(GUARDED_PID, str(os.getpid()))
    assert pytest.main(["--co", "-q", "-p", "no:cacheprovider", "--target=solutions", *TASK_ORDER_SUITES],
                       plugins=[recorder]) == 0
    for suite in TASK_ORDER_SUITES:
        items = [item for item in recorder.items if item[0] == suite]
        fixed = [task for _, _, task, tier in items if tier == 0]
        assert fixed == sorted(fixed), f"{suite}: a task's fixed case runs after a later task's: {fixed}"
        generated = {task for _, _, task, tier in items if tier == 1}
        missing = generated - set(fixed) - REPLAY_ONLY_TASKS.get(suite, set())
        assert not missing, f"{suite}: tasks {sorted(missing)} have generated cases and no fixed case before them"
