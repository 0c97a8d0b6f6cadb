"""The sawtooth chapter: its paper-vs-book row and the numbers its prose quotes.

The paper's 75% (Altman et al. 2006, Sec. I) is (1 + beta)/2 at beta = 1/2; the fluid model is
exact, so the claim's tolerance is rounding only. Checked at quick scale (computed now) and on
the full-scale result shipped in data/.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tcplab import ledger, registry
from tcplab.chapters.sawtooth import charts, claims, panel

NAME = "sawtooth-utilisation"


def _table(scale: str) -> pd.DataFrame:
    if scale == "quick":
        return registry.run(NAME, scale="quick")
    return ledger.full_tables("sawtooth")[NAME]


def _judged(table: pd.DataFrame) -> dict[str, ledger.Judged]:
    return {j.entry.key: j for j in ledger.judge("sawtooth", claims.chapter_claims({NAME: table}))}


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_the_75_percent_holds_for_every_eta(scale: str) -> None:
    found = _judged(_table(scale))
    assert {k: j.status for k, j in found.items()} == {
        "tcp-75": "reproduced",
        "one-any-beta": "reproduced",
    }
    tcp = found["tcp-75"].checks
    assert len(tcp) == len(set(_table(scale)["eta"])) and {c.paper.value for c in tcp} == {0.75}
    # the fluid model is exact and so is (1 + beta)/2: the rule is floating point
    assert all(c.verdict.rule == "exact" for j in found.values() for c in j.checks)


def test_a_simulation_off_by_a_rounding_step_fails() -> None:
    table = _table("quick").copy()
    table.loc[table["beta"] == 0.5, "simulated"] += 1e-5
    assert _judged(table)["tcp-75"].status == "differs"


def test_the_quoted_numbers_are_the_tables() -> None:
    table = _table("quick")
    numbers = claims.chapter_numbers({NAME: table}, "quick")
    assert numbers["tcp_utilisation"] == pytest.approx(0.75, abs=1e-9)
    assert numbers["grid_worst"] < 1e-9 and numbers["tcp_events"] > 0


def test_the_explorer_and_the_panel_build() -> None:
    paths = registry.run("sawtooth-paths", scale="quick")
    spec = charts.sawtooth_explorer(paths, _table("quick"), claims.PAPER_TCP_UTILISATION).to_dict()
    assert {p["name"] for p in spec["params"]} == {"beta", "eta"}
    shown = panel.sawtooth_panel()._repr_mimebundle_()
    assert "Live panel" in shown["text/html"]
