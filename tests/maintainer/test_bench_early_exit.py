"""`python -m speckata.bench early_exit` runs exercise 23 at every exit layer on both targets, and its
committed run (speckata/bench/results/early-exit.json, read by page 23) holds what the page says."""

from __future__ import annotations

import json
import subprocess
import sys

from speckata.manifest import repo_root

DECODERS = ["plain"] + [f"exit k={k}" for k in range(1, 6)]
ROWS = [f"{target} {decoder}" for target in ("shipped", "layerskip") for decoder in DECODERS]


def test_the_bench_prints_every_exit_layer_of_both_targets_and_the_cost_model():
    run = subprocess.run([sys.executable, "-m", "speckata.bench", "early_exit", "--tokens", "6", "--prompts", "1",
                          "--seed-sets", "2", "--repeats", "1"], cwd=repo_root(), capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    table, steps = run.stdout.split("\n\n")
    rows = {" ".join(line.split()[:3]) if "exit" in line else " ".join(line.split()[:2]): line
            for line in table.splitlines()[2:]}
    assert list(rows) == ROWS, run.stdout
    assert rows["shipped plain"].split()[2:4] == ["1.00", "1.00..1.00"], rows["shipped plain"]
    assert [line.split(":")[0].strip() for line in steps.splitlines()[1:]] == [f"k={k}" for k in range(1, 6)], steps


def test_the_committed_run_covers_every_exit_layer_with_its_spread_and_prediction():
    record = json.loads((repo_root() / "speckata/bench/results/early-exit.json").read_text())
    assert record["command"].startswith("python -m speckata.bench early_exit")
    assert list(record["rows"]) == ROWS and record["settings"]["threads"] == 1
    for name, row in record["rows"].items():
        low, high = min(row["speedup_per_set"]), max(row["speedup_per_set"])
        assert low <= row["speedup"] * 1.0000001 and row["speedup"] <= high * 1.0000001, name  # within its spread
        assert len(row["speedup_per_set"]) == record["settings"]["seed_sets"]
    assert sorted(record["predicted"]) == sorted(name for name in ROWS if "exit" in name)
