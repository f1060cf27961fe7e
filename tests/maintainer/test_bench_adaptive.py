"""`python -m speckata.bench adaptive` (exercise 27-adaptive-draft-length) charges each round from the table and prints every decoder."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from speckata.bench.adaptive import round_cost, table_cost
from speckata.manifest import repo_root
from speckata.models.decoding import BatchedSpeculativeResult
from speckata.roofline import modelled_draft_cost, modelled_target_cost

COSTS = {"target": np.array([[10.0, 11.0, 12.0], [20.0, 24.0, 28.0]]), "draft": np.array([1.0, 3.0]), "batch_sizes": [1, 3]}


def test_a_round_costs_one_target_pass_of_k_plus_one_and_k_draft_passes():
    assert round_cost(COSTS, 1, 2) == 12.0 + 2 * 1.0
    assert round_cost(COSTS, 3, 0) == 20.0
    assert round_cost(COSTS, 2, 1) == pytest.approx((11.0 + 24.0) / 2 + (1.0 + 3.0) / 2)  # linear between 1 and 3 rows


def test_table_cost_counts_the_active_rows_of_each_round():
    result = BatchedSpeculativeResult([[0] * 4, [0] * 2], [[1, 0], [2]], [2, 1])  # row 1 leaves after round 1
    assert table_cost(COSTS, result) == pytest.approx(round_cost(COSTS, 2, 2) + round_cost(COSTS, 1, 1))


def test_the_bench_prints_every_decoder_on_a_modelled_table(tmp_path):
    sizes, contexts = [1, 2, 4], [64, 1024]
    record = {"command": "modelled by speckata.roofline", "machine": "none", "batch_sizes": sizes, "context_lengths": contexts,
              "target_cost": {"median": modelled_target_cost(sizes, 3, contexts).tolist()},
              "draft_cost": {"median": modelled_draft_cost(sizes, contexts).tolist()}}
    (tmp_path / "cost.json").write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "speckata.bench", "adaptive", "--costs", str(tmp_path / "cost.json"),
                          "--context", "1024", "--batch-sizes", "1", "2", "--tokens", "6", "--seed-sets", "2",
                          "--max-gamma", "2", "--json", str(tmp_path / "out.json")],
                         cwd=repo_root(), capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["costs"]["context"] == 1024 and set(out["figures"]) == {"1", "2"}
    names = {"plain", "fixed g=1", "fixed g=2", "rule (a) t=0.3", "rule (b)", "rules (a)+(b)"}
    for figure in out["figures"].values():
        assert set(figure["tokens_per_ms"]) == names and all(len(v) == 2 for v in figure["tokens_per_ms"].values())
        assert set(figure["gain"]) == {"rule (a) t=0.3", "rule (b)", "rules (a)+(b)"}
    assert "rules (a)+(b)" in run.stdout and "gain over" in run.stdout, run.stdout
