"""Where a learner's sequence first departs from the reference's (shared by the report modules)."""

from __future__ import annotations


def first_difference(expected, got) -> int | None:
    """The first index where the sequences differ, the shorter one's length if one is a prefix of
    the other, or None when they are equal."""
    for index, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return index
    return None if len(expected) == len(got) else min(len(expected), len(got))
