"""`kata hint [ID]`: one more hint tier per call, from a nudge to nearly the answer."""

from __future__ import annotations

import textwrap

from speckata.cli import codes
from speckata.cli.progress import next_exercise
from speckata.cli.workspace import UsageProblem, find_exercise


OPERATORS = {"=", "==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "//", "**", "%", "·", "×", "−", "→", "<-", "->"}
GLUE = "\u00a0"  # a space textwrap never breaks at (it splits at ASCII whitespace only)


def open_brackets(stack: list[str], word: str) -> list[str]:
    """The brackets still open after ``word`` (a stack), e.g. ["(", "["] inside "f(x[i, "."""
    for char in word:
        if char in "([{":
            stack.append(char)
        elif char in ")]}" and stack:
            stack.pop()
    return stack


def wrap_hint(text: str, width: int = 96) -> str:
    """The hint wrapped at ``width``, never inside a word ("all-accepted") or a formula ("γ = 0").

    A space next to an operator or inside brackets is glued, so "u < p_drafted / q_drafted",
    "x[:, None]" and "np.maximum(p[i] - q[i], 0.0)" each stay on one line. Only a long call's
    argument list may break, after a comma.
    """
    words = text.split(" ")
    glued, stack = words[:1], open_brackets([], words[0])
    for word in words[1:]:
        short = len(glued[-1]) + len(word) < width // 2
        inside = "[" in stack or "{" in stack or (stack and short)
        if inside or word in OPERATORS or glued[-1].rsplit(GLUE, 1)[-1] in OPERATORS:
            glued[-1] += GLUE + word
        else:
            glued.append(word)
        open_brackets(stack, word)
    lines = textwrap.wrap(" ".join(glued), width=width - 2, break_on_hyphens=False, break_long_words=False)
    return "\n".join("  " + line.replace(GLUE, " ") for line in lines)


def current_exercise(ws):
    """The next exercise, by the one rule for "next" (nothing is graded to find it)."""
    exercise = next_exercise(ws)
    if exercise is None:
        raise UsageProblem("every exercise is solved: name the one you want a hint for (kata hint ID)")
    return exercise


def run(ws, args) -> int:
    exercise = find_exercise(args.id) if args.id else current_exercise(ws)
    tiers = len(exercise.hints)
    tier = min(ws.state.hints_shown(exercise.id) + 1, tiers)
    p = ws.palette
    print(p.bold(f"{exercise.id}: hint {tier} of {tiers}"))
    print()
    print(wrap_hint(exercise.hints[tier - 1]))
    print()
    if tier < tiers:
        print(p.dim("Run ") + p.command(f"kata hint {exercise.id}") + p.dim(f" again for hint {tier + 1} of {tiers}."))
    else:
        print(p.dim(f"That was the last hint. The theory page {exercise.theory} works the rule through step by step."))
    ws.state.update(exercise.id, hints_shown=tier)
    return codes.OK
