"""Exercise 19-jacobi-decoding: an independent reference for the grader.

It replays the contract on an unwrapped model and writes down the calls it must make, as
('forward', ids, cache length before) and ('crop', length, cache length before), with the
per-pass counts; and a plain greedy decode (one token per call) to compare the tokens with.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class JacobiTrace:
    tokens: list[int] = field(default_factory=list)
    calls: list[tuple] = field(default_factory=list)
    guessed: list[int] = field(default_factory=list)
    accepted: list[int] = field(default_factory=list)


def first_argmax(row) -> int:
    """The first index of the largest value (written out, so the rule does not rest on torch)."""
    values = row.tolist()
    best = 0
    for index, value in enumerate(values):
        if value > values[best]:
            best = index
    return best


def greedy_decode(model, prompt: list[int], count: int) -> list[int]:
    model.reset()
    out, pending = [], list(prompt)
    while len(out) < count:
        token = first_argmax(model.forward_new(pending)[-1])
        out.append(token)
        pending = [token]
    return out


def reference_trace(model, prompt: list[int], max_new_tokens: int, n: int, initial_guess=None) -> JacobiTrace:
    trace = JacobiTrace()
    model.reset()
    guess = list(initial_guess) if initial_guess is not None else [prompt[-1]] * n
    done, cached = list(prompt), 0  # `cached` mirrors the model's cache length
    while len(trace.tokens) < max_new_tokens:
        room = max_new_tokens - len(trace.tokens) - 1
        k = n if n < room else room
        fed = done[cached:] + guess[:k]
        trace.calls.append(("forward", tuple(fed), cached))
        rows = model.forward_new(fed)
        cached += len(fed)
        pred = [first_argmax(rows[len(fed) - k - 1 + j]) for j in range(k + 1)]
        right = next((i for i in range(k) if guess[i] != pred[i]), k)
        done.extend(pred[: right + 1])
        trace.tokens.extend(pred[: right + 1])
        if cached >= len(done):
            trace.calls.append(("crop", len(done) - 1, cached))
            model.crop(len(done) - 1)
            cached = len(done) - 1
        rest = pred[right + 1 :]
        guess = rest + [pred[-1]] * (n - len(rest))
        trace.guessed.append(k)
        trace.accepted.append(right)
    return trace
