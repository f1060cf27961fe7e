"""`kata grade`'s summary: one row per learner's folder, one column per exercise (CSV and Markdown),
and one line per folder on stdout; and the folders' names under --out, none of them a summary's."""

from __future__ import annotations

import csv
from pathlib import Path

from speckata.grading.states import SOLVED

MARKS = {"solved": "✅", "failing": "❌", "not attempted": "⬜", "missing": "·", "error": "⚠️", "incomplete": "❌"}


def write_summaries(out: Path, gradings, exercises, isolation: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "summary.csv", "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(["learner", *[e.id for e in exercises], "solved"])
        for grading in gradings:
            states = [grading.states[e.id] for e in exercises]
            writer.writerow([grading.name, *states, states.count(SOLVED)])
    numbers = [e.id.split("-", 1)[0] for e in exercises]
    lines = ["| learner | " + " | ".join(numbers) + " | solved |", "|---" * (len(exercises) + 2) + "|"]
    for grading in gradings:
        states = [grading.states[e.id] for e in exercises]
        cells = [MARKS.get(state, "❔") for state in states]
        lines.append(f"| {grading.name.replace('|', '/')} | " + " | ".join(cells)
                     + f" | {states.count(SOLVED)}/{len(exercises)} |")
    legend = ", ".join(f"{mark} {state}" for state, mark in MARKS.items() if state != "incomplete")
    lines += ["", f"Exercises by number ({', '.join(e.id for e in exercises)}). {legend}.", "",
              f"Learner code ran in {isolation}."]
    (out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def folder_line(grading, exercises) -> str:
    states = {e.id: grading.states[e.id] for e in exercises}
    solved = sum(s == SOLVED for s in states.values())
    failing = [i.split("-", 1)[0] for i, s in states.items() if s in ("failing", "incomplete")]
    line = f"  {grading.name:<24} {solved:>2}/{len(exercises)} solved"
    if failing:
        line += f"; failing: {' '.join(failing)}"
    if grading.error:
        line += f"; ERROR: {grading.error.splitlines()[0]}"
    return line


SUMMARY_FILES = ("summary.csv", "summary.md")  # written into --out beside the folders' own


def output_names(folders: list[Path]) -> list[str]:
    """Each folder's name, made distinct: ``a/exercises`` and ``b/exercises`` become a-exercises,
    b-exercises; a folder named like a summary file (``summary.md``) becomes summary.md-2, so no
    folder's results can take the summary's place."""
    bases = [f.name or "folder" for f in folders]
    names = [f"{f.parent.name}-{b}" if bases.count(b) > 1 else b for f, b in zip(folders, bases)]
    taken = {name.lower() for name in SUMMARY_FILES}  # lower case: a case-insensitive file system
    distinct = []
    for name in names:
        candidate, number = name, 1
        while candidate.lower() in taken:
            number += 1
            candidate = f"{name}-{number}"
        taken.add(candidate.lower())
        distinct.append(candidate)
    return distinct
