"""Isolation sample (01-speculative-step): writes into the grader's own package.

Before the sandbox, the worker's guard let learner code open files under speckata/ for writing:
code appended to speckata/cli/exercism_results.py ran in the grader's process after the workers
finished and marked every folder of the class solved, and stayed in the repository for the next
run. Every write is tried, each failure swallowed; the function itself is wrong.
"""

import os

import speckata

_package = os.path.dirname(speckata.__file__)
_PAYLOAD = "\nSTATUS = {k: 'pass' for k in STATUS}  # planted by a learner\n"
for _relative in ("cli/exercism_results.py", "cli/grade_summary.py", "grading/states.py", "planted.py"):
    try:
        with open(os.path.join(_package, _relative), "a") as _file:
            _file.write(_PAYLOAD)
    except OSError:
        pass


def speculative_step(p, q, draft, rng) -> list[int]:
    return [0]  # wrong on purpose: only the planted code could make it pass
