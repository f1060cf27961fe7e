"""Exercise 30-eagle2-tree: the suite's checks (tests/test_30_eagle2_tree.py uses them).

Each compares a learner's call with the independent reference (tests/reference/ex30_reference.py):
the shape and node tokens exactly, the head's work call by call through a RecordingEagleHead (one
forward_new of the rows its cache lacks, one forward_tree per level, the crop back to the true
rows), the target's calls as recorded (the prompt's pass, one tree pass and one keep_path per
round), the output and statistics, and the draws by the generator's state.
"""

from __future__ import annotations

import torch

from speckata.decoding.tree_shapes import TreeShape
from speckata.grading import GradingFailure, call_learner
from speckata.grading.events import call_mismatch, compared, lead_with_difference
from speckata.heads.eagle import RecordingEagleHead
from tests.reference.eagle_head_replay import STALE_HEAD_ROWS, check_head_calls, head_call, stale_recorders
from tests.reference.ex30_reference import reference_generate, reference_tree
from tests.reference.result_tail import check_tokens_counters_and_draws
from tests.reference.round_events import lead_with_draws_or_tokens


def cause(want, have) -> str:
    if have is not None and want is not None and have[0] == want[0] == "tree" and have[1] != want[1]:
        return (f"A level computes the rows of the top_k = {want[1]} nodes it expands, all in one forward_tree "
                f"call; this one computed {have[1]}.")
    if have is not None and have[0] == "tree" and (want is None or want[0] != "tree"):
        return "A forward_tree call the contract does not make: depth - 1 levels need rows, the first needs none."
    if want is not None and want[0] == "crop":
        return "After the last level the head's tree rows stay only if you forget head.crop(n)."
    return "Compare with the exercise text's steps: one forward_new, depth - 1 forward_tree calls, a crop."


def check_tree(eagle2_tree, target, head, features, tokens, budget, top_k, depth, cached, what):
    """``head``'s cache must already hold ``cached`` rows of these features."""
    case = f"case: {what}, {features.shape[0]} features, the cache holding {cached} rows, budget {budget}, " \
           f"top_k {top_k}, depth {depth}"
    shape, node_tokens, wanted = reference_tree(target, head, features, tokens.tolist(), budget, top_k, depth, cached)
    recorder = RecordingEagleHead(head)
    got = call_learner(eagle2_tree, target, recorder, features, tokens, budget, top_k, depth, case=case)
    if not isinstance(got, tuple) or len(got) != 2:
        raise GradingFailure(f"eagle2_tree must return (shape, tokens); it returned {type(got).__name__}.\n{case}")
    got_shape = TreeShape(got[0]).paths if isinstance(got[0], TreeShape) else got[0]
    if got_shape != shape.paths:
        raise GradingFailure(f"eagle2_tree kept the rank paths\n  {got_shape}\nexpected exercise 24's dynamic_tree on "
                             f"the head's probabilities:\n  {shape.paths}\n{case}")
    if list(got[1]) != node_tokens or not all(type(t) is int for t in got[1]):
        raise GradingFailure(f"eagle2_tree's node tokens are {list(got[1])}; expected {node_tokens} (plain ints, "
                             f"in the shape's node order).\n{case}")
    check_head_calls(recorder.calls, wanted, case, cause)
    return got


def target_call(call) -> str:
    if call[0] == "hidden":
        return f"forward_new_hidden({list(call[1])}) with {call[2]} tokens cached"
    if call[0] == "tree":
        return f"forward_tree_hidden of {list(call[1])}, positions {list(call[3])}, with {call[4]} tokens cached"
    return f"{call[0]}{call[1:]}"


TARGET_KINDS = ("hidden", "forward", "tree", "keep_path", "crop")  # every target call but the reset


def check_run(generate, target, head, prompt, max_new_tokens, budget, top_k, depth, seed, temperature, what):
    case = f"case: {what}, prompt {list(prompt)[:12]}, max_new_tokens {max_new_tokens}, budget {budget}, top_k " \
           f"{top_k}, depth {depth}, seed {seed}, temperature {temperature}"
    theirs = torch.Generator().manual_seed(seed)
    expected = reference_generate(target, head, list(prompt), max_new_tokens, budget, top_k, depth, theirs,
                                  temperature, stale=STALE_HEAD_ROWS)
    mine = torch.Generator().manual_seed(seed)
    model, recorder, start = stale_recorders(target, head, prompt, mine)
    wanted = [c for c in compared(expected.calls) if c[0] != "reset"]
    try:
        got = call_learner(generate, model, recorder, list(prompt), max_new_tokens, budget, top_k, depth, mine,
                           temperature, case=case)
    except GradingFailure as failure:  # what it did before raising, compared first (the crash is often its symptom)
        first = (call_mismatch([c for c in model.calls if c[0] != "reset"], wanted, target_call, "target")
                 or call_mismatch(recorder.calls, expected.head_calls, head_call, "head"))
        raise lead_with_difference(failure, "eagle2_generate", first) from None
    lead_with_draws_or_tokens(got, model, expected, start, mine, case, "eagle2_generate", TARGET_KINDS,
                              lambda call: call[0] == "tree", lambda call: call[0] in ("keep_path", "crop"))
    calls = [c for c in compared(model.calls) if c[0] != "reset"]
    for index in range(max(len(calls), len(wanted))):
        want = wanted[index] if index < len(wanted) else None
        have = calls[index] if index < len(calls) else None
        if want != have:
            rounds = "\n".join("    " + line for line in expected.rounds[:6])
            raise GradingFailure(f"eagle2_generate made call {index} on the target, "
                                 f"{target_call(have) if have else 'no call'}, where the contract makes "
                                 f"{target_call(want) if want else 'no more calls'}.\n  expected "
                                 f"{target_call(want) if want else 'no more calls'}\n  got      "
                                 f"{target_call(have) if have else 'no more calls'}\n  the reference's rounds:\n"
                                 f"{rounds}\n{case}")
    check_head_calls(recorder.calls, expected.head_calls, case, cause)
    check_tokens_counters_and_draws("eagle2_generate", got, expected, mine, theirs, case,
                                    "per round one uniform per candidate tried, one sample")
    return got, recorder
