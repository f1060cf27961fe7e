"""Replaying a decoder that keeps an EAGLE head's cache (exercises 28, 30): the stale caches it starts
from, the head's calls in words, and the learner's compared with the contract's one by one.

A RecordingEagleHead (speckata.heads.eagle) records ``("new", rows, cached)``, ``("tree", rows,
cached)``, ``("layer", rows)``, ``("crop", length, cached)`` and ``("reset", cached)``. Each
exercise says in its own words why a call differs (its ``cause(want, have)``).

>>> head_call(("new", 2, 5))
'forward_new of 2 row(s) with 5 rows cached'
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure
from speckata.grading.events import compared
from speckata.heads.eagle import RecordingEagleHead, RecordingEagleModel

STALE_HEAD_ROWS = 3  # rows the head's cache holds when the decoder starts (the reference's ``stale``)


def stale_recorders(target, head, prompt, generator: torch.Generator):
    """The target and the head with stale caches (the contract resets both), each in its recorder, and the
    generator's state at the start: (model, recorder, start)."""
    head.reset()
    head.forward_new(torch.zeros(STALE_HEAD_ROWS, head.width))  # a stale head cache: the contract resets it
    target.reset()
    target.forward_new_hidden([prompt[0]])  # a stale target cache too
    return RecordingEagleModel(target, generator), RecordingEagleHead(head), generator.get_state()


def head_call(call) -> str:
    if call is None:
        return "no more calls"
    if call[0] in ("new", "tree"):
        return f"forward_{call[0]} of {call[1]} row(s) with {call[2]} rows cached"
    if call[0] == "layer":
        return f"head.layer over {call[1]} rows (no cache: the whole sequence again)"
    if call[0] == "crop":
        return f"crop({call[1]}) with {call[2]} rows cached"
    return f"reset() with {call[1]} rows cached"


def check_head_calls(calls, wanted, case, cause, rounds=()) -> None:
    """The first call that differs, the three before it, ``cause(want, have)`` (None: no call there) and up
    to six of the reference's ``rounds``."""
    calls, wanted = compared(calls), compared(wanted)  # the crop rule: no-op crops are not compared
    for index in range(max(len(calls), len(wanted))):
        want = wanted[index] if index < len(wanted) else None
        have = calls[index] if index < len(calls) else None
        if want != have:
            before = "\n".join("    " + head_call(c) for c in wanted[max(0, index - 3): index]) or "    (none)"
            story = "\n  the reference's rounds:\n" + "\n".join("    " + r for r in rounds[:6]) if rounds else ""
            raise GradingFailure(
                f"Call {index} on the head differs from the contract's:\n"
                f"  expected {head_call(want)}\n"
                f"  got      {head_call(have)}\n"
                f"  the calls before it:\n{before}\n{cause(want, have)}{story}\n{case}")
