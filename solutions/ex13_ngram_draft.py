"""Exercise 13-ngram-draft: reference solution. The exercise text is in exercises/ex13_ngram_draft.py."""


def ngram_draft(context_ids, n, gamma) -> list[int]:
    context = check_draft_inputs(context_ids, n, gamma)
    for size in range(min(n, len(context) - 1), 0, -1):  # longest n-gram first
        suffix = context[-size:]
        # Most recent earlier occurrence: start just left of the suffix itself and walk back.
        for start in range(len(context) - size - 1, -1, -1):
            if context[start : start + size] == suffix:
                return copy_after(context, start + size, gamma)
    return []


def copy_after(context: list[int], begin: int, gamma: int) -> list[int]:
    """gamma tokens copied from position ``begin`` on, reading the copy itself once past the end."""
    extended = list(context)
    for j in range(gamma):
        extended.append(extended[begin + j])
    return extended[len(context) :]


def check_draft_inputs(context_ids, n, gamma) -> list[int]:
    for name, value, minimum in (("n", n, 1), ("gamma", gamma, 0)):
        if isinstance(value, bool) or not hasattr(value, "__index__") or int(value) < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if getattr(context_ids, "ndim", 1) != 1:
        raise ValueError(f"context_ids must be 1-D (one sequence); got shape {tuple(context_ids.shape)}")
    values = context_ids.tolist() if hasattr(context_ids, "tolist") else list(context_ids)
    for value in values:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise ValueError(f"context_ids must hold integer token ids; got {value!r}")
        if value < 0:
            raise ValueError(f"context_ids holds a negative token id: {value}")
    return [int(value) for value in values]
