"""How long a learner waits for `kata check`, against the interpreter's torch + pytest start-up.

    .venv/bin/python scripts/check_wait.py [--repeats 5] [--exercises 07,12,...] [--json PATH]

For each exercise it runs, in turn and `--repeats` times (whole commands, interleaved so that a
drift of the machine's speed touches all three alike):

- the floor: `python -m pytest -q` on one test file that imports torch and asserts one thing;
- solved: `kata check ID --target solutions` (the reference solutions);
- wrong: `kata check ID --target FOLDER`, FOLDER holding the exercise's first wrong version
  (tests/mutants/) that an exact test catches, not only a chi-square test.

It prints each ratio to the floor of the same turn, as the median and min..max over the turns, and
marks those above the issue's bounds (solved 2x, wrong 1.2x). Every command runs with one OpenMP
thread (OMP_NUM_THREADS=1): two threads on a shared 2-core machine swing by several times.
Exercises whose suites never import torch (01-06, 13-17, 24, 26) are measured only when named.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from speckata.manifest import load_manifest
from tests.maintainer.chi_square_checks import CHECKS
from tests.maintainer.test_mutants import load_mutants, materialise

SOLVED_BOUND, WRONG_BOUND = 2.0, 1.2
FLOOR_TEST = "import torch\n\n\ndef test_floor():\n    assert torch.ones(1).item() == 1.0\n"


def suite_imports_torch(exercise) -> bool:
    suite = (ROOT / exercise.tests).read_text()
    solution = (ROOT / "solutions" / exercise.file).read_text()
    return "torch" in suite or "import torch" in solution


def first_exact_mutant(exercise_id: str) -> dict | None:
    statistical = {check.test.split("[")[0] for check in CHECKS if check.exercise == exercise_id}
    for param in load_mutants():
        found, mutant = param.values
        caught_exactly = any(test.split("[")[0] not in statistical for test in mutant.get("must_fail", []))
        if found == exercise_id and mutant["find"] and caught_exactly:
            return mutant
    return None


def seconds(command: list[str], cwd: Path, env: dict) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(exercise, repeats: int, scratch: Path, env: dict) -> dict:
    floor_folder = scratch / "floor"
    floor_folder.mkdir(exist_ok=True)
    (floor_folder / "test_floor.py").write_text(FLOOR_TEST)
    mutant = first_exact_mutant(exercise.id)
    wrong_folder = scratch / f"wrong-{exercise.id}"
    if mutant:
        materialise(exercise.id, mutant, wrong_folder)
    kata = [sys.executable, "-m", "speckata.cli", "check", exercise.id]
    commands = {"floor": ([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_floor.py"], floor_folder),
                "solved": ([*kata, "--target=solutions"], ROOT)}
    if mutant:
        commands["wrong"] = ([*kata, f"--target={wrong_folder}"], ROOT)
    times = {name: [] for name in commands}
    for _ in range(repeats):
        for name, (command, cwd) in commands.items():
            times[name].append(seconds(command, cwd, env))
    row = {"floor_s": spread(times["floor"]), "mutant": mutant["name"] if mutant else None}
    for name in ("solved", "wrong"):
        if name in times:
            row[f"{name}_s"] = spread(times[name])
            row[f"{name}_ratio"] = spread([t / f for t, f in zip(times[name], times["floor"])])
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--exercises", default=None, help="comma-separated numbers or ids (default: the torch ones)")
    parser.add_argument("--json", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    exercises = load_manifest()
    if args.exercises:
        wanted = set(args.exercises.split(","))
        names = {e.id: {e.id, e.id[:2], e.id[:2].lstrip("0")} for e in exercises}
        unknown = sorted(w for w in wanted if not any(w in ids for ids in names.values()))
        if unknown:
            parser.error(f"no such exercise: {', '.join(unknown)}")
        exercises = [e for e in exercises if names[e.id] & wanted]
    else:
        exercises = [e for e in exercises if suite_imports_torch(e)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NO_COLOR": "1"}
    results = {}
    print(f"{'exercise':<28} {'floor s':>7}  {'solved / floor':>20}  {'wrong / floor':>20}  wrong version")
    with tempfile.TemporaryDirectory() as scratch:
        for exercise in exercises:
            row = results[exercise.id] = measure(exercise, args.repeats, Path(scratch), env)
            cells = []
            for name, bound in (("solved", SOLVED_BOUND), ("wrong", WRONG_BOUND)):
                ratio = row.get(f"{name}_ratio")
                mark = "" if ratio is None or ratio["median"] <= bound else " >"
                cells.append("-" if ratio is None else f"{ratio['median']:.2f} [{ratio['min']:.2f}-{ratio['max']:.2f}]{mark}")
            print(f"{exercise.id:<28} {row['floor_s']['median']:>7.2f}  {cells[0]:>20}  {cells[1]:>20}  {row['mutant']}",
                  flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"repeats": args.repeats, "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
