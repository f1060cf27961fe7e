"""`kata grade FOLDER... --out DIR`: grade a class's folders, each in isolation, for an instructor.

Each FOLDER is laid out like exercises/. Per folder, the exercises whose file was changed from
the stub are graded in one pytest run with ``--isolate`` (the learner's code in a worker process
with time and memory limits, in a bubblewrap sandbox: grading/isolation/); an untouched stub is
"not attempted" and a missing file "missing", without running anything. Folders are graded in
parallel (``--jobs``, default: one per CPU), with a progress bar on stderr. ``--streams SEED`` or
``--streams-file PATH`` grades a hidden suite. Without bubblewrap it refuses unless ``--no-sandbox``.
SIGINT and SIGTERM write what was graded and remove every temporary folder (exit 128 + N).

Written into DIR: per folder ``<name>/results.json`` (all its exercises) and
``<name>/<exercise id>/results.json`` (one per exercise), both in the exercism test-runner
interface version 3 (exercism_results.py), and ``summary.csv`` / ``summary.md``, one row per
folder and one column per exercise (grade_summary.py). Exit 0 when every folder was graded, 4 when
the grader itself could not grade one (its results.json has status "error" and says why).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from speckata.cli import codes
from speckata.cli.grade_progress import ProgressBar
from speckata.cli.grade_summary import folder_line, output_names, write_summaries
from speckata.cli.pristine import committed_stub
from speckata.cli.runner import crash_description
from speckata.cli.workspace import UsageProblem, find_exercise
from speckata.grading.isolation.folder_copy import plan_copy
from speckata.grading.isolation.leftovers import kill_leftovers
from speckata.grading.states import ERROR, MISSING, NOT_ATTEMPTED
from speckata.grading.suite_run import SuiteRun, run_suite, stop_all_runs
from speckata.manifest import Exercise, load_manifest


def add_parser(commands) -> None:
    grade = commands.add_parser(
        "grade", help="for instructors: grade many learners' folders, each isolated, into exercism results",
        description="Grade each FOLDER (laid out like exercises/) with the learner's code in a separate process "
                    "inside a bubblewrap sandbox (time and memory limits, no network, no new processes, only its "
                    "own copy of the folder writable; solutions/, tests/ and the grader are not in it). Writes "
                    "DIR/<folder>/results.json and DIR/<folder>/<exercise>/results.json (exercism test-runner "
                    "interface, version 3) and DIR/summary.csv, DIR/summary.md (learner x exercise).",
    )
    grade.add_argument("folders", nargs="+", metavar="FOLDER", help="learners' folders, laid out like exercises/")
    grade.add_argument("--out", required=True, metavar="DIR", help="where the results and the summary go")
    grade.add_argument("--streams", type=int, default=None, metavar="SEED",
                       help="a hidden suite: every generated case drawn afresh from SEED (it shows in this "
                            "command line: --streams-file keeps it out)")
    grade.add_argument("--streams-file", default=None, metavar="PATH",
                       help="as --streams, with SEED read from this file (keep it readable by you only)")
    grade.add_argument("--no-sandbox", action="store_true",
                       help="grade without the bubblewrap sandbox, with only the weaker in-process guard "
                            "(an audit hook, which code calling the C library can get past)")
    grade.add_argument("--exercise", action="append", metavar="ID", help="grade only this exercise (repeatable)")
    grade.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="folders graded at once (default: CPUs)")
    grade.add_argument("--test-timeout", type=float, default=60.0, metavar="SECONDS",
                       help="stop a single test after this long (default 60)")
    grade.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                       help="stop one folder's whole run after this long (default 1800)")
    grade.add_argument("--memory", type=int, default=4096, metavar="MB",
                       help="memory limit of the process running a learner's code (default 4096)")


SANDBOX = "a bubblewrap sandbox per folder"
GRADER_MEMORY_MB = 4096  # the grading process's own data limit (RLIMIT_DATA); it peaks near 0.6 GB on the reference
NO_SANDBOX = "the in-process guard only (--no-sandbox), which learner code calling the C library can get past"


@dataclass
class FolderGrading:
    folder: Path
    name: str  # its folder under --out (distinct even when two folders share a name)
    attempted: list[Exercise]
    states: dict[str, str] = field(default_factory=dict)  # exercise id -> state
    run: SuiteRun | None = None
    outputs: dict = field(default_factory=dict)
    error: str = ""  # why the grader could not grade this folder


def untouched(root: Path, folder: Path, exercise: Exercise) -> bool:
    text = (folder / exercise.file).read_text(errors="replace")
    stubs = {committed_stub(root, exercise), _read(root / "exercises" / exercise.file)}
    return text in stubs


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return None


def plan(root: Path, folder: Path, name: str, exercises: list[Exercise]) -> FolderGrading:
    grading = FolderGrading(folder, name, [])
    for exercise in exercises:
        if not (folder / exercise.file).is_file():
            grading.states[exercise.id] = MISSING
        elif untouched(root, folder, exercise):
            grading.states[exercise.id] = NOT_ATTEMPTED
        else:
            grading.attempted.append(exercise)
    return grading


def grade_folder(root: Path, grading: FolderGrading, args, scratch: Path, bar: ProgressBar) -> None:
    if not grading.attempted or _stopping.is_set():
        return
    bar.update(started=1)
    try:
        problem = plan_copy(grading.folder)[1]
        if problem:  # the copy the sandbox would see: regular files only, bounded (folder_copy.py)
            grading.error = f"not graded: {problem}"
            for exercise in grading.attempted:
                grading.states[exercise.id] = ERROR
            return
        output_path = scratch / f"{grading.name}.output.json"
        sandbox_log = scratch / f"{grading.name}.sandboxes"
        options = ["--isolate", f"--worker-memory={args.memory}", f"--test-timeout={args.test_timeout:g}",
                   f"--output-json={output_path}", f"--sandbox-log={sandbox_log}", "--tb=short"]
        if args.no_sandbox:
            options.append("--no-sandbox")
        if args.streams is not None:  # by file: a command line is visible to every process on the machine
            options.append(f"--streams-file={scratch / 'streams'}")
        run = run_suite([str(root / e.tests) for e in grading.attempted], grading.folder, options=options,
                        timeout=args.timeout, cwd=root, memory_mb=GRADER_MEMORY_MB)
        left = kill_leftovers(sandbox_log)
        if _stopping.is_set():
            return  # killed by stop_all_runs(): graded as interrupted
        grading.run = run
        if output_path.is_file():
            grading.outputs = json.loads(output_path.read_text())
        if run.timed_out:
            grading.error = f"grading this folder was stopped after {args.timeout:g} s (--timeout)"
        elif run.report is None:
            grading.error = crash_description(run)
        if left:
            grading.error = (f"{len(left)} process(es) of this folder's sandbox outlived its grading run and were "
                             "killed; its results are not trusted") + (f"; {grading.error}" if grading.error else "")
        for exercise in grading.attempted:
            grading.states[exercise.id] = ERROR if grading.error else run.report["states"].get(exercise.id, ERROR)
    finally:
        bar.update(finished=1)


def not_run_message(state: str, exercise: Exercise) -> str:
    if state == MISSING:
        return f"missing: the folder has no {exercise.file}, so nothing was run"
    return f"not attempted: {exercise.file} is the stub as given, so nothing was run"


def write_results(root: Path, out: Path, grading: FolderGrading, exercises: list[Exercise]) -> None:
    from speckata.cli.exercism_results import results

    order = {e.id: i for i, e in enumerate(load_manifest())}
    entries = grading.run.report["tests"] if grading.run and grading.run.report else []
    folder_out = out / grading.name
    for exercise in exercises:
        own = [e for e in entries if e["exercise"] == exercise.id]
        ran = exercise in grading.attempted
        error = grading.error if ran else not_run_message(grading.states[exercise.id], exercise)
        write_json(folder_out / exercise.id / "results.json", results(own, root, grading.outputs, order, error))
    error = grading.error or ("" if grading.attempted else
                              "nothing was run: every exercise graded is missing or the stub as given")
    whole = results(entries, root, grading.outputs, order, error)
    if whole["status"] == "pass" and any(grading.states[e.id] != "solved" for e in exercises):
        whole["status"] = "fail"  # an exercise not attempted is not passed
    write_json(folder_out / "results.json", whole)


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def streams_seed(args) -> int | None:
    if args.streams_file is None:
        return args.streams
    if args.streams is not None:
        raise UsageProblem("grade: give the seed once, --streams SEED or --streams-file PATH")
    from speckata.grading.streams import read_streams_file

    try:
        return read_streams_file(args.streams_file)
    except ValueError as error:
        raise UsageProblem(f"grade: {error}") from None


def run(ws, args) -> int:
    folders = [Path(f).expanduser().resolve() for f in args.folders]
    for given, folder in zip(args.folders, folders):
        if not folder.is_dir():
            raise UsageProblem(f"grade: no such folder {given}")
    exercises = [find_exercise(e) for e in args.exercise] if args.exercise else load_manifest()
    out = Path(args.out).expanduser().resolve()
    args.streams = streams_seed(args)
    if not args.no_sandbox:
        from speckata.grading.isolation.bubblewrap import sandbox_problem

        problem = sandbox_problem()
        if problem:
            print(f"kata grade: refusing to grade without a sandbox: {problem}.\n"
                  "  Or pass --no-sandbox to grade with the weaker in-process guard only (learner code that "
                  "calls the C library can get past it).", file=sys.stderr)
            return codes.GRADER_ERROR
    gradings = [plan(ws.root, f, n, exercises) for f, n in zip(folders, output_names(folders))]
    if args.jobs > 1:
        os.environ.setdefault("OMP_NUM_THREADS", "1")  # parallel runs: one thread each beats threads fighting
    started = time.monotonic()
    bar = ProgressBar(sum(1 for g in gradings if g.attempted))
    interrupted = grade_all(ws.root, gradings, args, bar)
    for grading in gradings:
        write_results(ws.root, out, grading, exercises)
    isolation = NO_SANDBOX if args.no_sandbox else SANDBOX
    write_summaries(out, gradings, exercises, isolation)
    print(f"kata grade: {len(gradings)} folders, {len(exercises)} exercises, {time.monotonic() - started:.0f} s"
          + (", streams from a secret seed" if args.streams is not None else "") + f"; isolation: {isolation}")
    for grading in gradings:
        print(folder_line(grading, exercises))
    print(f"Results: {ws.shown(out)}/<folder>/results.json; table: {ws.shown(out / 'summary.md')}, "
          f"{ws.shown(out / 'summary.csv')}")
    if interrupted:
        print(f"kata grade: interrupted by {interrupted}; the results hold what was graded before it")
        return 128 + getattr(signal, interrupted)  # as a shell reports a process ended by that signal
    return codes.GRADER_ERROR if any(g.error for g in gradings) else codes.OK


_stopping = threading.Event()  # set when kata grade is interrupted: no folder starts after it


def grade_all(root: Path, gradings: list[FolderGrading], args, bar: ProgressBar) -> str:
    """Grade every folder, in parallel; on SIGINT or SIGTERM stop every run at once and mark the
    folders not finished as errors. Returns the signal's name, or "" when nothing interrupted.

    Every temporary file lives under one folder removed on the way out: the isolated pytest runs
    make theirs under it too (TMPDIR), so a run killed mid-way leaves nothing behind."""
    interrupted = ""
    _stopping.clear()  # a second kata grade in the same process starts afresh
    signalled = ["SIGINT"]  # Ctrl-C raises KeyboardInterrupt itself; SIGTERM is made to

    def on_sigterm(signum, frame):
        signalled[0] = "SIGTERM"
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    old_tmpdir = os.environ.get("TMPDIR")
    try:
        with tempfile.TemporaryDirectory(prefix="speckata-grade-") as scratch:
            runs_tmp = Path(scratch) / "tmp"
            runs_tmp.mkdir()
            os.environ["TMPDIR"] = str(runs_tmp)  # inherited by the pytest runs only: this process cached its own
            if args.streams is not None:
                (Path(scratch) / "streams").write_text(str(args.streams))  # mkdtemp: a folder only we can read
            pool = ThreadPoolExecutor(max_workers=max(args.jobs, 1))
            futures = [pool.submit(grade_folder, root, g, args, Path(scratch), bar) for g in gradings]
            try:
                for future in futures:
                    future.result()
            except KeyboardInterrupt:
                interrupted = signalled[0]
                _stopping.set()
                stop_all_runs()
                for future in futures:
                    future.result()
            finally:
                pool.shutdown(wait=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
        if old_tmpdir is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_tmpdir
    if interrupted:
        for grading in gradings:
            if grading.attempted and grading.run is None and not grading.error:
                grading.error = f"not graded: kata grade was interrupted ({interrupted}) first"
                for exercise in grading.attempted:
                    grading.states[exercise.id] = ERROR
    return interrupted
