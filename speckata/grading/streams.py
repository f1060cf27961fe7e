"""Fresh streams for a hidden suite: ``--streams SEED`` re-draws every generated case.

The suites draw their generated cases (random rows, drafts, trees, the uniforms a generator
replays) from fixed base seeds, so the cases a learner sees are the cases graded. An instructor
who grades with ``pytest --streams SEED`` (or ``kata check ID --streams SEED``) gets the same
suites, the same case shapes and the same messages, with every such case drawn afresh from a
seed derived from (SEED, the case's base seed): code tuned to the visible cases fails them.
``--streams-file PATH`` reads SEED from a file instead, so that it appears in no command line
(`kata grade` hands it to pytest that way: a process list shows command lines to anyone).

What stays fixed: hand-written worked examples and edge cases, and the statistical tests, whose
seeds are part of their margin gates (tests/maintainer/test_margins_*.py). A suite asks for a
seed with :func:`case_seed` (tests/shared/cases.py wraps it as ``case_rng``); without the option
it returns the base seed itself, so the default suites are exactly the committed ones.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

SEED_BITS = 31  # fits every consumer: numpy, torch.manual_seed, and the suites' own 2**31 draws

_streams: int | None = None
_shown = ""  # how the header names the seed


def set_streams(seed: int | None) -> None:
    """Draw generated cases from ``seed`` from now on (None: the committed base seeds)."""
    global _streams
    _streams = None if seed is None else int(seed)


def streams_seed() -> int | None:
    """The seed given with ``--streams``, or None for the committed streams."""
    return _streams


def derived_seed(streams: int, base: int) -> int:
    """A seed for the case whose committed seed is ``base``, under ``--streams streams``.

    A hash, so that nearby bases (1000 + V for V = 2, 3, 5) give unrelated streams and no
    ``streams`` value reproduces the committed cases by arithmetic.
    """
    digest = hashlib.blake2b(f"speckata-streams/{int(streams)}/{int(base)}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> (64 - SEED_BITS)


def case_seed(base: int) -> int:
    """The seed a generated case is drawn from: ``base`` itself, or one derived from ``--streams``."""
    return int(base) if _streams is None else derived_seed(_streams, base)


def add_option(group) -> None:
    group.addoption("--streams", type=int, default=None, metavar="SEED",
                    help="draw every generated case afresh from SEED (a hidden suite); "
                         "worked examples, edge cases and statistical tests stay fixed")
    group.addoption("--streams-file", default=None, metavar="PATH",
                    help="as --streams, with the SEED read from this file (it then appears in no command line)")


def read_streams_file(path: str) -> int:
    """The seed written in ``path`` (one integer, surrounding blanks allowed); ValueError naming the problem."""
    try:
        text = Path(path).read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ValueError(f"--streams-file: cannot read {path}: {error.strerror}") from None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"--streams-file: {path} must hold one integer, the seed; it holds {text[:40]!r}") from None


def configure(config) -> None:
    seed, path = config.getoption("--streams"), config.getoption("--streams-file")
    if seed is not None and path is not None:
        raise pytest.UsageError("give the seed once: --streams SEED or --streams-file PATH, not both")
    if path is not None:
        try:
            seed = read_streams_file(path)
        except ValueError as error:
            raise pytest.UsageError(str(error)) from None
    set_streams(seed)
    global _shown
    _shown = "a seed read from --streams-file" if path is not None else f"seed {seed}"  # a file's seed stays unsaid


def header_line() -> str | None:
    if _streams is None:
        return None
    return (f"speckata: fresh streams from {_shown} (generated cases re-drawn; "
            "worked examples, edge cases and statistical tests fixed)")
