"""What the learner's functions must return, checked where the grader receives it.

A wrong *kind* of result (a numpy array, a tuple, a tensor, a generator, None where the contract
says "a list of plain ints") gets a contract message of its own, before any comparison of values:
comparing an array with a list would crash in the grader's own line, and a tuple with the right
tokens would read as "wrong tokens".
"""

from __future__ import annotations

import functools

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
    if not isinstance(result, list):
        return f"yours returned {describe_value(result)}"
    wrong = [(i, t) for i, t in enumerate(result) if type(t) is not int]
    if wrong:
        index, token = wrong[0]
        return (f"element {index} is {describe_value(token)}; convert each token with int(...) "
                "(numpy integers and tensors are not plain ints)")
    return ""


def check_result(function_name: str, contract: str, result) -> None:
    if contract == TOKEN_LIST:
        problem = token_list_problem(result)
        if problem:
            raise GradingFailure(f"{function_name} must return {TOKEN_LIST}; {problem}.")


def with_return_contract(exercise_id: str, function):
    """``function`` itself, or a wrapper that checks its result against the exercise's contract."""
    contract = RETURNS.get((exercise_id, function.__name__))
    if contract is None:
        return function

    @functools.wraps(function)
    def checked(*args, **kwargs):
        result = function(*args, **kwargs)
        check_result(function.__name__, contract, result)
        return result

    return checked
