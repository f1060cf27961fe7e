"""`python -m speckata.bench passes` times the terms that decide whether a draft pays, on any device.

Here it runs on the CPU, briefly (its figures are not checked: they depend on the machine); the
committed GPU run's record is read by pages 28 and 30, whose doctests check its figures. The
SmolLM2-shaped part needs transformers (the real-model extra) and is tested with the real model's
tests (tests/maintainer/test_real_eagle2.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

from speckata.bench.passes import PASS_SIZES
from speckata.manifest import repo_root


def test_the_bench_times_every_step_of_both_toy_targets_in_one_token_passes(tmp_path):
    out = tmp_path / "passes.json"
    command = [sys.executable, "-m", "speckata.bench", "passes", "--models", "shipped,deep", "--repeats", "2",
               "--calls", "1", "--warmup", "0", "--json", str(out)]
    run = subprocess.run(command, cwd=repo_root(), capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(out.read_text())
    assert record["device"] == "cpu" and record["threads"] == 1 and record["repeats"] == 2
    steps = [f"target pass, {n} tokens" for n in PASS_SIZES] + [
        "eagle step, cached (ex28)", "distilled draft step (ex10)", "medusa heads, one call (ex21)"]
    for model in ("shipped", "deep"):
        rows = record["results"][model]
        assert list(rows) == steps, rows
        assert rows["target pass, 1 tokens"]["passes"] == 1.0  # the unit: its own ratio, repeat by repeat
        for name, row in rows.items():
            low, high = row["spread"]
            assert row["ms"] > 0 and 0 < low <= row["passes"] <= high, (model, name, row)


def test_an_unknown_model_is_refused_by_name():
    command = [sys.executable, "-m", "speckata.bench", "passes", "--models", "shipped,huge"]
    run = subprocess.run(command, cwd=repo_root(), capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 2 and "unknown model 'huge'" in run.stderr, run.stdout + run.stderr


def test_the_committed_gpu_run_names_its_device_and_holds_every_model():
    record = json.loads((repo_root() / "speckata/bench/results/passes-h200.json").read_text())
    assert record["device"] == "cuda" and record["device_name"] == "NVIDIA H200"
    assert set(record["results"]) == {"shipped", "deep", "smollm2", "smollm2 eagle2 rounds"}
    assert set(record["results"]["smollm2 eagle2 rounds"]) == {"b=8 k=4 d=5", "b=24 k=4 d=6", "b=60 k=10 d=6"}
