"""A random generator that replays a fixed list of uniforms, for exact grading.

The exercises fix which random numbers are drawn and in what order, so a grading suite can hand
the learner's code a ``ReplayRNG`` and know exactly what a correct implementation returns, and
how many numbers it must have drawn.
"""

from __future__ import annotations


class ReplayError(RuntimeError):
    """The code under test used the replayed stream in a way the exercise's contract forbids."""


class ReplayRNG:
    """Serves ``values`` one at a time through ``.random()``; anything else is an error.

    >>> rng = ReplayRNG([0.6, 0.9])
    >>> rng.random(), rng.random(), rng.draws
    (0.6, 0.9, 2)
    """

    def __init__(self, values):
        self._values = [float(v) for v in values]
        for v in self._values:
            if not 0.0 <= v < 1.0:
                raise ValueError(f"a replayed uniform must lie in [0, 1); got {v}")
        self.draws = 0

    @property
    def values(self) -> list[float]:
        return list(self._values)

    @property
    def remaining(self) -> int:
        return len(self._values) - self.draws

    def random(self, *args, **kwargs) -> float:
        if args or kwargs:
            raise ReplayError(
                "this exercise draws one number at a time: call rng.random() with no arguments"
            )
        if self.draws >= len(self._values):
            raise ReplayError(
                f"the replayed stream ran out: your code asked for random number #{self.draws + 1}, "
                f"but the contract allows only {len(self._values)} here"
            )
        value = self._values[self.draws]
        self.draws += 1
        return value

    def __getattr__(self, name):
        # Only reached for attributes that do not exist: choice, uniform, integers, ...
        if name.startswith("__"):
            raise AttributeError(name)
        raise ReplayError(f"this exercise draws with rng.random() only (your code called rng.{name})")

    def __repr__(self) -> str:
        return f"ReplayRNG({self._values!r}, draws={self.draws})"
