"""Every grading suite numbers its tasks as its exercise text does, so a report's "Task 2 of 3" finds its task.

A suite is cut into sections by `# Task N: title` comments; every test carries exactly one
`@pytest.mark.task(N)`, N being the section it sits under (a task may continue in a later section
with the same title: 09, 11 and 12 number their tasks per function and grade bad input at the end).
The numbers run 1..M without gaps, and the exercise text (the stub's docstring) lists exactly
"Task 1" .. "Task M", in order, with the suite's titles (whitespace and case aside; a text that
heads a task with a function's signature, as 09, 11 and 12 do, is compared by the function's name).
Read from the source, not from a pytest run: the gate needs no target and sees every test.
"""

from __future__ import annotations

import ast
import re

import pytest

from speckata.manifest import load_manifest, repo_root

SECTION = re.compile(r"^# Task (\d+): (.*?)[\s-]*$")
TEXT_TASK = re.compile(r"^\s*Task (\d+): (.+)$")
SIGNATURE = re.compile(r"^([A-Za-z_]\w*)\(")


def normalised(title: str) -> str:
    title = title.strip()
    signature = SIGNATURE.match(title)
    return signature.group(1) if signature else " ".join(title.lower().split())


def suite_sections(source: str) -> list[tuple[int, int, str]]:
    """(line number, task number, title) of every `# Task N: title` comment, in file order."""
    return [(index, int(found.group(1)), found.group(2))
            for index, line in enumerate(source.splitlines(), start=1) if (found := SECTION.match(line))]


def task_marks(function: ast.FunctionDef) -> list[ast.expr]:
    """The decorators @pytest.mark.task(...) of one test function."""
    return [d for d in function.decorator_list
            if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.mark.task"]


def suite_problems(source: str) -> tuple[list[str], dict[int, str]]:
    """What is wrong with one suite's markers and sections, and its titles by task number."""
    sections, problems, titles = suite_sections(source), [], {}
    for _, number, title in sections:
        if titles.setdefault(number, title) != title and normalised(titles[number]) != normalised(title):
            problems.append(f"task {number} heads two sections with different titles: {titles[number]!r}, {title!r}")
    tree = ast.parse(source)
    if any("task" in ast.unparse(node) for node in tree.body if isinstance(node, ast.Assign)
           and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)):
        problems.append("pytestmark marks a task for the whole module: mark each test instead")
    marked = set()
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        if not function.name.startswith("test_"):
            continue
        first_line = min([function.lineno] + [d.lineno for d in function.decorator_list])
        section = max((s for s in sections if s[0] < first_line), default=None)
        marks = task_marks(function)
        if len(marks) != 1:
            problems.append(f"{function.name} carries {len(marks)} task markers (one wanted)")
            continue
        args = marks[0].args
        if marks[0].keywords or len(args) != 1 or not (isinstance(args[0], ast.Constant) and type(args[0].value) is int):
            problems.append(f"{function.name}: write @pytest.mark.task(N) with N a literal int, not {ast.unparse(marks[0])}")
            continue
        number = args[0].value
        marked.add(number)
        if section is None or section[1] != number:
            where = f"the section '# Task {section[1]}'" if section else "no '# Task N:' section"
            problems.append(f"{function.name} is marked task {number} but sits under {where}")
    if marked != set(range(1, len(marked) + 1)):
        problems.append(f"the task numbers of the tests are {sorted(marked)}, not 1..{len(marked)} without gaps")
    if set(titles) != marked:
        problems.append(f"sections number tasks {sorted(titles)}, the tests' markers {sorted(marked)}")
    return problems, titles


def text_problems(docstring: str, titles: dict[int, str]) -> list[str]:
    """What the exercise text gets wrong against the suite's tasks (titles by number)."""
    listed = [(int(found.group(1)), found.group(2)) for line in docstring.splitlines() if (found := TEXT_TASK.match(line))]
    problems = []
    if [number for number, _ in listed] != list(range(1, len(titles) + 1)):
        problems.append(f"the text lists tasks {[n for n, _ in listed]}; the suite has tasks 1..{len(titles)}")
    for number, title in listed:
        if number in titles and normalised(title) != normalised(titles[number]):
            problems.append(f"Task {number} is {title!r} in the text but {titles[number]!r} in the suite")
    return problems


@pytest.mark.parametrize("exercise", load_manifest(), ids=lambda e: e.id)
def test_suite_and_text_number_the_same_tasks(exercise):
    suite = (repo_root() / exercise.tests).read_text()
    docstring = ast.get_docstring(ast.parse((repo_root() / "exercises" / exercise.file).read_text())) or ""
    problems, titles = suite_problems(suite)
    problems += text_problems(docstring, titles)
    assert not problems, f"{exercise.tests} / exercises/{exercise.file}:\n  " + "\n  ".join(problems)
