"""Isolation sample (01-speculative-step): a grandchild, forked through libc, outlives the grader.

The child forks again and exits; the grandchild finds `kata grade`'s output folder in the command
lines under /proc, waits until `kata grade` has returned, and rewrites every results.json and
summary.csv to "pass". Before the sandbox it did, seconds after `kata grade` returned.
"""

import ctypes
import json
import os
import time


def _grader_out():
    """The --out folder of a running `kata grade`, or None."""
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                words = file.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "grade" in words and "--out" in words:
            return words[words.index("--out") + 1]
    return None


def _rewrite_results_later():
    out = _grader_out()
    deadline = time.monotonic() + 300
    while out and _grader_out() == out and time.monotonic() < deadline:
        time.sleep(0.05)
    for folder, _, files in os.walk(out or "/nonexistent"):
        for name in files:
            path = os.path.join(folder, name)
            if name == "results.json":
                with open(path, "w") as file:
                    json.dump({"version": 3, "status": "pass", "tests": []}, file)
            elif name == "summary.csv":
                with open(path, "a") as file:
                    file.write("rewritten,solved\n")


_libc = ctypes.CDLL(None, use_errno=True)
if _libc.fork() == 0:
    if _libc.fork() == 0:
        try:
            _rewrite_results_later()
        finally:
            os._exit(0)
    os._exit(0)


def speculative_step(p, q, draft, rng) -> list[int]:
    return [0]  # wrong on purpose: only the rewritten results could make it pass
