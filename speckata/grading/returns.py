"""What the learner's functions must return, checked where the grader receives it.

A wrong *kind* of result (a numpy array, a tuple, a tensor, a generator, None where the contract
says "a list of plain ints") gets a contract message of its own, before any comparison of values:
comparing an array with a list would crash in the grader's own line, and a tuple with the right
tokens would read as "wrong tokens".

A result longer than the contract allows (speculative_step returns at most len(draft) + 1 tokens)
is refused by its length before anything compares or shows it, and so is any list, tuple or dict
of more than MAX_ITEMS items, which no function of the kata returns: a million tokens would
otherwise be laid out in every message.

Every learner function's result is also refused when it would judge itself: an object of a class
written in learner code that defines its own comparisons or conversions (a list subclass whose
``==`` is always true would pass every test that compares it). Only such classes are refused: the
learner's own ``NamedTuple`` (exercise 08 gives one) adds no comparison of its own.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from speckata.grading.failures import GradingFailure

# (exercise id, function) -> the contract's words for the result; listed in the exercise texts.
TOKEN_LIST = "a list of plain ints"
RETURNS = {
    ("01-speculative-step", "speculative_step"): TOKEN_LIST,
    ("04-greedy-step", "greedy_step"): TOKEN_LIST,
    ("05-sampling-settings", "speculative_step_from_logits"): TOKEN_LIST,
    ("12-cross-tokenizer", "verify_proposal"): TOKEN_LIST,
    ("12-cross-tokenizer", "target_proposal"): TOKEN_LIST,
    ("13-ngram-draft", "ngram_draft"): TOKEN_LIST,
}
MAX_ITEMS = 100_000  # items of any list, tuple or dict a learner's function may return


def _argument(args: tuple, kwargs: dict, index: int, name: str):
    return args[index] if len(args) > index else kwargs[name]


# (exercise id, function) -> (the contract's bound in words, the bound from the call's arguments)
MOST_TOKENS = {
    ("01-speculative-step", "speculative_step"): ("len(draft) + 1", lambda a, k: len(_argument(a, k, 2, "draft")) + 1),
    ("04-greedy-step", "greedy_step"): ("len(draft) + 1", lambda a, k: len(_argument(a, k, 2, "draft")) + 1),
    ("05-sampling-settings", "speculative_step_from_logits"):
        ("len(draft) + 1", lambda a, k: len(_argument(a, k, 2, "draft")) + 1),
    ("12-cross-tokenizer", "verify_proposal"): ("len(proposal) + 1", lambda a, k: len(_argument(a, k, 1, "proposal")) + 1),
    ("12-cross-tokenizer", "target_proposal"):
        ("4 per character of drafted_text", lambda a, k: 4 * len(_argument(a, k, 0, "drafted_text"))),
    ("13-ngram-draft", "ngram_draft"): ("gamma", lambda a, k: int(_argument(a, k, 2, "gamma"))),
}


def length_problem(exercise_id: str, function_name: str, result, args: tuple, kwargs: dict) -> str:
    """Why ``result`` is longer than the contract allows ('' when it is not), without looking inside it."""
    if not isinstance(result, (list, tuple, dict)):
        return ""
    try:
        length = len(result)
    except Exception:  # noqa: BLE001 - a learner's container whose len fails: the kind check says so
        return ""
    words, bound = MOST_TOKENS.get((exercise_id, function_name), (None, None))
    if bound is not None:
        try:
            most = bound(args, kwargs)
        except Exception:  # noqa: BLE001 - arguments the function must refuse itself
            most = None
        if most is not None and length > most:
            return (f"{function_name} returned {length:,} tokens; the contract allows at most {words} = {most:,} "
                    "here. Nothing of it was compared")
    if length > MAX_ITEMS:
        return (f"{function_name} returned {length:,} items; no function of this kata returns more than "
                f"{MAX_ITEMS:,}. Nothing of it was compared")
    return ""


def describe_value(value, width: int = 60) -> str:
    """'numpy.ndarray [1 2 0]': the type by its full name, then the value, shortened."""
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}.{kind.__name__}"
    try:
        text = repr(value) if kind in (list, tuple) else str(value)
    except Exception:  # a learner's object whose repr fails
        text = "<unprintable>"
    text = " ".join(text.split())
    return f"{name} {text[: width - 3] + '...' if len(text) > width else text}"


def token_list_problem(result) -> str:
    """Why ``result`` is not a list of plain ints, or '' when it is."""
    if result is None:
        return "yours returned None (a missing return statement?)"
    if type(result) is not list:
        return f"yours returned {describe_value(result)}"
    wrong = [(i, t) for i, t in enumerate(result) if type(t) is not int]
    if wrong:
        index, token = wrong[0]
        return (f"element {index} is {describe_value(token)}; convert each token with int(...) "
                "(numpy integers and tensors are not plain ints)")
    return ""


# What a result's class may not define when it comes from learner code: what the grader's checks ask
# of a value (equality, order, truth, length, items, conversion to a number, an array or a list).
SELF_JUDGING = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__len__", "__iter__",
                "__getitem__", "__contains__", "__int__", "__index__", "__float__", "__abs__", "__sub__",
                "__rsub__", "__array__", "__array_ufunc__", "__array_function__", "__torch_function__",
                "tolist", "item", "all", "any", "equal", "allclose")
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class created at run time (a class statement, type(...))
CONTAINERS = (list, tuple, dict)
PLAIN = (int, float, bool, str, bytes, complex, type(None))
LOOKED_INTO = 10_000  # elements of a returned list, tuple or dict that are looked at (one level down)


@functools.lru_cache(maxsize=4096)
def written_in_learner_code(kind: type, graded_folder: Path) -> bool:
    """Whether ``kind`` comes from the graded folder, or cannot be found where it says it lives."""
    from speckata.manifest import load_manifest

    module = sys.modules.get(kind.__module__)
    if module is None or kind.__module__ in {exercise.module for exercise in load_manifest()}:
        return True
    file = getattr(module, "__file__", None)
    if file and Path(file).resolve().is_relative_to(graded_folder):
        return True
    if not kind.__flags__ & HEAP_TYPE:  # a type written in C (list, generator, numpy's): never the learner's
        return False
    found = module
    for part in kind.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is not kind  # a class written in Python that claims another module's name


def self_judging_problem(value) -> str:
    """Why ``value`` would decide the grader's comparisons itself, or '' when it would not."""
    from speckata.grading.target import target_dir

    if type(value) in PLAIN:
        return ""
    folder = target_dir().resolve()
    classes = [kind for kind in type(value).__mro__ if kind is not object]
    for kind in classes:
        defined = [name for name in SELF_JUDGING if name in vars(kind)] if written_in_learner_code(kind, folder) else []
        if defined:
            base = next((k for k in classes if not written_in_learner_code(k, folder)), None)
            what = f"a subclass of {base.__name__}" if base else "a class"
            plain = f"a plain {base.__name__}" if base else "a plain value"
            return (f"{type(value).__name__}, {what} written in your code that defines its own "
                    f"{', '.join(defined[:3])}: the grader would be asking your object whether it is right. "
                    f"Return {plain}")
    if type(value) in CONTAINERS:
        items = value.values() if type(value) is dict else value
        for index, item in enumerate(items):
            if index >= LOOKED_INTO:
                break
            problem = "" if type(item) in CONTAINERS else self_judging_problem(item)
            if problem:
                where = "a value" if type(value) is dict else f"element {index}"
                return f"{where} of its result is {problem}"
    return ""


def check_result(function_name: str, contract: str | None, result) -> None:
    problem = self_judging_problem(result)
    if problem:
        raise GradingFailure(f"{function_name} returned {problem}.")
    if contract == TOKEN_LIST:
        problem = token_list_problem(result)
        if problem:
            raise GradingFailure(f"{function_name} must return {TOKEN_LIST}; {problem}.")


def with_return_contract(exercise_id: str, function):
    """``function`` wrapped to check its result: never self-judging, and of the exercise's contract."""
    contract = RETURNS.get((exercise_id, getattr(function, "__name__", "")))

    @functools.wraps(function)
    def checked(*args, **kwargs):
        result = function(*args, **kwargs)
        problem = length_problem(exercise_id, function.__name__, result, args, kwargs)
        if problem:
            raise GradingFailure(problem + ".")
        check_result(function.__name__, contract, result)
        return result

    return checked
