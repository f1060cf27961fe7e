"""What one grading run saw, test by test: the summary it prints and the report file it writes.

The report file (``--report-json``) is the only thing the kata command and the gates read:
``{"target", "streams", "states", "tests": [{"nodeid", "exercise", "outcome", "message", "detail", "task", "tasks"}]}``
("streams": the ``--streams`` seed, or null for the committed cases; "detail" only where a report
carries one; "task" and "tasks" only for tests marked with a task).
"""

from __future__ import annotations

import json
from pathlib import Path

from speckata.grading import states as S
from speckata.grading.bounded_text import cut_detail, cut_message
from speckata.grading.streams import streams_seed
from speckata.grading.target import shown_path, target_dir
from speckata.manifest import exercise_for_test_file, load_manifest


def _message(report) -> str:
    if report.passed:
        return ""
    return str(report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr)


def unsolved_prerequisites(exercise, states: dict[str, str]) -> list[str]:
    """The earlier exercises a failing one imports that this run saw unsolved (the likelier culprit)."""
    if states[exercise.id] != S.FAILING:
        return []
    return [r for r in exercise.requires if states.get(r) not in (S.SOLVED, S.NOT_RUN)]


class GradingRecord:
    def __init__(self):
        self.exercise_of: dict[str, str] = {}  # test node id -> exercise id
        self.expected: dict[str, int] = {}  # exercise id -> tests selected in this run
        self.task_of: dict[str, int] = {}  # test node id -> its task number (@pytest.mark.task(N))
        self.tasks: dict[str, int] = {}  # exercise id -> its number of tasks (the highest N marked)
        self.outcomes: dict[str, dict[str, str]] = {}  # exercise id -> node id -> outcome
        self.tests: list[dict] = []

    def expect(self, items) -> None:
        exercise_of_file: dict = {}
        for item in items:
            if item.path not in exercise_of_file:  # the manifest lookup once per file, not once per test
                exercise_of_file[item.path] = exercise_for_test_file(item.path)
            exercise = exercise_of_file[item.path]
            if exercise:
                self.exercise_of[item.nodeid] = exercise.id
                self.expected[exercise.id] = self.expected.get(exercise.id, 0) + 1
                marker = item.get_closest_marker("task")
                if marker is not None and marker.args:
                    self.task_of[item.nodeid] = int(marker.args[0])
                    self.tasks[exercise.id] = max(self.tasks.get(exercise.id, 0), int(marker.args[0]))

    def _put(self, nodeid: str, outcome: str, message: str, detail=None) -> None:
        exercise = self.exercise_of.get(nodeid)
        if exercise:
            self.outcomes.setdefault(exercise, {})[nodeid] = outcome
        entry = {"nodeid": nodeid, "exercise": exercise, "outcome": outcome, "message": cut_message(message)}
        if nodeid in self.task_of:
            entry["task"], entry["tasks"] = self.task_of[nodeid], self.tasks[exercise]
        if detail is not None:
            entry["detail"] = cut_detail(detail)
        self.tests.append(entry)

    def add(self, report) -> None:
        """A test phase's report: the call phase always counts; setup only when it did not pass."""
        if report.when == "call" or (report.when == "setup" and not report.passed):
            kind = getattr(report, "speckata_kind", "")
            outcome = S.NOT_ATTEMPTED if kind == "not attempted" else report.outcome
            self._put(report.nodeid, outcome, _message(report), getattr(report, "speckata_detail", None))

    def add_stopped(self, nodeid: str, message: str) -> None:
        self._put(nodeid, S.FAILED, message)

    def states(self) -> dict[str, str]:
        return {
            exercise.id: S.exercise_state(self.expected.get(exercise.id, 0),
                                          list(self.outcomes.get(exercise.id, {}).values()))
            for exercise in load_manifest()
        }

    def any_unfinished(self) -> bool:
        return any(state in (S.FAILING, S.INCOMPLETE) for state in self.states().values())

    def write(self, path: Path, target: Path) -> None:
        data = {"target": str(target), "streams": streams_seed(), "states": self.states(), "tests": self.tests}
        path.write_text(json.dumps(data, indent=1, default=str))

    def summary_lines(self, stopped: dict[str, str]) -> list[str]:
        """A section title, then one indented line per graded exercise and notes."""
        states = self.states()
        graded = [e for e in load_manifest() if states[e.id] != S.NOT_RUN]
        if not graded:
            return []
        solved = sum(states[e.id] == S.SOLVED for e in graded)
        lines = [f"speckata: {solved} of {len(graded)} exercises solved ({shown_path(target_dir())}/)"]
        notes = []
        for exercise in graded:
            outcomes = list(self.outcomes.get(exercise.id, {}).values())
            skipped = outcomes.count(S.SKIPPED)
            counted = self.expected[exercise.id] - skipped
            detail = f"{outcomes.count(S.PASSED)}/{counted} tests pass"
            detail += f" ({skipped} skipped here: the grader's choice, e.g. no GPU)" if skipped else ""
            lines.append(f"  {states[exercise.id]:<14} {exercise.id:<32} {detail}")
            if exercise.id in stopped:
                notes.append(f"  note: {exercise.id} was stopped: your code did not return in "
                             f"{stopped[exercise.id]}; its later tests were not run")
            elif unsolved_prerequisites(exercise, states):
                first = unsolved_prerequisites(exercise, states)[0]
                notes.append(f"  note: {exercise.id} uses {first}, which is not solved here: solve {first[:2]} first")
            elif S.is_partly_written(outcomes):
                notes.append(f"  note: {exercise.id} is partly written: some tests still raise NotImplementedError")
            elif states[exercise.id] == S.INCOMPLETE:
                notes.append(f"  note: {exercise.id} is incomplete: {self.expected[exercise.id] - len(outcomes)} "
                             "of its tests never reported, so it is not solved")
        return lines + notes
