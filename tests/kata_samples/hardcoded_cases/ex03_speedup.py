"""Exercise 03-speedup as a learner who copied the grader's visible cases might leave it: every call
the default suite makes is looked up in ex03_speedup_table.json (the reference's answers, written by
tests/kata_samples/hardcoded_cases_table.py); any other call gets a wrong answer. It passes the
default suite and fails a hidden one (`--streams SEED`): tests/maintainer/test_hidden_suites.py."""

import json
import numbers
from pathlib import Path

TABLE = json.loads(Path(__file__).with_name("ex03_speedup_table.json").read_text())


def _key(name, args):
    shown = lambda a: f"{type(a).__name__}:{float(a)!r}" if isinstance(a, numbers.Real) else repr(a)
    return "|".join([name, *map(shown, args)])


def _looked_up(name, wrong, args):
    entry = TABLE.get(_key(name, args))
    if entry is None:
        return wrong  # a case the default suite never asks about
    if "error" in entry:
        raise ValueError(entry["error"])
    return entry["value"]


def expected_tokens_per_pass(alpha, gamma):
    return _looked_up("expected_tokens_per_pass", 1.0, (alpha, gamma))


def walltime_speedup(alpha, gamma, c):
    return _looked_up("walltime_speedup", 1.0, (alpha, gamma, c))


def optimal_gamma(alpha, c, max_gamma=32):
    return _looked_up("optimal_gamma", 1, (alpha, c, max_gamma))
