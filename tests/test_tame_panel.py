"""The Lu chapter's live panel takes the reader's own measured throughputs (issue 35): the
advisor's answer for them, the guards' one-line refusals on the page, the same spec in the
browser (no subprocess there: iperf3 is for the shell only)."""

from __future__ import annotations

import json
import math

import pandas as pd

from tcplab import inbrowser
from tcplab.chapters.lu import panel

LU = "tcplab.chapters.lu.panel:tame_spec"
TABLE = pd.DataFrame(
    {"scenario": [1], "cross": [10], "queue": ["droptail"], "replica": [0], "flows": [1]}
)


def test_your_probes_give_the_hand_computed_choice() -> None:
    curve, numbers = panel.advise_mine("1:100 10:600", 0.2, 0.0)
    a = (100 / 600**2 - 1 / 100**2) / 99  # eqs. 13-14
    b = 1 / 100**2 - a
    assert numbers["flows"] == 5 and numbers["stopped_by"] == "impact"
    assert abs(numbers["predicted_impact"] - (1 - math.sqrt((a + b) / (25 * a + b)))) < 1e-12
    assert curve["measured"].isna().all() and len(curve) == 31


def test_the_spec_offers_a_text_field_acting_only_for_your_probes() -> None:
    spec = panel.tame_spec(TABLE)
    mine = next(c for c in spec.controls if c.name == "mine")
    assert mine.kind == "text" and mine.when == ("source", "yours") and mine.value == panel.MINE
    chart = spec.draw(**{**spec.values(), "source": "yours", "mine": "1:100 10:600"})
    assert "your probes: open 5 flows" in json.dumps(chart.to_dict())


def test_the_page_shows_the_guards_refusal_in_one_line_and_draws_good_probes() -> None:
    refused = inbrowser.chart_html(LU, json.dumps({"source": "yours", "mine": "1:50 10:520"}))
    assert refused.startswith('<p class="tcplab-panel-error">error: ')
    assert "uncongested or window-limited" in refused and "\n" not in refused.strip()
    bad = inbrowser.chart_html(LU, json.dumps({"source": "yours", "mine": "1:100 ten:600"}))
    assert "your probes" in bad and "not N:THROUGHPUT" in bad
    drawn = inbrowser.chart_html(LU, json.dumps({"source": "yours", "mine": "1:100 10:600"}))
    assert "your probes: open 5 flows" in drawn
