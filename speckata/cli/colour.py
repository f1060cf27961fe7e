"""Colour on a terminal only: plain text when piped, and never when NO_COLOR is set.

Follows https://no-color.org (a non-empty NO_COLOR turns colour off) and the common FORCE_COLOR
convention (a non-empty value other than 0 turns it on even when piped, as CI logs want).
NO_COLOR wins over FORCE_COLOR.
"""

from __future__ import annotations

import os

CODES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "magenta": "35", "cyan": "36"}


def colour_wanted(stream, environ=None) -> bool:
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM") != "dumb"


class Palette:
    """Wraps text in ANSI styles when enabled; returns it untouched otherwise."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def paint(self, text: str, *styles: str) -> str:
        if not self.enabled or not styles or not text:
            return text
        codes = ";".join(CODES[style] for style in styles)
        return f"\033[{codes}m{text}\033[0m"

    def bold(self, text: str) -> str:
        return self.paint(text, "bold")

    def dim(self, text: str) -> str:
        return self.paint(text, "dim")

    def good(self, text: str) -> str:
        return self.paint(text, "bold", "green")

    def bad(self, text: str) -> str:
        return self.paint(text, "bold", "red")

    def warn(self, text: str) -> str:
        return self.paint(text, "bold", "yellow")

    def command(self, text: str) -> str:
        return self.paint(text, "cyan")

    def state(self, text: str, state: str) -> str:
        styles = {
            "solved": ("green",),
            "failing": ("red",),
            "not attempted": ("dim",),
            "missing": ("yellow",),
            "error": ("magenta",),
        }.get(state, ())
        return self.paint(text, *styles)
