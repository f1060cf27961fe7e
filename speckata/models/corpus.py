"""The training text: the help topics every CPython install carries (``pydoc_data.topics``).

About 0.47 MB of English prose and grammar, read at run time (nothing is downloaded or shipped).
Typographic characters are folded to ASCII so that the text fits the target's fixed alphabet:
newline plus the 95 printable ASCII characters. Topics are sorted by name; every tenth one is
held out, never trained on, for measuring how well a draft agrees with the target.

The text differs a little between Python versions; the committed weights record the version they
were trained with (``speckata/models/weights/settings.json``).
"""

from __future__ import annotations

import pydoc_data.topics
from functools import lru_cache

# Typographic characters -> ASCII; anything else outside the alphabet is dropped.
FOLD = {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2026": "...", "\u2014": "--", "\u2013": "-",
        "\u00b0": " degrees", "\u00df": "ss", "\t": "    "}
ALPHABET = "\n" + "".join(chr(c) for c in range(32, 127))
HELD_OUT_EVERY = 10


def fold_to_ascii(text: str) -> str:
    allowed = set(ALPHABET)
    return "".join(ch for ch in "".join(FOLD.get(ch, ch) for ch in text) if ch in allowed)


def topics() -> list[tuple[str, str]]:
    """(name, folded text) of every help topic, sorted by name."""
    return list(folded_topics())


@lru_cache(maxsize=1)
def folded_topics() -> tuple[tuple[str, str], ...]:
    """The folding is done once a process (it reads the whole text character by character)."""
    return tuple((name, fold_to_ascii(pydoc_data.topics.topics[name])) for name in sorted(pydoc_data.topics.topics))


def training_text() -> str:
    return "\n".join(text for i, (_, text) in enumerate(topics()) if i % HELD_OUT_EVERY != HELD_OUT_EVERY - 1)


def held_out_text() -> str:
    return "\n".join(text for i, (_, text) in enumerate(topics()) if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1)
