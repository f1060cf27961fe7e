"""`kata grade`'s progress bar on stderr."""

from __future__ import annotations

import sys
import threading
import time


class ProgressBar:
    """``[#####.....] 12/30 folders, 2 running, 41 s`` on stderr; redrawn in place on a terminal."""

    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.done, self.running, self.stream = total, 0, 0, stream
        self.started, self.lock = time.monotonic(), threading.Lock()
        self.in_place = stream.isatty()

    def update(self, started: int = 0, finished: int = 0) -> None:
        with self.lock:
            self.running += started - finished
            self.done += finished
            filled = round(30 * self.done / max(self.total, 1))
            line = (f"[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} folders, "
                    f"{self.running} running, {time.monotonic() - self.started:.0f} s")
            if self.in_place:
                self.stream.write("\r" + line + ("\n" if self.done == self.total else ""))
            elif finished:
                self.stream.write(line + "\n")
            self.stream.flush()
