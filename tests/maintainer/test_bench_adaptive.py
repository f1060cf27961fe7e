"""`python -m speckata.bench adaptive` (exercise 27-adaptive-draft-length) charges each round from the table and prints every decoder."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from speckata.bench.adaptive import round_cost, table_cost
from speckata.decoding.baseline import BatchedSpeculativeResult
from speckata.manifest import repo_root
from speckata.roofline import modelled_draft_cost, modelled_target_cost

COSTS = {"target": np.array([[10.0, 11.0, 12.0], [20.0, 24.0, 28.0]]), "draft": np.array([1.0, 3.0]), "batch_sizes": [1, 3]}


def test_a_round_costs_one_target_pass_of_k_plus_one_and_k_draft_passes():
    assert round_cost(COSTS, 1, 2) == 12.0 + 2 * 1.0
    assert round_cost(COSTS, 3, 0) == 20.0
    assert round_cost(COSTS, 2, 1) == pytest.approx((11.0 + 24.0) / 2 + (1.0 + 3.0) / 2)  # linear between 1 and 3 rows


def test_table_cost_counts_the_active_rows_of_each_round():
    result = BatchedSpeculativeResult([[0] * 4, [0] * 2], [[1, 0], [2]], [2, 1])  # row 1 leaves after round 1
    assert table_cost(COSTS, result) == pytest.approx(round_cost(COSTS, 2, 2) + round_cost(COSTS, 1, 1))


def run_on_a_modelled_table(bench: str, contexts: list[int], tmp_path, *flags: str) -> tuple[str, dict]:
    """`python -m speckata.bench BENCH` on a cost table modelled by speckata.roofline (batch sizes 1, 2, 4):
    what it printed and the record it wrote with --json."""
    sizes = [1, 2, 4]
    record = {"command": "modelled by speckata.roofline", "machine": "none", "batch_sizes": sizes, "context_lengths": contexts,
              "target_cost": {"median": modelled_target_cost(sizes, 3, contexts).tolist()},
              "draft_cost": {"median": modelled_draft_cost(sizes, contexts).tolist()}}
    (tmp_path / "cost.json").write_text(json.dumps(record))
    run = subprocess.run([sys.executable, "-m", "speckata.bench", bench, "--costs", str(tmp_path / "cost.json"), *flags,
                          "--json", str(tmp_path / "out.json")],
                         cwd=repo_root(), capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout, json.loads((tmp_path / "out.json").read_text())


def test_the_bench_prints_every_decoder_on_a_modelled_table(tmp_path):
    stdout, out = run_on_a_modelled_table("adaptive", [64, 1024], tmp_path, "--context", "1024", "--batch-sizes", "1",
                                          "2", "--tokens", "6", "--seed-sets", "2", "--max-gamma", "2")
    assert out["costs"]["context"] == 1024 and set(out["figures"]) == {"1", "2"}
    names = {"plain", "fixed g=1", "fixed g=2", "rule (a) t=0.3", "rule (b)", "rules (a)+(b)"}
    for figure in out["figures"].values():
        assert set(figure["tokens_per_ms"]) == names and all(len(v) == 2 for v in figure["tokens_per_ms"].values())
        assert set(figure["gain"]) == {"rule (a) t=0.3", "rule (b)", "rules (a)+(b)"}
    assert "rules (a)+(b)" in stdout and "gain over" in stdout, stdout


def test_mixed_workload_puts_underline_rows_beside_prose_and_never_reuses_a_window():
    from argparse import Namespace

    from speckata.bench.adaptive_mixed import UNDERLINE, workload
    from speckata.models.pretrained import char_tokenizer

    args = Namespace(batch_sizes=[1, 4])
    underline = char_tokenizer().encode(UNDERLINE)
    sets = [workload(args, s) for s in range(3)]
    assert [len(batch) for batch in sets[0]] == [1, 1, 4]
    kinds = [[row[-len(underline):] == underline for row in batch] for batch in sets[0]]
    assert kinds == [[True], [False], [True, False, True, False]]
    rows = [tuple(row) for batches in sets for batch in batches for row in batch]
    assert len(rows) == len(set(rows)) and all(len(row) == 32 for row in rows)


def test_mixed_gains_compare_each_seed_set_with_its_own_best_fixed_gamma():
    from speckata.bench.adaptive_mixed import gains

    runs = {"fixed g=0": [1.0, 1.0], "fixed g=1": [2.0, 0.5], "rule (b)": [2.0, 1.5]}
    out = gains(runs)
    assert out["best_fixed"] == ["fixed g=1", "fixed g=0"]
    assert out["over_best_fixed"]["rule (b)"] == [1.0, 1.5] and out["over_plain"]["rule (b)"] == [2.0, 1.5]


def test_the_mixed_bench_chooses_settings_on_hold_out_sets_and_prints_every_decoder(tmp_path):
    stdout, out = run_on_a_modelled_table("adaptive_mixed", [64], tmp_path, "--batch-sizes", "1", "2", "--tokens", "4",
                                          "--seed-sets", "2", "--holdout-sets", "1", "--max-gamma", "2")
    rules = {"rule (a)", "rule (b)", "rule (b) + probe", "rules (a)+(b)", "rules (a)+(b) + probe"}
    assert set(out["evaluation"]["tokens_per_ms"]) == {"fixed g=0", "fixed g=1", "fixed g=2"} | rules
    assert set(out["evaluation"]["over_best_fixed"]) == rules and len(out["evaluation"]["best_fixed"]) == 2
    assert out["chosen"]["rules (a)+(b) + probe"]["probe_every"] in (2, 8)
    assert all(len(values) == 1 for values in out["holdout"]["tokens_per_ms"].values())
    assert "over the best fixed" in stdout, stdout
