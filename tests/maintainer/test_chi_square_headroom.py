"""scripts/chi_square_headroom.py: the fewest draws at which the margin gate would still pass a test."""

from __future__ import annotations

import importlib.util

from speckata.manifest import repo_root
from tests.shared.power import estimated_power


def script():
    spec = importlib.util.spec_from_file_location("chi_square_headroom", repo_root() / "scripts" / "chi_square_headroom.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fewest_draws_keep_the_gates_power_and_a_stronger_bias_needs_fewer():
    headroom = script()
    for statistic, df in ((104.0, 24), (409.0, 4), (60.0, 18)):
        fraction = headroom.fewest_fraction(statistic, df, 1e-3)
        assert estimated_power(statistic, df, 1e-3, scale=fraction) >= 0.99 or fraction == 1.0
        if 0.01 < fraction < 1.0:
            assert headroom.fewest_fraction(statistic * 2, df, 1e-3) < fraction  # a stronger bias needs fewer
    assert headroom.fewest_fraction(60.0, 18, 1e-3) == 1.0  # too weak a bias: today's draws are all it has


def test_exercise_01s_test_has_its_headroom_measured_from_its_wrong_versions(capsys):
    worst = script().headroom({"01"})
    assert list(worst) == ["01:test_first_token_is_distributed_as_p"]
    assert 0.0 < worst["01:test_first_token_is_distributed_as_p"] <= 1.0
    assert "replacement-from-p" in capsys.readouterr().out
