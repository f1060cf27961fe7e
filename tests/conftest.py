"""Fixtures shared by the grading suites (the grading itself lives in speckata.grading.plugin)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def one_torch_thread():
    """Run a module's tiny-tensor torch work on one thread: a second one only adds waiting,
    and on a busy machine a lot of it. Opt in with pytestmark = pytest.mark.usefixtures(...)."""
    import torch

    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
