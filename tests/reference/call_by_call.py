"""A decoder's calls on a model, compared one for one with the contract's (exercises 21, 22, 23, 28).

The first call that differs is named with its index and both calls in words, then whatever the
suite knows of the reference's rounds there. The counts are compared after (each suite words that
its own way): a decoder that made every call right but stopped early or went on passes this check.

>>> check_call_by_call("generate", [("crop", 2)], [("crop", 1)], str, "case: ...")
Traceback (most recent call last):
speckata.grading.failures.GradingFailure: generate made call 0 on the target, ('crop', 2), where the contract makes ('crop', 1).
  expected ('crop', 1)
  got      ('crop', 2)
case: ...
"""

from __future__ import annotations

from speckata.grading import GradingFailure


def check_call_by_call(function: str, calls: list, wanted: list, shown, case: str, around=lambda before: "",
                       on: str = " on the target", contract: str = "the contract") -> None:
    """``shown(call)`` puts a call in words; ``around(before)``, given the contract's calls before the one
    that differs, the reference's rounds there (lines that end with a newline, or "")."""
    for index, (want, have) in enumerate(zip(wanted, calls)):
        if want != have:
            raise GradingFailure(f"{function} made call {index}{on}, {shown(have)}, where {contract} makes "
                                 f"{shown(want)}.\n  expected {shown(want)}\n  got      {shown(have)}\n"
                                 f"{around(wanted[:index])}{case}")
