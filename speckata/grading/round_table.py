"""One renderer for the per-round table of the decoders (exercises 10 and 12): the reference's rounds.

A report module turns its reference's trace into `TableRound`s (the round's own cells, then one
line per decision with the token it emits, if any) and calls `render_rounds`. The renderer numbers
rounds from 1, as the exercise texts do; sizes every column to what it shows, so a long cell never
shifts the others; shows a window of rounds around the first differing new token; and puts the
learner's tokens beside the reference's. It returns a PositionTable (the same result as the
per-position renderer), whose `marked_line` a FailureReport passes on for the CLI to highlight.

>>> rounds = [TableRound(["[0, 2]"], [(["accept", "2"], "2"), (["bonus", "1"], "1")]),
...           TableRound(["[1, 0]"], [(["reject", "0"], None), (["residual", "2"], "2")])]
>>> print(render_rounds([Column("fed", "<")], [Column("decision", "<"), Column("token")], rounds,
...                     yours=["2", "1", "0"], first=2).text)
  round  fed     decision  token  out  yours
      1  [0, 2]  accept        2    2      2
                 bonus         1    1      1
      2  [1, 0]  reject        0
                 residual      2    2      0  <-- first difference
"""

from __future__ import annotations

from dataclasses import dataclass

from speckata.grading.position_table import MARK, PositionTable


@dataclass(frozen=True)
class Column:
    title: str
    align: str = ">"  # ">" right (numbers), "<" left (text)
    limit: int = 28  # a longer cell is shortened, so one long tail cannot push the table apart


@dataclass
class TableRound:
    cells: list[str]  # one per round column, shown on the round's first line
    decisions: list[tuple[list[str], str | None]]  # per decision: its cells, and the token it emits (None: none)


def shorten(cell: str, limit: int) -> str:
    return cell if len(cell) <= limit else cell[: limit - 3] + "..."


def window(rounds: list[TableRound], first: int | None, max_rounds: int) -> int:
    """The index of the first round shown: the round emitting new token `first` sits mid-window."""
    out = 0
    for index, round_ in enumerate(rounds):
        out += sum(emits is not None for _, emits in round_.decisions)
        if first is not None and first < out:
            return max(0, index - max_rounds // 2)
    return 0 if first is None else max(0, len(rounds) - max_rounds)


def render_rounds(round_columns: list[Column], decision_columns: list[Column], rounds: list[TableRound],
                  yours: list[str] | None = None, first: int | None = None, max_rounds: int = 8) -> PositionTable:
    """The table; `yours` (the learner's new tokens, as shown) adds a column, `first` marks a line."""
    columns = [Column("round"), *round_columns, *decision_columns, Column("out")] + ([Column("yours")] if yours is not None else [])
    start = window(rounds, first, max_rounds)
    out = sum(emits is not None for r in rounds[:start] for _, emits in r.decisions)
    lines, marks = [], []
    for number, round_ in enumerate(rounds[start : start + max_rounds], start=start + 1):
        head = [str(number), *round_.cells]
        for cells, emits in round_.decisions:
            tail = [emits or ""]
            if yours is not None:
                tail.append((yours[out] if out < len(yours) else "-") if emits is not None else "")
            lines.append(head + cells + tail)
            marks.append(emits is not None and out == first)
            head = [""] * len(head)
            out += emits is not None
    shown = [[shorten(cell, column.limit) for cell, column in zip(line, columns)] for line in lines]
    widths = [max([len(column.title)] + [len(line[i]) for line in shown]) for i, column in enumerate(columns)]
    rows, marked_line = ["  " + "  ".join(f"{c.title:{c.align}{w}}" for c, w in zip(columns, widths)).rstrip()], None
    for line, marked in zip(shown, marks):
        row = "  " + "  ".join(f"{cell:{c.align}{w}}" for cell, c, w in zip(line, columns, widths))
        if marked:
            marked_line = len(rows)
        rows.append(row + "  " + MARK if marked else row.rstrip())
    if start + max_rounds < len(rounds):
        rows.append(f"  ... {len(rounds) - start - max_rounds} more rounds")
    return PositionTable(rows, first, marked_line)
