"""The first message names the cause on exercises 18 to 20, for wrong versions a learner writes.

As in test_diagnostics_14_to_17.py: each wrong version is an edited copy of the solution, loaded
from a file as the learner's module, and the suite's own test runs in-process with it.
"""

from __future__ import annotations

import pytest

from speckata.grading.learner_code import install_finder
from speckata.manifest import repo_root
from tests.maintainer.wrong_learners import edited_solution, failure_of, in_learners_place


@pytest.fixture(autouse=True)
def exercise_imports():
    """Exercise 20's solution imports exercise 18 from the graded folder, as the learner's does."""
    install_finder()


# 18: mask columns are named with the node they hold ---------------------------------------------

def test_18_a_wrong_row_names_mask_columns_and_their_nodes(tmp_path, monkeypatch):
    from tests import test_18_tree_attention_mask as suite

    in_learners_place(tmp_path, monkeypatch, suite, "tree_attention_mask", "18-tree-attention-mask", (
        "            ancestor = parents[ancestor]\n", "            ancestor = parents[ancestor] if ancestor == node else -1\n"))
    lines = str(failure_of(suite.test_worked_example_mask)).splitlines()
    assert "  rows are nodes; mask columns 0..1 are the prefix, then mask column j is tree node j - 2 (columns 2..5)" in lines
    assert "    (the prefix, itself and its ancestors [1, 0]: mask columns 2 (node 0), 3 (node 1), 5 (node 3))" in lines
    assert not any("tree columns" in line for line in lines), lines


# Bad input: the hint names the checking helpers the learner's file imports, if any ----------------

def test_18_a_vague_message_gets_no_hint_about_another_exercises_helper(tmp_path, monkeypatch):
    from tests import test_18_tree_attention_mask as suite

    vague = edited_solution(tmp_path, "18-tree-attention-mask", ('            raise ValueError(f"node {node} is its own parent")',
                                                                 '            raise ValueError(f"node {node} points at itself")'))
    monkeypatch.setattr(suite, "learner_function", lambda exercise, name: getattr(vague, name))
    text = str(failure_of(suite.test_bad_trees_raise_a_value_error_naming_the_problem, "self-parent", "tree_attention_mask"))
    assert text.splitlines()[0] == ("tree_attention_mask rightly raised ValueError for node 1 whose parent is 1, but its "
                                    "message does not name the problem."), text
    assert "check_step_inputs" not in text and "you may call" not in text, text


def test_20_a_vague_message_is_pointed_at_the_exercises_own_helper(tmp_path, monkeypatch):
    from tests import test_20_tree_verification as suite

    in_learners_place(tmp_path, monkeypatch, suite, "tree_speculative_generate", "20-tree-verification", (
        "    sequence, full_shape = check_tree_generation_inputs(",
        "    if not tree:\n        raise ValueError('nothing to draft')\n    sequence, full_shape = check_tree_generation_inputs("))
    text = str(failure_of(suite.test_bad_input_raises_value_error, "empty-tree"))
    assert text.splitlines()[-1] == ("(check_tree_generation_inputs, which your file imports from speckata, writes such "
                                     "messages; you may call it.)"), text
    assert "check_step_inputs" not in text


def test_14_still_points_at_check_step_inputs(tmp_path, monkeypatch):
    from tests import test_14_block_verification as suite

    in_learners_place(tmp_path, monkeypatch, suite, "block_verify", "14-block-verification", (
        "    p, q, draft = check_step_inputs(p, q, draft)\n    gamma = len(draft)\n",
        "    if len(draft) and max(draft) >= len(p[0]):\n        raise ValueError('bad draft')\n"
        "    p, q, draft = check_step_inputs(p, q, draft)\n    gamma = len(draft)\n"))
    text = str(failure_of(suite.test_bad_input_raises_a_value_error_naming_the_problem, "token-past-the-vocabulary"))
    assert "(check_step_inputs, which your file imports from speckata, writes such messages" in text, text


# 19: the whole prompt is marked as cut; a crop that changes nothing is neither required nor refused ------

NEEDLESS_CROP = ("        if model.cache_length > len(sequence) - 1:\n            model.crop(len(sequence) - 1)",
                 "        model.crop(len(sequence) - 1)")
SHORT_CROP = ("        if model.cache_length > len(sequence) - 1:\n            model.crop(len(sequence) - 1)",
              "        if model.cache_length > len(sequence) - 1:\n            model.crop(len(sequence) - 2)")


def test_19_a_crop_that_changes_nothing_passes_as_the_crop_rule_says(tmp_path, monkeypatch):
    from tests import test_19_jacobi_decoding as suite

    in_learners_place(tmp_path, monkeypatch, suite, "jacobi_generate", "19-jacobi-decoding", NEEDLESS_CROP)
    suite.test_worked_example()
    suite.test_calls_follow_the_contract_with_a_given_guess()
    notebook = (repo_root() / "notebooks" / "sources" / "19-jacobi-decoding.py").read_text()
    assert '("forward", (0, 1, 2), 0), ("forward", (3, 3, 3), 3)' in notebook, "the notebook compares the same calls"


def test_19_a_long_prompt_is_shown_cut_with_an_ellipsis(tmp_path, monkeypatch):
    from tests import test_19_jacobi_decoding as suite

    in_learners_place(tmp_path, monkeypatch, suite, "jacobi_generate", "19-jacobi-decoding", SHORT_CROP)
    case = str(failure_of(suite.test_calls_follow_the_contract_on_the_trained_target, 2)).splitlines()[-1]
    assert "prompt [69, 70, 71, 1, 84, 81, 70, 68, 86, 77, 66, 85, …] (21 tokens), max_new_tokens 30" in case, case


# 20: the round whose walk went wrong; ties; the fallback stated --------------------------------

def test_20_a_residual_left_unnormalised_is_reported_at_the_round_it_went_wrong(tmp_path, monkeypatch):
    from tests import test_20_tree_verification as suite

    in_learners_place(tmp_path, monkeypatch, suite, "tree_speculative_generate", "20-tree-verification",
                      ("            target = residual / residual.sum()", "            target = residual"))
    lines = str(failure_of(suite.test_target_tree_passes_follow_the_contract, "sampled")).splitlines()
    assert lines[0] == ("tree_speculative_generate emitted [1, 3] in round 1; the contract emits [1, 0] there (1 draft "
                        "accepted, then one more token); everything before was right."), lines
    assert lines[1] == "  the reference's walk in round 1:", lines
    assert "      node 0, candidate 2: residual sample token 0 (u = 0.0576)" in lines, lines


def test_20_a_wrong_keep_path_is_named_by_the_greedy_test(tmp_path, monkeypatch):
    from tests import test_20_tree_verification as suite

    in_learners_place(tmp_path, monkeypatch, suite, "tree_speculative_generate", "20-tree-verification", (
        "        target.keep_path(list(range(m)) + [m + node for node in path])",
        "        target.keep_path(list(range(m)) + [m + node - 1 if node > 0 else m for node in path])"))
    first = str(failure_of(suite.test_greedy_on_markov_chains_is_the_targets_greedy_decoding, 0, "top_k")).splitlines()[0]
    assert first == ("tree_speculative_generate's round 2 went otherwise than the contract's: expected keep_path([0, 2, 5]), got keep_path([0, 1, 4]) "
                     "on the target: the round's tokens are right, but the cache keeps other nodes than pending + the "
                     "accepted path."), first


def test_20_top_k_children_from_torch_topk_fail_on_tied_logits(tmp_path, monkeypatch):
    from tests import test_20_tree_verification as suite

    in_learners_place(tmp_path, monkeypatch, suite, "tree_speculative_generate", "20-tree-verification", (
        "        return torch.argsort(logits, descending=True, stable=True)[:count].tolist()",
        "        return torch.topk(logits, count).indices.tolist()"))
    lines = str(failure_of(suite.test_tied_draft_logits_rank_the_lower_token_first)).splitlines()
    assert lines[0].startswith("Children ranked among tied draft logits come in the contract's order: "
                               "torch.argsort(row, descending=True, stable=True), the lower token id first"), lines
    assert lines[2].startswith("  expected forward_tree(ids [0, 1, 2, 3, 0, 1, 0, 1, 0, 1]"), lines


def test_20_states_the_stop_trying_children_fallback_as_16_does():
    texts = {number: " ".join((repo_root() / "exercises" / name).read_text().split())
             for number, name in (("16", "ex16_top_k_drafts.py"), ("20", "ex20_tree_verification.py"))}
    assert "stop trying candidates and return sample(p, rng)" in texts["16"]
    assert ("if then left.sum() <= 1e-12, stop trying children (no draw for the ones left): the correction is "
            "sample_token(p, generator)") in texts["20"]
