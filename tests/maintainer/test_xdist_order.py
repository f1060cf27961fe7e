"""CI's two processes get two halves of equal cost (tests/maintainer/xdist_order.py): only the order changes."""

from __future__ import annotations

import random
from types import SimpleNamespace

from tests.maintainer.xdist_order import balanced_order, key


def fake_item(nodeid: str, shared: str | None = None):
    """What balanced_order reads of a pytest item: its node id and the scopes of its fixtures."""
    definitions = {shared: [SimpleNamespace(scope="module")]} if shared else {}
    return SimpleNamespace(nodeid=nodeid, _fixtureinfo=SimpleNamespace(name2fixturedefs=definitions))


def collection(seed: int):
    draw = random.Random(seed)
    items, seconds = [], {}
    for module in range(12):
        shared = "graded" if module % 4 == 0 else None
        for test in range(draw.randint(5, 200)):
            item = fake_item(f"tests/maintainer/test_m{module}.py::test_{test}", shared)
            items.append(item)
            seconds[key(item)] = draw.choice([0.01, 0.1, 0.3, 2.0, 9.0, 60.0, 170.0])
    return items, seconds


def half_costs(order, seconds):
    middle = len(order) // 2
    return [sum(seconds[key(item)] for item in half) for half in (order[:middle], order[middle:])]


def test_every_test_runs_once_in_halves_of_equal_cost():
    for seed in range(20):
        items, seconds = collection(seed)
        order = balanced_order(items, seconds)
        assert sorted(map(id, order)) == sorted(map(id, items))
        first, second = half_costs(order, seconds)
        largest = max(seconds.values())
        assert abs(first - second) <= largest, (seed, first, second)


def unit_costs(half, seconds):
    """The cost of each unit along a half: a run of one shared module's tests is one unit."""
    costs, previous = [], None
    for item in half:
        module = item.nodeid.split("::")[0] if item._fixtureinfo.name2fixturedefs else None
        if module is not None and module == previous:
            costs[-1] += seconds[key(item)]
        else:
            costs.append(seconds[key(item)])
        previous = module
    return costs


def test_tests_that_share_a_module_fixture_stay_together_and_each_half_runs_its_costliest_first():
    for seed in range(20):
        items, seconds = collection(seed)
        order = balanced_order(items, seconds)
        middle = len(order) // 2
        for half in (order[:middle], order[middle:]):
            costs = unit_costs(half, seconds)
            assert costs == sorted(costs, reverse=True), seed
        for module in range(0, 12, 4):
            places = [index for index, item in enumerate(order) if f"test_m{module}.py" in item.nodeid]
            assert places == list(range(places[0], places[0] + len(places))), (seed, module)
            assert len({index < middle for index in places}) == 1, (seed, module)


def test_the_order_is_the_same_in_every_worker():
    items, seconds = collection(7)
    assert [item.nodeid for item in balanced_order(items, seconds)] == \
           [item.nodeid for item in balanced_order(list(items), dict(seconds))]
