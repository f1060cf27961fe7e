"""The first message names the cause on exercises 14 to 17, for wrong versions a learner writes.

Each wrong version is an edited copy of the solution (``edited_solution``: each `find` occurs
once), loaded from a file as the learner's module. The suite's own test function then runs
in-process with that module's function in place of the learner's, and the first lines of the
GradingFailure it raises are checked.
"""

from __future__ import annotations

import importlib.util
import itertools

import pytest

from speckata.grading import GradingFailure
from speckata.manifest import exercise_by_id, repo_root

_loaded = itertools.count()


def edited_solution(tmp_path, exercise_id: str, *edits: tuple[str, str]):
    """The exercise's solution with each (find, replace) applied, loaded from a file of its own."""
    file = exercise_by_id(exercise_id).file
    source = (repo_root() / "solutions" / file).read_text()
    for find, replace in edits:
        assert source.count(find) == 1, f"{find!r} must occur once in solutions/{file}"
        source = source.replace(find, replace)
    path = tmp_path / f"wrong_{next(_loaded)}" / file
    path.parent.mkdir(parents=True)
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"learner_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def failure_of(test, *args) -> GradingFailure:
    with pytest.raises(GradingFailure) as caught:
        test(*args)
    return caught.value


# 15: the draw-count note only when the count itself is the mistake ---------------------------------

INCLUSIVE_15 = ("        if rng.random() < p[x] / q[x]:\n            return x, index\n        p = next_target(p, q)\n"
                "    return sample(p, rng), None\n\n\ndef verify_candidates_without",
                "        if rng.random() <= p[x] / q[x]:\n            return x, index\n        p = next_target(p, q)\n"
                "    return sample(p, rng), None\n\n\ndef verify_candidates_without")


def test_15_accepting_a_candidate_the_reference_rejects_is_not_blamed_on_another_random_source(tmp_path, monkeypatch):
    from tests.reference import ex15_cases
    from tests import test_15_multi_candidate as suite

    learner = edited_solution(tmp_path, "15-multi-candidate", INCLUSIVE_15)
    monkeypatch.setattr(ex15_cases, "verifier", lambda without: learner.verify_candidates)
    text = str(failure_of(suite.test_iid_u_equal_to_the_ratio_rejects))
    assert text.startswith("verify_candidates (i.i.d. candidates) got u == p/q"), text
    assert "yours:     (1, 0) after 1 draw" in text, text
    assert "another random source" not in text and "draw nothing ahead" not in text, text


def test_15_rejecting_a_candidate_the_reference_accepts_is_not_called_drawing_ahead(tmp_path, monkeypatch):
    from tests.reference import ex15_cases
    from tests import test_15_multi_candidate as suite

    learner = edited_solution(tmp_path, "15-multi-candidate", ("    residual = np.maximum(p - q, 0.0)\n",
                                                               "    residual = np.maximum(q - p, 0.0)\n"))
    monkeypatch.setattr(ex15_cases, "verifier", lambda without: learner.verify_candidates)
    text = str(failure_of(suite.test_iid_worked_example_second_candidate_accepted))
    assert text.startswith("verify_candidates (i.i.d. candidates) got the worked example"), text
    assert "after 3 draws" in text and "draw nothing ahead" not in text, text


def test_15_the_notes_still_name_a_count_that_does_not_match_the_result(tmp_path, monkeypatch):
    from tests.reference import ex15_cases
    from tests import test_15_multi_candidate as suite

    ahead = edited_solution(tmp_path, "15-multi-candidate", (
        "    for index, x in enumerate(candidates):\n        if rng.random() < p[x] / q[x]:\n            return x, index\n"
        "        p = next_target(p, q)\n    return sample(p, rng), None\n\n\ndef verify_candidates_without",
        "    uniforms = [rng.random() for _ in candidates]\n    for index, x in enumerate(candidates):\n"
        "        if uniforms[index] < p[x] / q[x]:\n            return x, index\n"
        "        p = next_target(p, q)\n    return sample(p, rng), None\n\n\ndef verify_candidates_without"))
    monkeypatch.setattr(ex15_cases, "verifier", lambda without: ahead.verify_candidates)
    assert "draw nothing ahead" in str(failure_of(suite.test_iid_first_candidate_accepted_draws_once))


# 16: the chance column is not headed p/q ----------------------------------------------------------

def test_16_the_chance_column_is_not_headed_p_over_q(tmp_path, monkeypatch):
    from tests import test_16_top_k_drafts as suite

    learner = edited_solution(tmp_path, "16-top-k-drafts", ("        if u < left[x] / left.sum():\n",
                                                            "        if u < min(1.0, p[x] / q[x]):\n"))
    monkeypatch.setattr(suite, "verify_top_k", lambda: learner.verify_top_k)
    lines = str(failure_of(suite.test_worked_example_second_candidate_accepted)).splitlines()
    header = next(line for line in lines if line.split()[:2] == ["out", "pos"])
    assert header.split()[:6] == ["out", "pos", "drafted", "u", "chance", "reference"], header
    assert "p/q" not in "\n".join(lines[lines.index(header):]), "\n".join(lines)
