"""Copying the state of the arguments after a call in the worker back into the grader's objects.

The suites look at their arguments after a call: the draws counted on a ReplayRNG, a
torch.Generator's state, a recorder's calls, a model the learner trained. ``merge(original,
after)`` writes ``after``'s state into ``original`` and returns the object the grader should see
(``original`` itself whenever it can be updated), and records in ``memo`` which copy stands for
which original, so a result that is one of the arguments (``return draft``) comes back as the
grader's own object.

Inputs that are data (an array, a tensor with no gradient, a list or tuple of numbers) are never
written back: the grader computes what it expects from them after the call, so a learner who
rewrote them could make a wrong answer look right. ``merge_arguments`` keeps the grader's copy and
reports which of them the learner's code changed; every exercise's text forbids that.

What comes back is checked before it is written: a class is never written into; an attribute
that held a plain value (an int, a float, a string) must come back as a value of exactly that
type; a ReplayRNG takes back only its count of draws, an int within its stream (its values are
the grader's). A reply that fails a check raises ReplyNotData: nothing of it is used.
"""

from __future__ import annotations

import math
import sys

from speckata.grading.isolation.wire import Foreign

ATOMS = (int, float, complex, str, bytes, bool, type(None))
TYPED = (int, float, complex, str, bytes, bool)  # an attribute holding one of these keeps its type


class ReplyNotData(ValueError):
    """A value merged back is not what the grader's object can hold."""


def merge(original, after, memo: dict):
    if id(after) in memo:
        return memo[id(after)]
    if isinstance(after, (Foreign, *ATOMS)) or type(original) is not type(after):
        return original if isinstance(after, Foreign) else after
    memo[id(after)] = original
    merged = _merge_same_type(original, after, memo)
    memo[id(after)] = merged
    return merged


def _merge_same_type(original, after, memo):
    if isinstance(original, type):
        return original  # a class travels by name: it is the grader's own, never written into
    if type(original).__module__ == "speckata.replay" and type(original).__name__ == "ReplayRNG":
        return _merge_replay(original, after)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(original, torch.Tensor):
        return _merge_tensor(torch, original, after)
    if torch is not None and isinstance(original, torch.Generator):
        original.set_state(after.get_state())
        return original
    if type(original).__module__ == "numpy" and hasattr(original, "shape"):
        if original.shape == after.shape and original.dtype == after.dtype and original.flags.writeable:
            original[...] = after
            return original
        return after
    if isinstance(original, list):
        original[:] = [merge(o, a, memo) for o, a in zip(original, after)] + list(after[len(original):])
        return original
    if isinstance(original, dict):
        merged = {key: merge(original[key], value, memo) if key in original else value for key, value in after.items()}
        original.clear()
        original.update(merged)
        return original
    if isinstance(original, set):
        original.clear()
        original.update(after)
        return original
    if isinstance(original, tuple):
        merged = [merge(o, a, memo) for o, a in zip(original, after)]
        same = len(original) == len(after) and all(m is o for m, o in zip(merged, original))
        return original if same else type(original)(merged) if type(original) is tuple else after
    state = getattr(after, "__dict__", None)
    if state is not None and hasattr(original, "__dict__"):
        own = original.__dict__
        for key in [k for k in own if k not in state]:
            del own[key]
        for key, value in state.items():
            if key in own and type(own[key]) in TYPED and type(value) is not type(own[key]):
                raise ReplyNotData(f"attribute {key!r} of a {type(original).__name__} came back as "
                                   f"{type(value).__name__}, not {type(own[key]).__name__}")
            own[key] = merge(own[key], value, memo) if key in own else value
        return original
    return after


def _merge_replay(original, after):
    draws = getattr(after, "__dict__", {}).get("draws")
    if type(draws) is not int or not 0 <= draws <= len(original._values):
        raise ReplyNotData(f"a ReplayRNG came back with draws = {type(draws).__name__} {str(draws)[:40]}, not an int "
                           f"from 0 to {len(original._values)}")
    original.draws = draws
    return original


def _merge_tensor(torch, original, after):
    if original.shape != after.shape or original.dtype != after.dtype or original.device != after.device:
        with torch.no_grad():
            original.set_(after.detach().to(original.device))
        return original
    with torch.no_grad():
        if not torch.equal(original, after):
            original.copy_(after)
    return original


def remap(result, memo: dict):
    """``result`` with every argument copy it holds at its top level replaced by the grader's original."""
    if id(result) in memo:
        return memo[id(result)]
    if type(result) is tuple:
        return tuple(memo.get(id(item), item) for item in result)
    if type(result) is list:
        return [memo.get(id(item), item) for item in result]
    return result


def is_data(value) -> bool:
    """An input the learner must only read: an array, a tensor outside autograd, numbers in a list or tuple."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return not value.requires_grad and not isinstance(value, torch.nn.Parameter)
    if type(value).__module__ == "numpy" and hasattr(value, "shape"):
        return True
    if type(value) in (list, tuple):
        return all(is_data(item) or type(item) in (int, float, bool, complex) for item in value)
    return False


def same_data(original, after) -> bool:
    if type(original) is not type(after):
        return False
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(original, torch.Tensor):
        return (original.shape == after.shape and original.dtype == after.dtype
                and torch.equal(original.isnan(), after.isnan())
                and torch.equal(original.nan_to_num(0.0), after.nan_to_num(0.0)))
    if type(original).__module__ == "numpy" and hasattr(original, "shape"):
        import numpy as np

        nan = original.dtype.kind in "fc"
        return original.shape == after.shape and original.dtype == after.dtype and bool(
            np.array_equal(original, after, equal_nan=nan))
    if isinstance(original, (list, tuple)):
        return len(original) == len(after) and all(same_data(o, a) for o, a in zip(original, after))
    if isinstance(original, float) and math.isnan(original):
        return math.isnan(after)
    return bool(original == after)


def merge_arguments(originals: list, afters: list, names: list, memo: dict) -> list:
    """Merge each argument's state back, but keep the grader's data inputs; the names of those changed."""
    changed = []
    for original, after, name in zip(originals, afters, names):
        if is_data(original):
            memo[id(after)] = original
            if not same_data(original, after):
                changed.append(name)
        else:
            merge(original, after, memo)
    return changed


def changed_inputs_message(function_name: str, changed: list) -> str:
    which = ", ".join(f"argument {n}" if isinstance(n, int) else n for n in changed)
    return (f"{function_name} changed its input in place ({which}); work on copies: the grader checks your result "
            "against the inputs as it gave them, and keeps its own copy of them.")
