"""The first message names the cause on exercises 14 to 17, for wrong versions a learner writes.

Each wrong version is an edited copy of the solution (``edited_solution``, wrong_learners.py: each
`find` occurs once), loaded from a file as the learner's module. The suite's own test function then
runs in-process with that module's function in place of the learner's, and the first lines of the
GradingFailure it raises are checked.
"""

from __future__ import annotations

from tests.maintainer.wrong_learners import edited_solution, failure_of, in_learners_place

# 15: the draw-count note only when the count itself is the mistake ---------------------------------

INCLUSIVE_15 = ("        if rng.random() < p[x] / q[x]:\n            return x, index\n        p = next_target(p, q)\n"
                "    return sample(p, rng), None\n\n\ndef verify_candidates_without",
                "        if rng.random() <= p[x] / q[x]:\n            return x, index\n        p = next_target(p, q)\n"
                "    return sample(p, rng), None\n\n\ndef verify_candidates_without")


def test_15_accepting_a_candidate_the_reference_rejects_is_not_blamed_on_another_random_source(tmp_path, monkeypatch):
    from tests import test_15_multi_candidate as suite
    from tests.reference import ex15_cases

    learner = edited_solution(tmp_path, "15-multi-candidate", INCLUSIVE_15)
    monkeypatch.setattr(ex15_cases, "verifier", lambda without: learner.verify_candidates)
    text = str(failure_of(suite.test_iid_u_equal_to_the_ratio_rejects))
    assert text.startswith("verify_candidates (i.i.d. candidates) got u == p/q"), text
    assert "yours:     (1, 0) after 1 draw" in text, text
    assert "another random source" not in text and "draw nothing ahead" not in text, text


def test_15_rejecting_a_candidate_the_reference_accepts_is_not_called_drawing_ahead(tmp_path, monkeypatch):
    from tests import test_15_multi_candidate as suite
    from tests.reference import ex15_cases

    learner = edited_solution(tmp_path, "15-multi-candidate", ("    residual = np.maximum(p - q, 0.0)\n",
                                                               "    residual = np.maximum(q - p, 0.0)\n"))
    monkeypatch.setattr(ex15_cases, "verifier", lambda without: learner.verify_candidates)
    text = str(failure_of(suite.test_iid_worked_example_second_candidate_accepted))
    assert text.startswith("verify_candidates (i.i.d. candidates) got the worked example"), text
    assert "after 3 draws" in text and "draw nothing ahead" not in text, text


def test_15_the_notes_still_name_a_count_that_does_not_match_the_result(tmp_path, monkeypatch):
    from tests import test_15_multi_candidate as suite
    from tests.reference import ex15_cases

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

    in_learners_place(tmp_path, monkeypatch, suite, "verify_top_k", "16-top-k-drafts",
                      ("        if u < left[x] / left.sum():\n", "        if u < min(1.0, p[x] / q[x]):\n"))
    lines = str(failure_of(suite.test_worked_example_second_candidate_accepted)).splitlines()
    header = next(line for line in lines if line.split()[:2] == ["out", "pos"])
    assert header.split()[:6] == ["out", "pos", "drafted", "u", "chance", "reference"], header
    assert "p/q" not in "\n".join(lines[lines.index(header):]), "\n".join(lines)


# 14: enough digits to show what decided; plain numbers ------------------------------------------

def test_14_the_row_that_decided_shows_eta_and_h_apart(tmp_path, monkeypatch):
    from tests import test_14_block_verification as suite
    from tests.reference import ex14_cases

    in_learners_place(tmp_path, monkeypatch, ex14_cases, "block_verify", "14-block-verification", (
        "        stops.append(0.0 if surplus <= RESIDUAL_MASS_EPS else surplus / (surplus + 1.0 - weights[i]))\n",
        "        stops.append(surplus / (surplus + 1.0 - weights[i]))\n"))
    lines = str(failure_of(suite.test_a_position_without_residual_mass_is_never_tau)).splitlines()
    assert "                [0.5000000000001, 0.4999999999999]]" in lines, "\n".join(lines)
    header = next(index for index, line in enumerate(lines) if line.split()[:2] == ["out", "i"])
    row = lines[header + 2].split()
    assert row[:6] == ["2", "0", "0.9999999999998", "0.9999999999998", "0.9999999999998", "0.99999999999999"], row
    assert row[6] == "no", row
    width = {len(lines[header + 1].split("(drop)")[0]), len(lines[header + 2].split("(drop)")[0])}
    assert len(width) == 1, "the rows' columns line up\n" + "\n".join(lines)


def test_14_expected_accepted_is_reported_with_plain_numbers(tmp_path, monkeypatch):
    import numpy as np

    from tests import test_14_block_verification as suite
    from tests.reference import ex14_cases

    counts_extra = in_learners_place(tmp_path, monkeypatch, ex14_cases, "expected_accepted", "14-block-verification",
                                     ("    return float(total)\n", "    return np.float64(total) + 1.0\n"))
    assert isinstance(counts_extra.expected_accepted(suite.TOY_P, suite.TOY_Q, "token"), np.float64)
    first = str(failure_of(suite.test_toy_expected_values)).splitlines()[0]
    assert first == ("expected_accepted(p, q, 'token') on the toy (10/9) returned 2.111111111111111; "
                     "expected 1.1111111111111112."), first


# 17: a greedy replacement at argmax q is named as such ------------------------------------------

ARGMAX_Q = ("        replacement[np.argmax(p)] = 1.0", "        replacement[np.argmax(q)] = 1.0")


def test_17_a_replacement_at_argmax_q_is_named_in_the_first_failure(tmp_path, monkeypatch):
    from tests import test_17_typical_acceptance as suite

    learner = edited_solution(tmp_path, "17-typical-acceptance", ARGMAX_Q)
    monkeypatch.setattr(suite, "learner", lambda name: getattr(learner, name))
    suite.test_worked_example_distributions()  # the worked example's uniform q cannot tell them apart
    lines = str(failure_of(suite.test_a_token_exactly_at_the_threshold_is_rejected)).splitlines()
    assert lines[1] == ("Yours puts the rejected mass on token 1, the draft's argmax q; the greedy replacement is the "
                        "target's argmax p, token 0."), lines
    lines = str(failure_of(suite.test_the_greedy_replacement_is_the_targets_argmax_not_the_drafts)).splitlines()
    assert lines[0] == ("typical_output_distribution got a draft whose favourite (token 3) is not the target's (token 0) "
                        "wrong."), lines
    assert "the draft's argmax q" in lines[1], lines


def test_17_the_note_is_not_given_to_other_mistakes(tmp_path, monkeypatch):
    from tests import test_17_typical_acceptance as suite

    learner = edited_solution(tmp_path, "17-typical-acceptance", ("        replacement[np.argmax(p)] = 1.0",
                                                                 "        replacement[len(p) - 1 - np.argmax(p[::-1])] = 1.0"))
    monkeypatch.setattr(suite, "learner", lambda name: getattr(learner, name))
    assert "argmax q" not in str(failure_of(suite.test_greedy_ties_go_to_the_lowest_index))
