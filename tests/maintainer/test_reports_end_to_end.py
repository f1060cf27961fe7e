"""What a learner reads when an end-to-end exercise (10-13) is wrong in a realistic way (issue 17).

Each test writes one wrong version of a solution into a temporary copy of solutions/, grades the
copy in a pytest subprocess as `kata check` does (speckata.grading.suite_run), and asserts on the
report of the first failing test: which test it is, its headline, and the diagnostics around it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from speckata.grading.suite_run import run_suite
from speckata.manifest import repo_root
from speckata.models.tokenizers import CharTokenizer
from tests.reference.ex12_reference import CrossRound, CrossTrace
from tests.reference.ex12_report import rounds_table as cross_rounds_table

ROOT = repo_root()
EX10 = "ex10_speculative_generate.py"
EX11 = "ex11_distill_draft.py"
SUITE10 = "tests/test_10_speculative_generate.py"


def wrong_version(tmp_path: Path, file: str, find: str, replace: str) -> Path:
    """A copy of solutions/ whose `file` has `find` (present exactly once) replaced."""
    folder = tmp_path / "learner"
    shutil.copytree(ROOT / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    source = (folder / file).read_text()
    assert source.count(find) == 1, f"{find!r} must occur once in solutions/{file}"
    (folder / file).write_text(source.replace(find, replace))
    return folder


def first_failure(folder: Path, selection: list[str]) -> tuple[str, str]:
    """(test name, message) of the first failing test when `folder` is graded with `selection`."""
    run = run_suite([*selection, "-x"], folder, options=["--test-timeout=120"], timeout=600)
    assert run.report is not None, run.tail()
    failed = [t for t in run.report["tests"] if t["outcome"] == "failed"]
    assert failed, f"the wrong version passed\n{run.tail()}"
    return failed[0]["nodeid"].split("::", 1)[1], failed[0]["message"]


NEVER_CROPPED = ("        logits = target.forward_new(sequence[target.cache_length :] + drafts)\n",
                 "        logits = target.forward_new((sequence[-1:] if target.cache_length else sequence) + drafts)\n")
CROP_OFF_BY_ONE = ("                model.crop(len(sequence) - 1)\n", "                model.crop(len(sequence))\n")


def never_cropped_target(tmp_path: Path) -> Path:
    """Feeds the target [sequence[-1]] + drafts after the first round, and never crops it."""
    folder = wrong_version(tmp_path, EX10, *NEVER_CROPPED)
    source = (folder / EX10).read_text().replace("for model in (target, draft):", "for model in (draft,):")
    (folder / EX10).write_text(source)
    return folder


def test_a_never_cropped_target_is_caught_at_its_first_missing_crop(tmp_path):
    """Item 1: the tokens are right on the worked example's order-1 chains; the cache lengths are not."""
    test, message = first_failure(never_cropped_target(tmp_path), [SUITE10])
    assert test == "test_worked_example"
    headline = message.splitlines()[0]
    assert headline == ("speculative_generate did not crop the target's cache in round 2: the contract crops it from 6 "
                        "to 5 tokens (len(sequence) - 1); everything before was right."), message
    marked = [line for line in message.splitlines() if "<-- first difference" in line]
    assert re.search(r"target\s+forward_new\(\[1\]\)\s+6\s+crop\(5\)\s+6", marked[0]), message
    assert re.search(r"round\s+model\s+your call\s+cached\s+the contract's call\s+cached", message), message


def test_a_crop_off_by_one_raises_and_still_shows_the_calls_up_to_the_exception(tmp_path):
    """Item 2: the first difference before the exception leads (issue 39), then the exception, the calls
    before it, and the contract's next call."""
    test, message = first_failure(wrong_version(tmp_path, EX10, *CROP_OFF_BY_ONE), [SUITE10])
    assert test == "test_worked_example"
    lines = message.splitlines()
    assert lines[0] == ("speculative_generate cropped the target's cache to 6 tokens in round 2, which keeps all 6, the "
                        "newest token included; the contract crops it to 5 = len(sequence) - 1; everything before was "
                        "right. Then it raised:"), message
    assert lines[1] == "speculative_generate raised ValueError: forward_new needs at least one new token id (got none)"
    assert re.search(r"crop\(6\)\s+6\s+\(changes nothing: not compared\)", message), message
    assert re.search(r"\(your code raised\)\s+forward_new\(\[1\]\)\s+5", message), message
    assert "The reference's rounds 1 to 3 (your code raised in round 3)" in message


def test_the_two_crop_bugs_get_different_reports(tmp_path):
    _, never = first_failure(never_cropped_target(tmp_path / "a"), [SUITE10])
    _, off_by_one = first_failure(wrong_version(tmp_path / "b", EX10, *CROP_OFF_BY_ONE), [SUITE10])
    assert never.splitlines()[0] != off_by_one.splitlines()[0]
    assert "len(sequence) - 1" in never and "the newest token included" in off_by_one


def test_an_extra_draft_call_is_named_in_the_round_it_was_made(tmp_path):
    """Item 3: rounds are counted from 1, as the exercise text counts them; the extra call is in round 1."""
    folder = wrong_version(tmp_path, EX10, "        pending = [token]\n    return drafts, q",
                           "        pending = [token]\n    if drafts:\n        draft.forward_new(pending)\n    return drafts, q")
    _, message = first_failure(folder, [SUITE10])
    assert message.startswith("speculative_generate made one call too many to the draft in round 1: forward_new([0]) "
                              "(the contract's next draft call, forward_new([0, 2]), comes in round 2)"), message
    assert "round 1: prompt + 2 drafts" in (ROOT / "exercises" / EX10).read_text()
    table = message[message.index("The reference's rounds"):].splitlines()
    assert table[1].split()[0] == "round" and table[2].split()[0] == "1", message


def test_a_bonus_from_the_draft_fails_first_under_the_bonus_test(tmp_path):
    """Item 6: the first failing test's name says what is wrong."""
    folder = wrong_version(tmp_path, EX10, "    tokens.append(sample_token(p[len(drafts)], generator))",
                           "    tokens.append(sample_token(q[-1] if q else p[0], generator))")
    test, message = first_failure(folder, [SUITE10])
    assert test == "test_a_round_that_keeps_every_draft_adds_a_bonus_token_sampled_from_p_k"
    assert "in round 1 (new token 2: the contract's is the bonus token, after every draft was kept)" in message


def test_a_fresh_optimizer_each_step_is_named_at_its_first_differing_step(tmp_path):
    """Item 5: Adam's first update is the same from a fresh optimizer; step 3's loss is the first to differ."""
    folder = wrong_version(
        tmp_path, EX11,
        "    optimizer = torch.optim.Adam(draft.parameters(), lr=learning_rate)\n    losses = []\n    for _ in range(steps):\n",
        "    losses = []\n    for _ in range(steps):\n        optimizer = torch.optim.Adam(draft.parameters(), lr=learning_rate)\n")
    _, message = first_failure(folder, ["tests/test_11_distill_draft.py::test_distill_replays_the_reference"])
    assert message.startswith("distill's losses first differ at step 3 of 5"), message
    assert "Steps 1 to 2 match" in message and "the update made at step 2 is not the contract's" in message


@pytest.mark.parametrize("file", ["ex01_speculative_step.py", "ex10_speculative_generate.py", "ex12_cross_tokenizer.py"])
def test_one_phrase_for_the_residual_with_no_mass(file):
    """Item 8: exercises 01, 10 and 12 state the fallback rule in the same words."""
    text = " ".join((ROOT / "exercises" / file).read_text().split())
    assert "has no mass (its total is at most 1e-12" in text
    assert "no mass left" not in text


def test_exercise_12s_round_table_stays_aligned_with_a_long_tail():
    """Item 8: every column starts at the same place on every line, however long the tail is."""
    chars = CharTokenizer("ab ")
    rounds = [CrossRound(4, tail, [], drafted, [0, 1], (0,), [(0, 0, "keep", 0.25, 0.5), (1, 1, "reject", 0.75, 0.5),
                                                              (1, 2, "other token", None, None)], [0, 2])
              for tail, drafted in ((" a", " ab"), (" " + "ab" * 30, " " + "ab" * 31), ("b", "ba"))]
    table = cross_rounds_table(CrossTrace([0, 2] * 3, rounds), chars.decode, [0, 2] * 3).text.splitlines()
    starts = {line.index("'a'") for line in table if "keep" in line}
    assert len(starts) == 1, "\n".join(table)
    assert max(len(line) for line in table) < 120, "\n".join(table)
