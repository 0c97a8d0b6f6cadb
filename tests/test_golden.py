"""The regression net (see ``tests/golden_net.py``): every experiment at quick scale and every
CLI case, recomputed now, equal to the stored numbers to 1e-12.

The expectation is the model's own earlier output, on purpose: this net does not say the
model is right (the other tiers do), it says a refactoring did not change it. A change meant
to move numbers regenerates the net in its own commit.
"""

from __future__ import annotations

import pandas as pd
import pytest

import golden_net as net

pytestmark = pytest.mark.golden


def test_the_net_covers_every_experiment() -> None:
    stored = {p.stem for p in net.EXPERIMENTS.glob("*.csv")}
    missing = set(net.experiment_names()) - stored
    assert not missing, f"no golden table for {sorted(missing)}: python tests/golden_net.py --write"
    assert set(net.read_cli()) == set(net.CLI_CASES)


@pytest.mark.parametrize("name", net.experiment_names())
def test_experiment_matches_its_golden_table(name: str) -> None:
    found = net.table_differences(net.read_table(name), net.experiment_table(name))
    assert not found, f"{name} moved:\n" + "\n".join(found)


@pytest.mark.parametrize("label", sorted(net.CLI_CASES))
def test_cli_matches_its_golden_json(label: str) -> None:
    stored = net.read_cli()[label]
    assert stored["argv"] == net.CLI_CASES[label], "the case changed: regenerate it"
    found = net.value_differences(stored["output"], net.cli_output(stored["argv"]))
    assert not found, f"tcplab {' '.join(stored['argv'])} moved:\n" + "\n".join(found[:5])


def test_the_comparison_can_fail() -> None:
    table = pd.DataFrame({"flows": [1, 2], "utilisation": [0.75, 0.8], "queue": ["red", "red"]})
    assert not net.table_differences(table, table.copy())
    nudged = table.assign(utilisation=[0.75, 0.8 + 1e-9])
    assert net.table_differences(table, nudged)
    assert net.table_differences(table, table.assign(queue=["red", "droptail"]))
    assert net.table_differences(table, table.rename(columns={"flows": "n"}))
    assert net.value_differences({"a": [1.0, 2.0]}, {"a": [1.0, 2.0 + 1e-9]})
    assert net.value_differences({"a": 1}, {"a": 1, "b": 2})
    assert not net.value_differences({"a": [1.0, float("nan")]}, {"a": [1.0, float("nan")]})
    infinite = pd.DataFrame({"ssthresh": [float("inf"), 7.5]})
    assert not net.table_differences(infinite, infinite.copy())
    assert net.table_differences(infinite, infinite.assign(ssthresh=[1e300, 7.5]))
