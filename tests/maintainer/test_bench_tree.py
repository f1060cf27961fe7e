"""`python -m speckata.bench tree` (exercise 24's bench): its measures, its dynamic decoder, a short run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

from speckata.bench.tree_dynamic import dynamic_generate
from speckata.bench.tree_measures import acceptance_vector, sampled_chances
from speckata.decoding.baseline import autoregressive_generate
from speckata.manifest import repo_root
from speckata.models.markov import MarkovModel, random_markov_model
from speckata.real.graded import graded_function

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_sampled_chances_follow_specinfer_residuals():
    p = torch.tensor([[0.5, 0.5, 0.0]], dtype=torch.float64)
    q = torch.tensor([[0.25, 0.25, 0.5]], dtype=torch.float64)
    # first child: sum min(p, q) = 0.5; residual max(p - q, 0) normalised = (0.5, 0.5, 0): again 0.5
    assert sampled_chances(p, q, 3).tolist() == [[0.5, 0.25, 0.125]]
    assert sampled_chances(q, q, 2).tolist() == [[1.0, 0.0]]  # a draft equal to the target: always the first


def test_top_k_acceptance_of_an_order_one_chain_is_the_targets_mass_on_the_drafts_ranks():
    target = MarkovModel([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3], [0.4, 0.4, 0.2]])
    draft = MarkovModel([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]])
    vector, positions = acceptance_vector(target, draft, torch.tensor([[0, 0]]), 1.0, 3, "top_k")
    # after token 0 the draft ranks 1, 2, 0: c = (0.6, 0.3, 0.1), so a = (0.6, 0.3 / 0.4, 0.1 / 0.1)
    assert positions == 1 and vector == pytest.approx([0.6, 0.75, 1.0])


def test_the_dynamic_decoder_at_temperature_zero_is_the_targets_greedy_decoding():
    tree_generate = graded_function("ex20_tree_verification", "tree_speculative_generate")
    dynamic_tree = graded_function("ex24_tree_shapes", "dynamic_tree")
    target, draft, expander = (random_markov_model(5, 2, seed, 2.0) for seed in (3, 4, 4))
    result = dynamic_generate(tree_generate, dynamic_tree, target, draft, expander, [1, 2], 20, torch.Generator(), 0.0,
                              6, 2, 3)
    assert result.tokens == autoregressive_generate(target, [1, 2], 20, torch.Generator(), temperature=0)
    assert result.target_passes == len(result.accepted_per_pass) and sum(result.accepted_per_pass) + \
        result.target_passes == 20


def test_a_short_run_prints_every_decoder_and_writes_its_json(tmp_path):
    out = tmp_path / "tree.json"
    run = subprocess.run([sys.executable, "-m", "speckata.bench", "tree", "--tokens", "6", "--prompts", "1",
                          "--seed-sets", "2", "--budgets", "4", "--acceptance-windows", "2", "--cost-repeats", "2",
                          "--walltime-repeats", "1",
                          "--json", str(out)], cwd=repo_root(), capture_output=True, text=True, timeout=600,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    names = {" ".join(line.split()[:3]) for line in run.stdout.splitlines() if " n=4 " in line + " "}
    assert {"chain sampled n=4", "fixed sampled n=4", "dp sampled n=4", "chain top_k n=4",
            "dp top_k n=4", "dynamic top_k n=4"} <= names, run.stdout
    assert "acceptance vector, sampled children" in run.stdout and "acceptance vector, top_k children" in run.stdout
    report = json.loads(out.read_text())
    assert len(report["rows"]) == 6 and all(len(row["per_seed_set"]) == 2 for row in report["rows"])
    assert set(report["pass_costs"]) == {"1", "5", "9", "17", "33", "draft"}
    assert set(report["walltime"]) == {"plain", "chain sampled n=4", "dp sampled n=4"}
