"""`kata new NN-some-name "Title"`: a new exercise's pieces, written from templates (rustlings' `dev new`).

CONTRIBUTING.md ("Adding an exercise") lists the pieces; each has one template in
speckata/templates/ (its README lists the placeholders). The command appends the manifest entry,
writes the stub, the solution, the grading suite, the independent reference, the mutants, the
theory page and the notebook source, adds the exercise's row to the README's ladder table, and
writes the notebook unexecuted (the build executes it once the solution exists). It refuses an id
that is malformed or taken, and never overwrites a file: nothing is written unless all of it can be.

The skeleton is a verify rule (p, q, draft, rng -> tokens) with one task per function. Until the
author writes them, the stub grades "not attempted" and the solution, the reference, the worked
examples and the mutants are placeholders that fail their gates on purpose: a skeleton that
passed the solutions or mutant gate would prove nothing.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from speckata.cli.workspace import UsageProblem, Workspace
from speckata.manifest import DIFFICULTIES, ID_PATTERN

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
MANIFEST = "speckata/manifest.toml"
TRACK_PATTERN = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
# One pass over a template: a block repeated per function, or a single placeholder.
TEMPLATE_PART = re.compile(r"^\{\{for function\}\}\n(?P<body>.*?)^\{\{end\}\}\n|\{\{(?P<name>\w+)\}\}",
                           re.DOTALL | re.MULTILINE)
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
LADDER_ROW = re.compile(r"^\| `(\d\d)-[^`]*` \|")


@dataclass(frozen=True)
class Piece:
    template: str  # file name in speckata/templates/
    path: str  # where it is written, relative to the repository root (placeholders filled)
    what: str  # one line for the list the command prints


NOTEBOOK_SOURCE = "notebooks/sources/{{id}}.py"
NOTEBOOK = "notebooks/{{id}}.ipynb"  # no template: jupytext writes it from the source, unexecuted

PIECES = (
    Piece("stub.py.template", "exercises/{{module}}.py", "the stub: its docstring is the exercise text"),
    Piece("solution.py.template", "solutions/{{module}}.py", "the reference solution (raises until written)"),
    Piece("suite.py.template", "tests/test_{{snake}}.py", "the grading suite: one task per function"),
    Piece("reference.py.template", "tests/reference/ex{{number}}_reference.py",
          "the independent reference, recording trace events"),
    Piece("mutants.toml.template", "tests/mutants/{{module}}.toml", "three placeholder mutants to replace"),
    Piece("theory.md.template", "theory/{{id}}.md", "the theory page, with a doctest block"),
    Piece("notebook.py.template", NOTEBOOK_SOURCE, "the notebook source, running the learner's functions"),
)


def add_parser(commands) -> None:
    """Register `kata new` with the CLI's subcommands."""
    new = commands.add_parser(
        "new", help="maintainers: write a new exercise's pieces from templates",
        description="Write the pieces of a new exercise NN-some-name from speckata/templates/: the manifest "
                    "entry, stub, solution, grading suite, independent reference, mutants, theory page and "
                    "notebook source (CONTRIBUTING.md, 'Adding an exercise'). Never overwrites a file.",
    )
    new.add_argument("id", help="NN-some-name: two digits (the order), then lowercase words joined by '-'")
    new.add_argument("title", help="the exercise's title, as the ladder shows it")
    new.add_argument("--track", help="e.g. numpy, torch, end-to-end (default: the track of the exercise before it)")
    new.add_argument("--difficulty", choices=DIFFICULTIES, default="medium", help="default: medium")
    new.add_argument("--functions", metavar="F,G", help="the functions the learner writes (default: the id's words, "
                                                        "e.g. some_name)")


def existing_exercises(root: Path) -> list[dict]:
    with (root / MANIFEST).open("rb") as handle:
        return tomllib.load(handle).get("exercise", [])


def checked_id(root: Path, exercise_id: str, exercises: list[dict]) -> str:
    if not ID_PATTERN.fullmatch(exercise_id):
        raise UsageProblem(f"new: {exercise_id!r} is not an exercise id: write NN-some-name (two digits, then "
                           "lowercase words joined by '-'), like 01-speculative-step")
    for entry in exercises:
        if entry["id"] == exercise_id:
            raise UsageProblem(f"new: {exercise_id} is already in {MANIFEST}")
        if entry["id"][:2] == exercise_id[:2]:
            raise UsageProblem(f"new: the number {exercise_id[:2]} is taken by {entry['id']}; "
                               "the number is the order, pick a free one")
    number = exercise_id[:2]
    stray = sorted(p.relative_to(root).as_posix() for pattern in (f"exercises/ex{number}_*", f"solutions/ex{number}_*",
                                                                  f"tests/test_{number}_*") for p in root.glob(pattern))
    if stray:
        raise UsageProblem(f"new: the number {number} is taken by {', '.join(stray)} (not in the manifest yet)")
    return exercise_id


def checked_title(title: str) -> str:
    title = title.strip()
    if not title:
        raise UsageProblem("new: the title is empty")
    bad = [text for text in ("\n", "\\", "|", '"""') if text in title]
    if bad:
        raise UsageProblem(f"new: the title holds {', '.join(map(repr, bad))}: it must be one line without them "
                           "(it goes into docstrings and the README's ladder table)")
    return title


def checked_functions(text: str | None, exercise_id: str) -> tuple[str, ...]:
    names = [name.strip() for name in (text or exercise_id[3:].replace("-", "_")).split(",") if name.strip()]
    bad = [name for name in names if not name.isidentifier() or keyword.iskeyword(name)]
    if bad or not names or len(set(names)) != len(names):
        what = f"{', '.join(map(repr, bad))} not a Python name" if bad else "no names, or a name twice"
        hint = "" if text else " (the default comes from the id); name them with --functions f,g"
        raise UsageProblem(f"new: functions: {what}{hint}")
    return tuple(names)


def default_track(exercise_id: str, exercises: list[dict]) -> str:
    earlier = [entry for entry in exercises if entry["id"] < exercise_id]
    return max(earlier, key=lambda entry: entry["id"])["track"] if earlier else "numpy"


def placeholder_values(root: Path, args, exercises: list[dict]) -> dict[str, str]:
    exercise_id = checked_id(root, args.id, exercises)
    title = checked_title(args.title)
    functions = checked_functions(args.functions, exercise_id)
    track = args.track or default_track(exercise_id, exercises)
    if not TRACK_PATTERN.fullmatch(track):
        raise UsageProblem(f"new: track {track!r}: write lowercase words joined by '-', e.g. end-to-end")
    snake = exercise_id.replace("-", "_")
    return {
        "id": exercise_id, "title": title, "title_toml": json.dumps(title, ensure_ascii=False),
        "number": exercise_id[:2], "snake": snake, "module": f"ex{snake}", "track": track,
        "difficulty": args.difficulty, "functions": ",".join(functions),
        "functions_toml": ", ".join(json.dumps(name) for name in functions),
        "function_list": ", ".join(functions), "function_first": functions[0],
    }


def render(template: str, values: dict[str, str]) -> str:
    """``template`` with its placeholders filled, each per-function block once per function."""
    def fill(text: str, known: dict[str, str]) -> str:
        def value(match: re.Match) -> str:
            if match.group(1) not in known:
                raise KeyError(f"template placeholder {match.group(0)} has no value")
            return known[match.group(1)]
        return PLACEHOLDER.sub(value, text)

    def part(match: re.Match) -> str:
        if match.group("name"):
            return fill(match.group(0), values)
        functions = values["functions"].split(",")
        return "".join(fill(match.group("body"), {**values, "function": name, "task": str(task)})
                       for task, name in enumerate(functions, start=1))

    return TEMPLATE_PART.sub(part, template)


def with_ladder_row(readme: str, values: dict[str, str]) -> str | None:
    """The README with the exercise's row in its ladder table, in number order (None: no table)."""
    lines = readme.split("\n")
    rows = [index for index, line in enumerate(lines) if LADDER_ROW.match(line)]
    if not rows:
        return None
    functions = ", ".join(f"`{name}`" for name in values["functions"].split(","))
    row = f"| `{values['id']}` | {values['title']} | {values['track']} | {values['difficulty']} | {functions} |"
    later = [index for index in rows if int(LADDER_ROW.match(lines[index]).group(1)) > int(values["number"])]
    lines.insert(later[0] if later else rows[-1] + 1, row)
    return "\n".join(lines)


def unexecuted_notebook(source: str) -> str:
    """The notebook of ``source`` (percent format) as jupytext pairs them, not executed yet: the build
    (notebooks/build.py) executes it once the solution exists, and the notebook gate asks for that."""
    import jupytext  # a dependency of the notebooks; imports nbformat (1-4 s), so only when it is needed

    return jupytext.writes(jupytext.reads(source, fmt="py:percent"), fmt="ipynb")


def planned_files(root: Path, values: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Every file the command writes: relative path -> (text, what it is). Nothing is written yet."""
    files = {}
    for piece in PIECES:
        files[render(piece.path, values)] = (render((TEMPLATES / piece.template).read_text(), values), piece.what)
    taken = [path for path in [*files, render(NOTEBOOK, values)] if (root / path).exists()]
    if taken:
        raise UsageProblem(f"new: {', '.join(taken)} already exist{'s' if len(taken) == 1 else ''}; "
                           "kata new never overwrites a file")
    notebook = unexecuted_notebook(files[render(NOTEBOOK_SOURCE, values)][0])
    files[render(NOTEBOOK, values)] = (notebook, "the notebook, unexecuted until its build")
    return files


def run(workspace: Workspace, args) -> int:
    root = workspace.root
    if root != Path.cwd().resolve() and root not in Path.cwd().resolve().parents:
        # kata falls back to the checkout it was installed from; a command that writes does not
        raise UsageProblem(f"new: run it inside the checkout it should write to ({root} is not above this folder)")
    exercises = existing_exercises(root)
    values = placeholder_values(root, args, exercises)
    manifest_text = (root / MANIFEST).read_text()
    manifest_text = manifest_text.rstrip("\n") + "\n" + render((TEMPLATES / "manifest_entry.toml.template").read_text(), values)
    if not any(entry["id"] == values["id"] for entry in tomllib.loads(manifest_text)["exercise"]):
        raise RuntimeError("kata new: the manifest entry did not parse back")  # a broken template, not a usage error
    files = planned_files(root, values)
    readme = root / "README.md"
    new_readme = with_ladder_row(readme.read_text(), values) if readme.is_file() else None

    for path, (text, _) in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        with (root / path).open("x") as handle:  # "x": fails rather than overwrite
            handle.write(text)
    (root / MANIFEST).write_text(manifest_text)
    if new_readme is not None:
        readme.write_text(new_readme)
    print_summary(workspace, values, files, readme_updated=new_readme is not None)
    return 0


def print_summary(workspace: Workspace, values: dict[str, str], files: dict, readme_updated: bool) -> None:
    command, ident = workspace.palette.command, values["id"]
    print(f"Wrote exercise {ident} ({values['title']}; {values['track']}, {values['difficulty']}):")
    listed = [(MANIFEST, "its entry, appended: teaches and hints to write")]
    listed += [(path, what) for path, (_, what) in files.items()]
    if readme_updated:
        listed.append(("README.md", "its row in the ladder table"))
    width = max(len(path) for path, _ in listed)
    for path, what in listed:
        print(f"  {path:<{width}}  {what}")
    print(f"""
Next, replace every TODO({ident}) (grep -rn 'TODO({ident})' .):
  1. the exercise text (the stub's docstring) and the manifest entry's teaches and hints;
  2. the independent reference, from the text (a verify rule records its decisions as trace events);
  3. the solution: it raises NotImplementedError until you write it, so the solutions gate fails
     on purpose (a placeholder that passed would prove nothing); then the worked examples' results;
  4. the suite's tests, one task per section as the text numbers them, and the three mutants;
  5. the theory page and the notebook source, then build the notebook (it runs the solution):
       {command(f".venv/bin/python notebooks/build.py {ident}")}
Then check everything from the repository root (CONTRIBUTING.md, "Checks before committing"):
  {command(".venv/bin/python -m pytest --target solutions --maintainer")}""")
