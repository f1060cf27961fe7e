"""The per-position "reference's reasoning" table, rendered from a StepTrace (speckata.grading.trace).

One row per emitted token (out: its index in the output), a row without an output index for each
rejected draft, and under each sample the distribution it came from. The learner's token stands
beside the reference's and the first difference is marked. The table also says which of its lines
carries the mark, so the CLI highlights that line without searching the text for the marker.
"""

from __future__ import annotations

from dataclasses import dataclass

from speckata.grading.trace import ACCEPT, REJECT, StepTrace

MARK = "<-- first difference"
REASONING_WIDTH = 46
SHORT_ROW = 8  # values of a long distribution shown before "..."
EXTRA_ROWS = 8  # rows of the learner's tokens past the reference's end shown before a count of the rest
HEADER = ("out", "pos", "drafted", "u", "p/q", "reference", "ref", "yours")


def fmt(value: float, digits: int = 6) -> str:
    """``value`` to ``digits`` significant digits, except that a number which is not whole never
    prints as a whole number (1 - 2e-13 is not "1"): it gets the digits it needs."""
    value = float(value)
    text = f"{value:.{digits}g}"
    while digits < 17 and float(text) != value and float(text).is_integer():
        digits += 1
        text = f"{value:.{digits}g}"
    return text


def digits_apart(values, digits: int = 6) -> int:
    """The fewest significant digits, at least ``digits``, at which values that differ print differently."""
    distinct = {float(v) for v in values}
    while digits < 17 and len({fmt(v, digits) for v in distinct}) < len(distinct):
        digits += 1
    return digits


def fmt_apart(*values: float) -> list[str]:
    """Each value with as many digits as it takes to tell the values apart (η and h, say)."""
    digits = digits_apart(values)
    return [fmt(v, digits) for v in values]


def fmt_row(row, limit: int | None = None) -> str:
    """[a, b, c] to 6 significant digits, or more where two values that differ would print alike;
    past ``limit`` values, the first few and the length."""
    values = [float(v) for v in row]
    if limit is not None and len(values) > limit:
        values, more = values[:SHORT_ROW], f", ... ({len(values)} values)]"
    else:
        more = "]"
    digits = digits_apart(values)
    return "[" + ", ".join(fmt(v, digits) for v in values) + more


def matrix(prefix: str, rows: list[str], more: str = "") -> str:
    """``prefix`` then the rows in brackets, one per line, each aligned under the first row."""
    return prefix + "[" + (",\n" + " " * (len(prefix) + 1)).join(rows) + "]" + more


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def first_difference(expected, got) -> int | None:
    """The first index where the sequences differ, the shorter one's length if one is a prefix of
    the other, or None when they are equal."""
    for index, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return index
    return None if len(expected) == len(got) else min(len(expected), len(got))


@dataclass
class PositionTable:
    lines: list[str]
    first_difference: int | None  # output index of the first token that differs; None: all agree
    marked_line: int | None  # index in ``lines`` of the row that carries MARK

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _row(out="", pos="", drafted="", u="", ratio="", reasoning="", ref="", yours="", mark=False) -> str:
    line = (f"  {out!s:>3}  {pos!s:>3}  {drafted!s:>7}  {u:>10}  {ratio:>10}  {reasoning:<{REASONING_WIDTH}} "
            f"{ref!s:>4}  {yours!s:>5}")
    return (line + "  " + MARK) if mark else line.rstrip()


def _under(text: str) -> str:
    """A line under a row, in the reasoning column."""
    return " " * 47 + text


def reasoning_table(trace: StepTrace, learner_tokens: list | None, rule: str = "p/q",
                    ratio_heading: str = "p/q") -> PositionTable:
    """The table for ``trace`` beside ``learner_tokens`` (None: the learner returned no token list,
    so everything differs). ``rule`` is the accept test's right-hand side as the exercise writes it;
    ``ratio_heading`` heads the column of the number u is compared with (an exercise whose rule is
    not p/q names it otherwise)."""
    learner = list(learner_tokens) if learner_tokens is not None else []
    first = 0 if learner_tokens is None else first_difference(trace.tokens, learner)
    header = list(HEADER)
    header[HEADER.index("p/q")] = ratio_heading
    lines, marked = [_row(*header)], None
    out = 0
    for event in trace.events:
        u = "" if event.u is None else fmt(event.u)
        if event.kind == REJECT:
            lines.append(_row("", event.position, event.token, u, fmt(event.ratio), f"u >= {rule}: reject token {event.token}"))
            continue
        if out == first:
            marked = len(lines)
        yours = learner[out] if out < len(learner) else "-"
        if event.kind == ACCEPT:
            lines.append(_row(out, event.position, event.token, u, fmt(event.ratio), f"u < {rule}: accept",
                              event.token, yours, out == first))
        else:
            lines.append(_row(out, event.position, "", u, "", f"sample {event.source}", event.token, yours, out == first))
            lines.append(_under(f"from {fmt_row(event.distribution, limit=12)}"))
        out += 1
    for extra in range(out, min(len(learner), out + EXTRA_ROWS)):
        if extra == first:
            marked = len(lines)
        lines.append(_row(extra, "", "", "", "", "(the reference stopped before this)", "-", learner[extra], extra == first))
    if len(learner) > out + EXTRA_ROWS:
        lines.append(f"  ... and {len(learner) - out - EXTRA_ROWS:,} more of yours past the reference's end")
    return PositionTable(lines, first, marked)
