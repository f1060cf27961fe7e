"""The benches' ``--json PATH`` record: one JSON object, indented by one space, a newline at the end
(the committed records under speckata/bench/results/ are written so, and pages doctest them).
The leading underscore keeps it out of ``python -m speckata.bench``'s list."""

from __future__ import annotations

import json
from pathlib import Path


def write_record(path: str | Path, record) -> None:
    """Write ``record`` to ``path`` as the benches do, making its folder if needed."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")


def report_and_record(args, record, report) -> int:
    """The end of a bench's main: print ``record`` with ``report``, write it where --json says (if it
    does), and return the exit status 0."""
    report(record)
    if args.json:
        write_record(args.json, record)
    return 0
