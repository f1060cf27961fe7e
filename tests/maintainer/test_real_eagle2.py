"""EAGLE-2's tree on SmolLM2-135M (speckata.real.eagle2_tree): the target's tree pass, the head's
masked tree rows, greedy equality with plain decoding, and the settings' ValueErrors.

Needs the optional extra (``bash scripts/setup-real.sh``). Without it these tests skip, saying so;
with ``SPECKATA_REQUIRE_REAL=1`` (CI) a missing extra fails them instead. The walk comes from the
graded folder (``--target solutions``): exercise 20's ``walk``. Nothing here times anything; float
comparisons allow float32 rounding (a tree pass of n rows and n one-row passes may sum in another
order), and each one is shown to fail for the mistake it guards against.
"""

from __future__ import annotations

import os

import pytest

from speckata.real.load import missing_parts

REQUIRED = os.environ.get("SPECKATA_REQUIRE_REAL") == "1"
TOLERANCE = 2e-3  # logits are O(10): float32 rounding over 30 layers stays far below this
# A tree hanging from the prompt's last token: node 0 and 1 are siblings, 2 is 0's child, 3 is 2's.
PARENTS, TREE_TOKENS, PATH = [-1, -1, 0, 2, 1], [504, 253, 314, 1032, 28], [0, 2, 3]


@pytest.fixture(scope="module")
def real():
    if missing_parts():
        message = (f"the real-model extra is not installed (missing: {', '.join(missing_parts())}); "
                   "set it up with: bash scripts/setup-real.sh")
        if REQUIRED:
            pytest.fail(f"SPECKATA_REQUIRE_REAL=1 but {message}")
        pytest.skip(message)
    import torch

    from speckata.real.eagle_head import FeatureTarget, load_head
    from speckata.real.lean_llama import LeanLlama
    from speckata.real.load import load_target, load_tokenizer

    torch.set_num_threads(1)
    model, tokenizer = load_target(), load_tokenizer()
    lean = LeanLlama(model, capacity=64)
    return {"torch": torch, "tokenizer": tokenizer, "lean": lean, "target": FeatureTarget(lean), "head": load_head()}


def prompt_ids(real, index=0):
    from speckata.real.prompts import EQUALITY_PROMPTS, chat_ids

    return chat_ids(real["tokenizer"], EQUALITY_PROMPTS[index])


def tree_logits(real, prompt, positions_by_depth=True):
    """The prompt in one pass, then the tree in one forward_tree; its logits (len(PARENTS), V)."""
    from speckata.grading import learner_function

    mask_of = learner_function("18-tree-attention-mask", "tree_attention_mask")
    positions_of = learner_function("18-tree-attention-mask", "tree_position_ids")
    lean, start = real["lean"], len(prompt)
    lean.reset()
    lean.forward_new(prompt)
    positions = positions_of(PARENTS, start) if positions_by_depth else real["torch"].arange(start, start + len(PARENTS))
    return lean.forward_tree(TREE_TOKENS, mask_of(PARENTS, start), positions)


def sequential_logits(real, prompt, tokens):
    lean = real["lean"]
    lean.reset()
    lean.forward_new(prompt)
    return real["torch"].cat([lean.forward_new([token]) for token in tokens])


def test_the_tree_pass_gives_each_path_node_the_logits_of_one_token_passes_along_its_path(real):
    prompt = prompt_ids(real)
    torch = real["torch"]
    expected = sequential_logits(real, prompt, [TREE_TOKENS[node] for node in PATH])
    got = tree_logits(real, prompt)[PATH]
    assert float((got - expected).abs().max()) < TOLERANCE
    # The check sees a tree whose nodes are rotated by their row instead of their depth (node 3 sits
    # in row 3 at depth 2, node 2 in row 2 at depth 1): their logits move by far more than rounding.
    wrong = tree_logits(real, prompt, positions_by_depth=False)[PATH]
    assert float((wrong - expected).abs().max()) > 50 * TOLERANCE
    real["lean"].reset()
    assert torch.isfinite(got).all()


def test_keep_path_compacts_the_path_into_the_cache(real):
    """After keep_path, the cache holds prompt + path: the next one-token pass equals the sequential one."""
    prompt = prompt_ids(real)
    following = 42
    expected = sequential_logits(real, prompt, [TREE_TOKENS[node] for node in PATH] + [following])[-1]
    tree_logits(real, prompt)
    lean = real["lean"]
    lean.keep_path(PATH)
    assert lean.cache_length == len(prompt) + len(PATH)
    got = lean.forward_new([following])[-1]
    assert float((got - expected).abs().max()) < TOLERANCE
    tree_logits(real, prompt)
    lean.keep_path([1])  # the sibling, not on the path: a wrong compaction is seen
    assert float((lean.forward_new([following])[-1] - expected).abs().max()) > 50 * TOLERANCE
    lean.reset()


def test_a_pending_tree_refuses_forward_new_until_a_path_is_kept(real):
    tree_logits(real, prompt_ids(real))
    with pytest.raises(ValueError, match="keep_path"):
        real["lean"].forward_new([1])
    real["lean"].keep_path([])
    real["lean"].reset()


def test_the_heads_masked_tree_rows_equal_each_branch_run_alone(real):
    """Two sibling rows in one masked head step give each the features it gets as the only new row."""
    from speckata.real.eagle_head import HeadRunner

    torch, prompt = real["torch"], prompt_ids(real)
    real["target"].reset()
    features, _ = real["target"].forward_hidden(prompt, rows=1)
    runner = HeadRunner(real["head"], real["target"])
    with torch.inference_mode():
        root = runner._step(features[:-1], prompt[1:])[-1]
        start = runner.length
        mask = torch.zeros(2, start + 2, dtype=torch.bool)
        mask[:, :start] = True
        mask[0, start], mask[1, start + 1] = True, True
        both = runner._step(torch.stack([root, root]), [504, 253], mask)
        for row, token in enumerate([504, 253]):
            runner.length = start
            alone = runner._step(root[None], [token])[-1]
            assert float((both[row] - alone).abs().max()) < 1e-4
        runner.length = start  # without the mask the second row would see its sibling: a different feature
        causal = runner._step(torch.stack([root, root]), [504, 253])
    assert float((causal[1] - both[1]).abs().max()) > 1e-3
    real["target"].reset()


@pytest.mark.parametrize("index", [0, 1])
def test_eagle2_greedy_equals_plain_greedy(real, index):
    """16 tokens at temperature 0, budget 8, top-k 4, depth 4: token for token plain greedy decoding on the
    same LeanLlama, every round's path no deeper than the tree."""
    from speckata.grading import learner_function
    from speckata.real.eagle2_tree import eagle2_generate
    from speckata.real.plain import plain_generate

    torch, prompt = real["torch"], prompt_ids(real, index)
    expected = plain_generate(real["lean"], prompt, 16, torch.Generator().manual_seed(0), 0)
    walk = learner_function("20-tree-verification", "walk")
    result = eagle2_generate(real["target"], real["head"], prompt, 16, 8, 4, 4, torch.Generator().manual_seed(0),
                             0, walk)
    assert result.tokens == expected, f"prompt {index}: EAGLE-2's tree differs from plain greedy decoding"
    assert result.target_passes == 1 + len(result.accepted_per_pass) <= 16
    assert all(a <= min(d, 4) for a, d in zip(result.accepted_per_pass, result.drafted_per_pass))
    assert max(result.drafted_per_pass[:-1]) == 8  # the budget, while more than one level was left


def test_sampling_with_one_seed_repeats_and_stays_in_the_vocabulary(real):
    from speckata.real.eagle2_tree import eagle2_generate

    torch, prompt = real["torch"], prompt_ids(real)
    runs = [eagle2_generate(real["target"], real["head"], prompt, 12, 6, 3, 3, torch.Generator().manual_seed(7), 1.0)
            for _ in range(2)]
    assert runs[0].tokens == runs[1].tokens and len(runs[0].tokens) == 12
    assert all(0 <= token < real["lean"].vocab_size for token in runs[0].tokens)


@pytest.mark.parametrize("settings, named", [((0, 4, 4), "budget"), ((8, 0, 4), "top_k"), ((8, 4097, 4), "top_k"),
                                             ((8, 4, 0), "depth"), ((100, 2, 3), "budget")])
def test_bad_tree_settings_are_refused_by_name(real, settings, named):
    from speckata.real.eagle2_tree import eagle2_generate

    with pytest.raises(ValueError, match=named):
        eagle2_generate(real["target"], real["head"], prompt_ids(real), 8, *settings,
                        real["torch"].Generator().manual_seed(0), 0)


def test_the_passes_bench_times_a_model_of_smollm2s_shape_and_its_rounds(real, tmp_path):
    """`python -m speckata.bench passes --models smollm2` (the GPU run's SmolLM2 part, here on the
    CPU, briefly): every pass size and the three EAGLE-2 rounds, in one-token passes. Its main runs
    in this process, where transformers is already imported (the command line's own parsing and
    start are tested on the toy models in test_bench_passes.py)."""
    import json

    from speckata.bench.passes import PASS_SIZES, main

    out = tmp_path / "passes.json"
    torch = real["torch"]
    try:
        assert main(["--models", "smollm2", "--repeats", "1", "--calls", "1", "--warmup", "0", "--json", str(out)]) == 0
    finally:
        torch.set_default_device("cpu")  # main sets the device it was asked for: leave the process as it was
        torch.set_num_threads(1)
    results = json.loads(out.read_text())["results"]
    assert list(results["smollm2"]) == [f"SmolLM2 pass, {n} tokens" for n in PASS_SIZES]
    for name, row in results["smollm2 eagle2 rounds"].items():
        budget = int(name.split()[0][2:])
        assert row["tree_nodes"] == budget and row["one_token_passes"] == 1.0, (name, row)
        assert row["tree_pass_passes"] > 0 and row["draft_passes"] > 0, (name, row)
