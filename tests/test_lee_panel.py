"""The Lee chapter's live panel: one repetition, traced, measured by the paper's definitions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import ipywidgets as w
import numpy as np
import pytest

from tcplab import ledger
from tcplab.chapters.lee import panel

PACKETS = 100  # a 150 kB transfer: 100 packets of 1500 bytes


def _tree(widget: w.Widget) -> Iterator[w.Widget]:
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _tree(child)


def test_sample_steps_holds_each_value_until_the_next_by_hand() -> None:
    times = np.array([0.0, 0.1, 0.2, 1.0, 1.1, 1.2, 2.0])
    values = np.array([0, 1, 3, 4, 8, 9, 10])
    t, v = panel.sample_steps(times, values, 5)  # at 0, 0.5, 1.0, 1.5, 2.0
    assert list(t) == pytest.approx([0.0, 0.5, 1.0, 1.5, 2.0])
    assert list(v) == [0, 3, 4, 9, 10]  # the stall from 0.2 to 1.0 stays flat at 3
    same = panel.sample_steps(times, values, 10)
    assert list(same[0]) == list(times) and list(same[1]) == list(values)


def test_one_window_limited_transfer_against_slow_start_by_hand() -> None:
    # window path (receiver window 16 packets), RTT 38 ms, 100 packets: slow start sends
    # 1, 2, 4, 8 packets in four rounds (15 packets), then 16 per round: ceil(85 / 16) = 6
    # more, 10 RTT = 0.38 s. On top: the start jitter (at most 1 ms) and each round's
    # serialisation at 200 Mb/s behind at most the cross traffic's windows (10 x 16 packets)
    # and its own 16: (160 + 16) x 60 us per round, 10 rounds.
    progress, done, numbers = panel.transfers_live("window", 1, PACKETS * 1500, 38.0, seed=3)
    low, high = 10 * 0.038, 10 * 0.038 + 0.001 + 10 * 176 * 1500 * 8 / 200e6
    completion = float(done["completion_s"].iloc[0])
    assert low <= completion <= high
    assert progress["bytes"].iloc[-1] == PACKETS * 1500  # every byte asked for, acknowledged
    assert progress["t"].iloc[-1] == pytest.approx(completion)
    assert np.all(np.diff(progress["bytes"]) >= 0) and progress["bytes"].iloc[0] == 0
    assert numbers["aggregate_bytes_per_s"] == pytest.approx(PACKETS * 1500 / completion)
    assert numbers["failed"] == 0 and numbers["timeouts"] == 0


def test_the_repetition_is_measured_by_the_papers_definitions() -> None:
    progress, done, numbers = panel.transfers_live("shared", 4, 300_000, 49.0, seed=1)
    assert sorted(progress["transfer"].unique()) == [0, 1, 2, 3]
    assert progress.groupby("transfer")["t"].size().max() <= panel.POINTS
    # aggregate: all the bytes over the time to the last completion; per connection: its own
    assert numbers["aggregate_bytes_per_s"] == pytest.approx(4 * 300_000 / done.completion_s.max())
    assert list(done["bytes_per_s"]) == pytest.approx(list(300_000 / done["completion_s"]))
    ends = progress.groupby("transfer")["t"].max()
    assert list(ends) == pytest.approx(list(done["completion_s"]))


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"path": "planetlab"}, "path"),
        ({"flows": 0}, "flows"),
        ({"flows": panel.MAX_FLOWS + 1}, "flows"),
        ({"rtt_ms": 0.0}, "rtt_ms"),
        ({"nbytes": 0}, "bytes"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict, word: str) -> None:
    with pytest.raises(ValueError, match=word):
        panel.transfers_live(**kwargs)


def test_the_panel_redraws_when_a_control_moves_and_explains_itself_on_a_static_page() -> None:
    live = panel.transfers_panel(flows=2)
    assert "tcplab-live-note" in live._repr_mimebundle_()["text/html"]
    view = next(p for p in _tree(live.widget) if isinstance(p, w.HTML))
    size = next(p for p in _tree(live.widget) if getattr(p, "description", "") == "MB each")
    flows = next(p for p in _tree(live.widget) if getattr(p, "description", "") == "connections")
    size.value = 0.3  # small transfers: a quick test
    before = view.value
    flows.value = 3
    assert view.value != before and view.value.lstrip().startswith("<svg")
    assert "3 x 0.3 MB" in view.value


@pytest.mark.book
def test_the_page_has_its_charts_table_panel_and_exercises(built_book: Path) -> None:
    page = (built_book / "chapters" / "parallel-transfers.html").read_text(encoding="utf-8")
    assert "tcplab-live-note" in page and "Traceback" not in page
    assert page.count('class="tcplab-claims') == 1
    off = sum(j.status == "differs" for j in ledger.evaluate("lee") if j.computed)
    assert page.count('class="tcplab-off" data-label="Status"') == off
    assert page.count('class="solution') >= 5


def test_the_sender_cross_traffic_and_buffer_controls_reach_the_model() -> None:
    # no cross traffic: the title's count is the control's; SACK draws start-to-end lines
    progress, done, numbers = panel.transfers_live(
        "shared", 3, 150_000, 49.0, seed=2, sender="sack", cross=0, buffer=50
    )
    assert numbers["cross"] == 0
    assert progress.groupby("transfer").size().max() == 2
    assert list(progress.groupby("transfer")["bytes"].max()) == [150_000] * 3
    # reading B by hand: the sum of the transfers' own rates
    assert numbers["sum_of_rates_bytes_per_s"] == pytest.approx(
        float((150_000 / done["completion_s"]).sum())
    )
    _, _, crowded = panel.transfers_live("shared", 3, 150_000, 49.0, seed=2, cross=5)
    assert crowded["cross"] == 5
    with pytest.raises(ValueError, match="sender"):
        panel.transfers_live(sender="cubic")
    with pytest.raises(ValueError, match="buffer"):
        panel.transfers_live(buffer=0)
