"""The sawtooth chapter: its paper-vs-book row and the numbers its prose quotes.

The paper's 75% (Altman et al. 2006, Sec. I) is (1 + beta)/2 at beta = 1/2; the fluid model is
exact, so the claim's tolerance is rounding only. Checked at quick scale (computed now) and on
the full-scale result shipped in data/.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tcplab import cache, registry
from tcplab.chapters.sawtooth import charts, claims, panel

NAME = "sawtooth-utilisation"


def _table(scale: str) -> pd.DataFrame:
    if scale == "quick":
        return registry.run(NAME, scale="quick")
    found = cache.load(cache.Entry(NAME))
    assert found is not None, f"data/{NAME}.csv is missing: run `make data`"
    return found[0]


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_the_75_percent_holds_for_every_eta(scale: str) -> None:
    rows = claims.paper_claims(_table(scale))
    assert rows and all(c.within for c in rows)
    tcp = [c for c in rows if "beta = 1/2" in c.claim]
    assert tcp and {c.paper for c in tcp} == {0.75}
    assert {c.tolerance for c in rows} == {1e-6} and all(c.rule.startswith("exact") for c in rows)


def test_a_simulation_off_by_a_rounding_step_fails() -> None:
    table = _table("quick").copy()
    table.loc[table["beta"] == 0.5, "simulated"] += 1e-5
    assert not any(c.within for c in claims.paper_claims(table))


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
