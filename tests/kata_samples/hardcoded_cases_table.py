"""Writes hardcoded_cases/ex03_speedup_table.json: every call the default 03-speedup suite makes, with
the reference's answer (or its ValueError's message), for the sample learner who hard-coded them.

It grades a scratch folder whose ex03_speedup.py is the reference solution with its three functions
wrapped to log each outermost call, then writes the log as the sample's lookup table. Run it from
the repository root after changing the suite: `.venv/bin/python tests/kata_samples/hardcoded_cases_table.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = Path(__file__).resolve().parent / "hardcoded_cases" / "ex03_speedup_table.json"
FUNCTIONS = ("expected_tokens_per_pass", "walltime_speedup", "optimal_gamma")

# Appended to the reference's source: the same call key as the sample's (hardcoded_cases/ex03_speedup.py).
RECORDER = '''

import inspect as _inspect, json as _json, numbers as _numbers, os as _os

def _key(name, function, args, kwargs):
    bound = _inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()  # optimal_gamma(a, c) and optimal_gamma(a, c, 32) are one call
    shown = lambda a: f"{type(a).__name__}:{float(a)!r}" if isinstance(a, _numbers.Real) else repr(a)
    return "|".join([name, *map(shown, bound.arguments.values())])

def _recorded(name, function):
    def wrapper(*args, **kwargs):
        outermost = not _recorded.busy
        _recorded.busy = True
        try:
            entry = {"value": function(*args, **kwargs)}
        except ValueError as error:
            entry = {"error": str(error)}
        finally:
            _recorded.busy = not outermost
        if outermost:
            with open(_os.environ["SPECKATA_CALL_LOG"], "a") as log:
                log.write(_json.dumps([_key(name, function, args, kwargs), entry]) + "\\n")
        if "error" in entry:
            raise ValueError(entry["error"])
        return entry["value"]
    return wrapper

_recorded.busy = False
for _name in FUNCTIONS:
    globals()[_name] = _recorded(_name, globals()[_name])
'''


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="speckata-calls-") as scratch:
        folder, log = Path(scratch) / "graded", Path(scratch) / "calls.jsonl"
        folder.mkdir()
        source = (ROOT / "solutions" / "ex03_speedup.py").read_text()
        (folder / "ex03_speedup.py").write_text(source + f"\nFUNCTIONS = {FUNCTIONS!r}\n" + RECORDER)
        run = subprocess.run([sys.executable, "-m", "pytest", "tests/test_03_speedup.py", f"--target={folder}", "-q",
                              "-p", "no:cacheprovider"], cwd=ROOT, env={**os.environ, "SPECKATA_CALL_LOG": str(log)},
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
            return 1
        table = dict(json.loads(line) for line in log.read_text().splitlines())
    rows = (f"{json.dumps(key)}: {json.dumps(table[key])}" for key in sorted(table))  # one call a line
    TABLE.write_text("{\n" + ",\n".join(rows) + "\n}\n")
    print(f"{len(table)} calls written to {TABLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
