"""Every message the grader keeps is bounded, whatever the learner's code returned or printed.

A failure's text is cut at MESSAGE_LIMIT characters (at a line's end, with a note of how much was
left out), and the lists a report's detail carries (the learner's tokens, the expected ones) at
DETAIL_ITEMS items, with their full lengths kept beside them. The report file and kata grade's
results.json hold only what passed through here.
"""

from __future__ import annotations

MESSAGE_LIMIT = 24_000  # characters of one test's message
DETAIL_ITEMS = 1_000  # items of a list in a report's detail


def cut_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    if len(text) <= limit:
        return text
    kept = text[:limit]
    if "\n" in kept[limit // 2:]:
        kept = kept[: kept.rindex("\n")]
    return kept + f"\n... (the message was cut here: {len(text) - len(kept):,} more characters)"


def cut_detail(detail):
    """``detail`` with each list longer than DETAIL_ITEMS cut to its first DETAIL_ITEMS items, and
    ``<key>_length`` giving the full length."""
    if type(detail) is not dict:
        return detail
    cut = {}
    for key, value in detail.items():
        if isinstance(value, (list, tuple)) and len(value) > DETAIL_ITEMS:
            cut[key] = list(value[:DETAIL_ITEMS])
            cut[f"{key}_length"] = len(value)
        elif isinstance(value, str):
            cut[key] = cut_message(value)
        else:
            cut[key] = value
    return cut
