"""Stopping learner code that does not return, in a way it cannot catch.

Three layers, each for code the one before cannot stop:

1. At the limit, SIGALRM raises :class:`LearnerStopped` (a BaseException, so ``except Exception``
   does not swallow it), and raises it again every 0.2 s until the test ends, for code that
   catches it once and carries on.
2. Code that catches even that (a bare ``except:`` inside a ``while True``), or that is stuck
   where signals are not delivered, is stopped by a watchdog thread after a grace period: it calls
   ``on_hard_stop``, which records the verdict and ends the process (see plugin.py).
3. Without SIGALRM (not the main thread, not POSIX), only the watchdog runs.

The caller makes sure that once one test was stopped, the rest of its exercise is not run.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from contextlib import contextmanager

from speckata.grading.failures import LearnerStopped
from speckata.grading.learner_lines import learner_line_of_frame

REPEAT_SECONDS = 0.2


def grace_seconds(limit: float) -> float:
    """How long the watchdog waits after the alarm: half the limit, at least 1 s, at most 30 s."""
    return min(max(limit / 2, 1.0), 30.0)


def stopped_message(limit: float, where: str) -> str:
    place = f"\n  it was at {where}" if where else ""
    return (f"stopped after {limit:g} s: your code did not return "
            f"(an endless loop? a loop whose index never advances?){place}")


class Watchdog:
    """One daemon thread that calls a function if a deadline passes before it is cancelled."""

    def __init__(self):
        self._condition = threading.Condition()
        self._deadline: float | None = None
        self._action = None
        self._thread = threading.Thread(target=self._run, name="speckata-watchdog", daemon=True)
        self._thread.start()

    def arm(self, seconds: float, action) -> None:
        with self._condition:
            self._deadline, self._action = time.monotonic() + seconds, action
            self._condition.notify()

    def cancel(self) -> None:
        with self._condition:
            self._deadline, self._action = None, None
            self._condition.notify()

    def _run(self) -> None:
        while True:
            with self._condition:
                while self._deadline is None or time.monotonic() < self._deadline:
                    timeout = None if self._deadline is None else self._deadline - time.monotonic()
                    self._condition.wait(timeout)
                action, self._deadline, self._action = self._action, None, None
            if action is not None:
                action()


_watchdog: Watchdog | None = None


def _can_use_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_limit(limit: float, on_hard_stop):
    """Run the body under ``limit`` seconds; ``on_hard_stop(message)`` must end the process."""
    global _watchdog
    if not limit or limit <= 0:
        yield
        return
    state = {"where": "", "thread": threading.get_ident()}

    def alarm(signum, frame):
        state["where"] = state["where"] or learner_line_of_frame(frame)
        raise LearnerStopped(stopped_message(limit, state["where"]))

    use_alarm = _can_use_alarm()
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, alarm)
        signal.setitimer(signal.ITIMER_REAL, limit, REPEAT_SECONDS)
    if _watchdog is None:
        _watchdog = Watchdog()

    def hard_stop():
        where = state["where"] or learner_line_of_frame(sys._current_frames().get(state["thread"]))
        caught = "\n  and it caught every attempt to stop it, so grading ended there"
        on_hard_stop(stopped_message(limit, where) + caught)

    _watchdog.arm(limit + grace_seconds(limit), hard_stop)
    try:
        yield
    finally:
        _watchdog.cancel()
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
