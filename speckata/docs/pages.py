"""The site's pages, laid out for MkDocs from the repository's own files, and its navigation.

Nothing here is written by hand for the site: the theory pages are copied as they are, each
exercise's text is its stub's docstring, the notebooks are the committed ones (with their
outputs; nothing is executed), and the order is the manifest's ladder. `stage` writes them into
the docs folder (build/site-src, git-ignored) and returns the navigation; an exercise whose
theory page or notebook is missing keeps its entry, so the strict build fails naming the page.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from speckata.manifest import Exercise, load_manifest

ASSETS = Path(__file__).with_name("assets")  # the vendored KaTeX and its start-up script


def theory_page(exercise: Exercise) -> str:
    return f"theory/{exercise.id}.md"


def exercise_page(exercise: Exercise) -> str:
    return f"exercises/{exercise.id}.md"


def notebook_page(exercise: Exercise) -> str:
    return f"notebooks/{exercise.id}.ipynb"


def exercise_text(root: Path, exercise: Exercise) -> str:
    """The exercise's page: its stub's docstring, as the learner reads it in the editor."""
    stub = root / "exercises" / exercise.file
    text = ast.get_docstring(ast.parse(stub.read_text())) or ""
    return "\n".join([
        "---", "hide:", "  - toc", "---", "",  # the page has no sections: the empty contents column only narrows the text
        f"# {exercise.id}: {exercise.title}", "",
        f"{exercise.difficulty.capitalize()}, {exercise.track} track. "
        f"[Theory](../{theory_page(exercise)}) · [Notebook](../{notebook_page(exercise)})", "",
        f"You write `{', '.join(exercise.functions)}` in `exercises/{exercise.file}`; "
        f"check it with `kata check {exercise.id}`. The exercise text, as in the file:", "",
        "```text", text, "```", "",
    ])


def home_page(root: Path) -> str:
    """The README's introduction and quick start, then the ladder with a link to each page."""
    readme = (root / "README.md").read_text()
    introduction, *sections = readme.split("\n## ")
    quick_start = [f"## {section.strip()}" for section in sections if section.startswith("Quick start")]
    lines = [introduction.strip(), "", *quick_start, "", "## The ladder", "",
             "In the order the kata is meant to be done (`speckata/manifest.toml`).", "",
             "| | exercise | track | read | write | see |", "|---|---|---|---|---|---|"]
    for exercise in load_manifest():
        lines.append(f"| {exercise.number} | {exercise.title} | {exercise.track} | "
                     f"[theory]({theory_page(exercise)}) | [exercise]({exercise_page(exercise)}) | "
                     f"[notebook]({notebook_page(exercise)}) |")
    return "\n".join(lines) + "\n"


def expected_files(root: Path) -> dict[str, bytes]:
    """Every file of the docs folder, by its path there: what exists of each exercise's pieces."""
    files = {"index.md": home_page(root).encode()}
    for exercise in load_manifest():
        files[exercise_page(exercise)] = exercise_text(root, exercise).encode()
        for page, source in ((theory_page(exercise), root / exercise.theory),
                             (notebook_page(exercise), root / exercise.notebook)):
            if source.is_file():
                files[page] = source.read_bytes()
    for asset in ASSETS.rglob("*"):
        if asset.is_file() and asset.name != "README.md":  # the vendoring note is not a page
            files[f"assets/{asset.relative_to(ASSETS).as_posix()}"] = asset.read_bytes()
    return files


def stage(root: Path, docs_dir: Path) -> None:
    """Make docs_dir hold exactly the expected files, writing only those that changed.

    Unchanged files are left alone, so `mkdocs serve` (which watches docs_dir) does not rebuild
    in a loop when the hook stages again.
    """
    files = expected_files(root)
    for path, content in files.items():
        target = docs_dir / path
        if not target.is_file() or target.read_bytes() != content:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
    for existing in sorted(docs_dir.rglob("*"), reverse=True):  # files first, then emptied folders
        relative = existing.relative_to(docs_dir).as_posix()
        if existing.is_file() and relative not in files:
            existing.unlink()
        elif existing.is_dir() and not any(existing.iterdir()):
            shutil.rmtree(existing)


def navigation() -> list:
    """Home, then the exercises in ladder order, one entry each with its three pages, in a section per
    run of one track (a track whose exercises are not contiguous, as trees' 18-20 and 24, gets two)."""
    nav: list = [{"Home": "index.md"}]
    runs: list[tuple[str, list]] = []
    for exercise in load_manifest():
        if not runs or runs[-1][0] != exercise.track:
            runs.append((exercise.track, []))
        runs[-1][1].append({f"{exercise.number} {short_title(exercise)}": [
            {"Theory": theory_page(exercise)},
            {"Exercise": exercise_page(exercise)},
            {"Notebook": notebook_page(exercise)},
        ]})
    nav += [{f"{track} track ({span(entries)})": entries} for track, entries in runs]
    return nav


def span(entries: list) -> str:
    """The exercise numbers a navigation section holds ("18-20", "24"): a track in two runs gets two
    sections, and the numbers tell them apart in the menu."""
    numbers = [next(iter(entry)).split()[0] for entry in entries]
    return numbers[0] if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"


PAGE_KINDS = {"theory": theory_page, "exercise": exercise_page, "notebook": notebook_page}


def page_titles() -> dict[str, str]:
    """Each exercise page's full title by its path in the docs folder ("08 batched verifier: theory").

    The navigation names the three pages of an exercise only "Theory", "Exercise" and "Notebook"
    under the exercise's own entry; the browser tab, the header, the search hits and the footer's
    previous/next links show this title instead (the hook sets it as the page's meta title).
    """
    return {page(exercise): f"{exercise.number} {short_title(exercise)}: {kind}"
            for exercise in load_manifest() for kind, page in PAGE_KINDS.items()}


def short_title(exercise: Exercise) -> str:
    """The id's words ("speculative step"): the manifest's titles are sentences, too long for a menu."""
    return re.sub(r"^\d+-", "", exercise.id).replace("-", " ")
