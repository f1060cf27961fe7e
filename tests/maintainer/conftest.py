"""Fixtures shared by the maintainer tests: SmolLM2-135M loaded once per run (test_real_model*.py); the
order CI's two processes run the tests in (tests/maintainer/xdist_order.py)."""

from __future__ import annotations

import os

import pytest

from speckata.real.load import missing_parts
from tests.maintainer.xdist_order import reorder

REQUIRED = os.environ.get("SPECKATA_REQUIRE_REAL") == "1"
MISSING = missing_parts()


@pytest.fixture(scope="session")  # two files share one load of the model
def real():
    if MISSING:
        message = (f"the real-model extra is not installed (missing: {', '.join(MISSING)}); "
                   "set it up with: bash scripts/setup-real.sh")
        if REQUIRED:
            pytest.fail(f"SPECKATA_REQUIRE_REAL=1 but {message}")
        pytest.skip(message)
    import torch

    from speckata.real.adapter import HFCachedModel
    from speckata.real.lean_llama import LeanLlama
    from speckata.real.load import load_target, load_tokenizer
    from speckata.real.tiny_draft import WEIGHTS_FILE, draft_from_target, load_draft

    torch.set_num_threads(1)  # on a busy 2-core machine one thread is faster and steadier
    model, tokenizer = load_target(), load_tokenizer()
    draft_model = load_draft(model) if WEIGHTS_FILE.is_file() else draft_from_target(model)
    return {"torch": torch, "model": model, "tokenizer": tokenizer, "draft_model": draft_model,
            "target": HFCachedModel(model), "draft": HFCachedModel(draft_model), "lean": LeanLlama(model, capacity=64)}


@pytest.hookimpl(trylast=True)  # after the grading plugin's order of each suite
def pytest_collection_modifyitems(config, items):
    """In a worker of `pytest -n` only: two halves of equal cost (a plain run keeps the collected order)."""
    if hasattr(config, "workerinput"):
        reorder(items)
