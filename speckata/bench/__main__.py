"""``python -m speckata.bench NAME [ARGS]``: run the benchmark module speckata/bench/NAME.py."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import speckata.bench


def available() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(speckata.bench.__path__) if not m.name.startswith("_"))


def main(argv: list[str]) -> int:
    names = available()
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in names:
        print(f"usage: python -m speckata.bench {{{','.join(names) or 'no benchmarks yet'}}} [ARGS]")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    return importlib.import_module(f"speckata.bench.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
