"""Token ids and counts: the one integer rule that every layer's input checks share.

An integer is anything with ``__index__`` that is not a bool (Python and numpy integers, 0-d
integer tensors). Whole floats are accepted as token ids where an exercise says so (a float
array such as [1.0, 2.0]); values are compared as exact Python numbers, never after a cast that
could wrap around (2**64 - 1 as uint64 is not -1, inf is not an integer).
"""

from __future__ import annotations

import math


def is_integer(value) -> bool:
    return not isinstance(value, bool) and hasattr(value, "__index__")


def out_of_range(name: str, value: int, vocab_size: int) -> ValueError:
    return ValueError(f"{name} = {value} is out of range for a vocabulary of {vocab_size} tokens")


def exact_token_id(name: str, value, allow_whole_floats: bool = False) -> int:
    """``value`` as a Python int, or a ValueError that shows the value as given."""
    if is_integer(value):
        return int(value)
    if allow_whole_floats and isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    raise ValueError(f"{name} = {value!r} is not an integer token id")


def checked_token_ids(name: str, values, vocab_size: int, allow_whole_floats: bool = False) -> list[int]:
    """Every value an integer in [0, vocab_size); the first that is not is named with its index."""
    ids = []
    for index, value in enumerate(values):
        token = exact_token_id(f"{name}[{index}]", value, allow_whole_floats)
        if not 0 <= token < vocab_size:
            raise out_of_range(f"{name}[{index}]", token, vocab_size)
        ids.append(token)
    return ids


def checked_count(name: str, value, minimum: int) -> int:
    if not is_integer(value) or int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)
