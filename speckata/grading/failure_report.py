"""A failure report: the text a learner reads and, beside it, the structured result tools read.

Report modules in tests/reference build one of these from lines and a PositionTable
(speckata.grading.position_table) and raise ``report.failure()``: a GradingFailure whose
``detail`` holds the headline, the output index of the first difference and the line of the
message that marks it. The plugin writes ``detail`` to its --report-json file, and the ``kata``
CLI highlights that line from there, never by searching the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from speckata.grading.failures import GradingFailure
from speckata.grading.position_table import PositionTable


def plain_tokens(tokens) -> list[int] | None:
    """``tokens`` as a JSON-ready list of ints, or None when they are not a list of plain ints."""
    if isinstance(tokens, (list, tuple)) and all(type(t) is int for t in tokens):
        return list(tokens)
    return None


@dataclass
class FailureReport:
    headline: str
    lines: list[str] = field(default_factory=list)  # everything after the headline
    expected: list[int] | None = None
    yours: list[int] | None = None
    notes: list[str] = field(default_factory=list)  # diagnoses, also shown in the text as "Note: ..."
    first_difference: int | None = None
    table_line: int | None = None  # index in lines of the marked table row

    def add(self, *lines: str) -> None:
        for line in lines:
            self.lines.extend(line.split("\n"))

    def add_table(self, table: PositionTable) -> None:
        if table.marked_line is not None:
            self.table_line = len(self.lines) + table.marked_line
        self.first_difference = table.first_difference
        self.lines.extend(table.lines)

    def add_notes(self, notes: list[str]) -> None:
        self.notes.extend(notes)
        self.add(*(f"Note: {note}" for note in notes))

    def prepend(self, *lines: str) -> None:
        """Put ``lines`` between the headline and the body (the case of a wrapping check)."""
        before = [part for line in lines for part in line.split("\n")]
        self.lines[:0] = before
        if self.table_line is not None:
            self.table_line += len(before)

    @property
    def text(self) -> str:
        return "\n".join([self.headline, *self.lines])

    def detail(self) -> dict:
        return {
            "headline": self.headline,
            "first_difference": self.first_difference,
            "marked_line": None if self.table_line is None else 1 + self.headline.count("\n") + self.table_line,
            "expected": self.expected,
            "yours": self.yours,
            "notes": list(self.notes),
        }

    def failure(self) -> GradingFailure:
        return GradingFailure(self.text, detail=self.detail())
