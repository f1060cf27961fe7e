"""`python -m speckata.bench heads` runs every decoder of the heads track and reports what it says."""

from __future__ import annotations

import subprocess
import sys

from speckata.bench.heads import acceptance_by_depth
from speckata.decoding.baseline import SpeculativeResult
from speckata.manifest import repo_root


def test_acceptance_by_depth_counts_only_rounds_that_drafted_that_deep():
    one, two = SpeculativeResult(), SpeculativeResult()
    one.drafted_per_pass, one.accepted_per_pass = [3, 3, 1], [3, 0, 1]
    two.drafted_per_pass, two.accepted_per_pass = [2], [1]
    # depth 1: 4 rounds drafted, 3 kept one; depth 2: 3 drafted, 1 kept two; depth 3: 2 drafted, 1 kept three
    assert acceptance_by_depth([one, two]) == [3 / 4, 1 / 3, 1 / 2]


def test_the_bench_prints_every_decoder_greedy_and_sampled():
    for temperature, medusa in (("0", True), ("1", False)):
        run = subprocess.run([sys.executable, "-m", "speckata.bench", "heads", "--tokens", "8", "--prompts", "1",
                              "--seed-sets", "2", "--repeats", "1", "--step-timings", "1",
                              "--temperature", temperature], cwd=repo_root(),
                             capture_output=True, text=True, timeout=600, check=False)
        assert run.returncode == 0, run.stdout + run.stderr
        table, steps, eagle2 = run.stdout.split("\n\n")
        rows = {line.split("  ")[0].strip(): line for line in table.splitlines()[4:]}
        expected = {"plain", "ex10 draft g=4", "ex10 distilled g=4", "eagle g=4", "eagle cached g=4",
                    "early exit k=2 g=4", "early exit k=4 g=4", "medusa tree b=8", "medusa tree b=16",
                    "medusa tree b=32", "eagle2 b=4 k=1 d=4", "eagle2 b=10 k=2 d=5",
                    "eagle2 b=16 k=4 d=5", "eagle2 b=24 k=4 d=6"} | ({"medusa 3 heads"} if medusa else set())
        assert set(rows) == expected, run.stdout
        assert rows["plain"].split()[1:3] == ["1.00", "1.00..1.00"], rows["plain"]
        # exercises 22 and 28 draft the same tokens: the same tokens per pass in every seed set
        assert rows["eagle g=4"].split()[2:4] == rows["eagle cached g=4"].split()[3:5], run.stdout
        if medusa:  # greedy: exercise 30's tree with top_k 1 and depth 4 is exercise 28's chain of 4 (sampled,
            # its one candidate is the head's top token, not a sample: another rule, other tokens)
            assert rows["eagle2 b=4 k=1 d=4"].split()[4:6] == rows["eagle cached g=4"].split()[3:5], run.stdout
        assert "eagle2 b=24 k=4 d=6" in eagle2 and "head call, 4 row(s)" in eagle2, eagle2
        named = [line.split("  ")[1].strip() for line in steps.splitlines()[1:]]
        assert named == ["target pass, 1 token", "target pass, 5 tokens", "eagle step, no cache (ex22)",
                         "eagle step, cached (ex28)", "q and one sample alone", "distilled draft step (ex10)",
                         "medusa heads, one call (ex21)", "medusa chain, 4 tokens (ex21)",
                         "medusa tree, 1+8 nodes (ex29)", "medusa tree, 1+16 nodes (ex29)",
                         "medusa tree, 1+32 nodes (ex29)"], steps


def test_the_bench_runs_on_the_deep_twin_with_the_heads_trained_on_it():
    run = subprocess.run([sys.executable, "-m", "speckata.bench", "heads", "--model", "deep", "--tokens", "6",
                          "--prompts", "1", "--seed-sets", "2", "--repeats", "1", "--step-timings", "1"], cwd=repo_root(),
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "target: 24 layers" in run.stdout, run.stdout
    table = run.stdout.split("\n\n")[0]
    assert {"medusa 3 heads", "eagle cached g=4", "eagle2 b=10 k=2 d=5"} <= {
        line.split("  ")[0].strip() for line in table.splitlines()[4:]}, run.stdout
