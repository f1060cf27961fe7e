"""Write tests/maintainer/durations.json from a JUnit XML file of a whole maintainers' run.

    .venv/bin/python -m pytest --target solutions --maintainer -n 2 --dist worksteal --junitxml=build/junit.xml
    .venv/bin/python scripts/ci_durations.py build/junit.xml

The file lists each test that took longer than tests/maintainer/xdist_order.py's LISTED_ABOVE,
in seconds; CI's two processes use it to split the tests into two halves of equal cost. Only the
order depends on it: a stale file makes CI slower, never weaker.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.maintainer.xdist_order import DURATIONS, LISTED_ABOVE  # noqa: E402


def main(junit: str) -> None:
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    seconds = {f"{case.get('classname')}::{case.get('name')}": round(float(case.get("time")), 1) for case in cases}
    listed = {name: value for name, value in sorted(seconds.items()) if value > LISTED_ABOVE}
    DURATIONS.write_text(json.dumps(listed, indent=0) + "\n")
    print(f"wrote {DURATIONS.relative_to(ROOT)}: {len(listed)} of {len(seconds)} tests, {sum(listed.values()):.0f} s")


if __name__ == "__main__":
    main(sys.argv[1])
