"""The packets chapter's variants, each against its definition, on tiny deterministic cases.

The chapter runs its figures with the paper's RED (Floyd and Jacobson 1993 with ns-2's
``wait_``: :func:`.runs.chapter_queue`), with Altman et al.'s threshold-dropper under each
selection rule and hold time (Section V-D), and again with TCP-SACK in place of NewReno
(:mod:`.sack`, :mod:`.reruns`), which :mod:`.variants` pairs with the NewReno rows. Here each
of those is checked on its own: the discipline the chapter builds and the drop it makes on
chosen arrivals, the variant swap, and the pairing of the tables on hand-made rows. Nothing
is random (RED's and the dropper's random streams are stand-ins returning chosen numbers),
so no check can raise a false alarm.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tcplab import packet
from tcplab.chapters.packets import variants
from tcplab.chapters.packets.experiments import PacketsParams
from tcplab.chapters.packets.runs import chapter_queue, chapter_setup, job
from tcplab.chapters.packets.sack import VARIANT, with_variant
from tcplab.chapters.packets.signals import RTT_S
from tcplab.packet import network
from tcplab.packet.queues import RED, ThresholdDropper

PARAMS = PacketsParams()


class Stream:
    """A stand-in for a random stream: uniforms all ``u``; ``integers`` gives ``pick``."""

    def __init__(self, u: float = 0.5, pick: int = 0) -> None:
        self.u, self.pick = u, pick

    def random(self, n: int) -> np.ndarray:
        return np.full(n, self.u)

    def integers(self, n: int) -> int:
        assert 0 <= self.pick < n
        return self.pick


def _built(setup: Any) -> Any:
    return setup.build(np.random.default_rng(0), np.random.default_rng(1), 1e-3)


# --- the paper's RED ---------------------------------------------------------------------------


@pytest.mark.parametrize("buffer", PARAMS.buffers)
def test_the_chapters_red_is_the_papers(buffer: int) -> None:
    """w_q, max_p and ns-2's wait as the chapter's parameters give them, thresholds at ns-2's
    0.6 and 0.8 of the buffer (the set-up of Altman et al.)."""
    red = _built(chapter_queue(PARAMS, "red", buffer))
    assert isinstance(red, RED)
    assert (red.w_q, red.max_p, red.wait, red.gentle) == (0.001, 0.1, True, False)
    assert (red.min_th, red.max_th) == pytest.approx((0.6 * buffer, 0.8 * buffer))


@pytest.mark.parametrize(("avg", "u"), [(35.0, 0.3), (32.0, 0.9), (39.0, 0.05)])
def test_red_drops_first_where_floyd_and_jacobsons_rule_says(avg: float, u: float) -> None:
    """Buffer 50 (thresholds 30 and 40): p_b = max_p (avg - 30) / 10, and with ns-2's wait
    the first drop is the k-th arrival with k p_b >= 1 and u < p_b / (2 - k p_b), i.e.
    k > 2 / p_b - 1 / u (35 and u = 0.3: the 37th); forced drops only from avg = 40 on."""
    red = _built(chapter_queue(PARAMS, "red", 50))
    red.rng = Stream(u)  # type: ignore[assignment]
    p_b = 0.1 * (avg - 30.0) / 10.0
    expected = max(math.floor(2.0 / p_b - 1.0 / u) + 1, math.ceil(1.0 / p_b - 1e-9))
    first = 0
    for arrival in range(1, 1000):
        red.avg = avg
        if red._decide(35):
            first = arrival
            break
    assert first == expected and red.early_drops == 1 and red.forced_drops == 0
    red.avg = 40.0
    assert red._decide(35) and red.forced_drops == 1


# --- the threshold-dropper: selection rules and hold -------------------------------------------


def _dropper(select: str, hold_rtts: float | None = None, **stream: Any) -> ThresholdDropper:
    options = {} if hold_rtts is None else {"hold": hold_rtts * RTT_S}
    dropper = _built(chapter_queue(PARAMS, "threshold", 100, select=select, **options))
    assert isinstance(dropper, ThresholdDropper)
    dropper.rng = Stream(**stream)  # type: ignore[assignment]
    dropper.rates = lambda: [2.0, 7.0, -math.inf, 3.0]  # flow 2 does not cross this link
    return dropper


def test_the_chapters_dropper_holds_one_and_a_half_round_trips() -> None:
    """Th = 3, the chapter's hold of 1.5 RTT = 0.18 s, rate-independent selection (Figs. 12,
    15); the hold sweep sets the hold in RTTs of the paper's 120 ms round trip."""
    dropper = _built(chapter_queue(PARAMS, "threshold", 100))
    assert (dropper.threshold, dropper.select) == (3, "random")
    assert dropper.hold == pytest.approx(1.5 * 0.120)
    for h in PARAMS.hold_sweep_rtts:
        assert _dropper("random", h).hold == pytest.approx(h * 0.120)


@pytest.mark.parametrize(
    ("select", "stream", "victim"),
    [
        ("first", {}, 0),  # the flow whose arrival found Th packets waiting: dropped at once
        ("largest", {}, 1),  # the largest send rate (7)
        ("random", {"pick": 2}, 3),  # uniform among the flows that cross: 0, 1, 3 -> the 3rd
        ("random", {"pick": 0}, 0),
    ],
)
def test_one_event_signals_one_connection_then_holds(
    select: str, stream: dict[str, int], victim: int
) -> None:
    """Below Th every arrival passes. The arrival of flow 0 that finds Th = 3 waiting starts
    an event: one connection is selected and only its next arrival is dropped; for the hold
    (0.18 s) nothing else is, however long the queue; the first arrival at Th after it
    starts the next event."""
    dropper = _dropper(select, **stream)
    assert all(dropper.admit(2, 0.01 * i, -1.0, i % 4) for i in range(8))  # below Th
    at = 1.0
    dropped_at_once = not dropper.admit(3, at, -1.0, 0)
    assert dropper.events == 1 and dropper.selected == [victim]
    assert dropped_at_once == (victim == 0)
    refused = [f for f in (1, 3, 0, 1, 3, 0) if not dropper.admit(50, at + 0.1, -1.0, f)]
    assert refused == ([] if victim == 0 else [victim])  # one packet of the victim, once
    assert dropper.admit(50, at + 0.179, -1.0, 1) and dropper.events == 1  # still held
    assert dropper.admit(2, at + 0.181, -1.0, 1) and dropper.events == 1  # below Th again
    dropper.admit(3, at + 0.2, -1.0, 3)
    assert dropper.events == 2


def test_a_selected_connection_that_sends_nothing_in_the_hold_lapses() -> None:
    dropper = _dropper("largest")
    assert dropper.admit(3, 0.0, -1.0, 0)  # event: flow 1 selected, its next packet to go
    assert all(dropper.admit(10, 0.01 * i, -1.0, 3) for i in range(1, 10))  # flow 1 silent
    assert dropper.admit(2, 0.2, -1.0, 1) and dropper.lapsed == 1  # after the hold: spared


# --- the SACK variant --------------------------------------------------------------------------


def test_the_sack_variant_changes_the_tcp_and_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`.sack.with_variant`: same topology, queue, run length and seed, the senders'
    TCP variant swapped; the network then builds SACK's sender and receiver for every flow."""
    setup = chapter_setup(PARAMS, 2, chapter_queue(PARAMS, "red", 20), duration=2.0, warmup=1.0)
    work = job(replace(setup, seed=11), queue="red", buffer=20)
    swapped = with_variant(work, VARIANT)
    assert VARIANT == "sack" and swapped.setup.tcp.variant == "sack"
    assert work.setup.tcp.variant == PARAMS.variant == "newreno"
    assert swapped.labels == work.labels and swapped.keep == work.keep
    assert replace(swapped.setup, tcp=work.setup.tcp) == work.setup  # all else kept
    asked: list[str] = []
    real = network.endpoints

    def recorded(variant: str) -> Any:
        asked.append(variant)
        return real(variant)

    monkeypatch.setattr(network, "endpoints", recorded)
    packet.run(swapped.setup)
    assert asked == ["sack", "sack"]
    senders, receivers = zip(*(real(v) for v in asked), strict=True)
    assert {cls.__name__ for cls in senders + receivers} == {"SackSender", "SackReceiver"}


# --- the pairing of NewReno's and SACK's tables (variants.py) ---------------------------------


def _tables() -> dict[str, pd.DataFrame]:
    """Hand-made chapter tables (NewReno) and a SACK rerun at a few of their points."""
    grid = pd.DataFrame(
        [(b, n) for b in (5, 20) for n in (1, 2, 3)], columns=["buffer", "flows"]
    ).assign(utilisation=lambda t: 0.5 + 0.01 * t["buffer"] + 0.1 * t["flows"])
    grid = grid.assign(theorem1=0.75, timeouts=1, drop_rate=0.01)
    threshold = pd.DataFrame(
        [(3, 100, s, n) for s in ("random", "largest") for n in (2, 5)],
        columns=["threshold", "buffer", "select", "flows"],
    ).assign(utilisation=0.8, theorem1=0.9, timeouts=0, drop_rate=0.02)
    sack = pd.DataFrame(
        [
            ("sack", "droptail", 20, math.nan, None, 2, 0.95),
            ("sack", "red", 5, math.nan, None, 3, 0.99),
            ("sack", "threshold", 100, 3.0, "largest", 5, 0.85),
        ],
        columns=["tcp", "queue", "buffer", "threshold", "select", "flows", "utilisation"],
    ).assign(timeouts=0, drop_rate=0.005, theorem1=0.0)
    return {
        "packets-droptail": grid,
        "packets-red": grid.assign(utilisation=grid["utilisation"] - 0.05),
        "packets-threshold": threshold,
        "packets-sack": sack,
    }


def test_newreno_rows_are_cut_to_the_points_sack_was_run_at() -> None:
    tables = _tables()
    newreno, sack = variants.points(tables, "newreno"), variants.points(tables, "sack")
    for sweep, keys in (("droptail", ["buffer", "flows"]), ("red", ["buffer", "flows"]),
                        ("threshold", ["threshold", "buffer", "select", "flows"])):  # fmt: skip
        assert newreno[sweep][keys].values.tolist() == sack[sweep][keys].values.tolist()
        assert len(newreno[sweep]) == 1 and "tcp" not in sack[sweep]
    assert newreno["droptail"]["utilisation"].item() == pytest.approx(0.5 + 0.2 + 0.2)
    assert newreno["threshold"]["select"].item() == "largest"


def test_the_gain_is_sacks_utilisation_minus_newrenos_at_the_same_point() -> None:
    table = variants.paired(_tables())
    assert table["queue"].tolist() == ["droptail", "red", "threshold"]
    expected = [0.95 - 0.9, 0.99 - (0.5 + 0.05 + 0.3 - 0.05), 0.85 - 0.8]
    assert table["gain"].tolist() == pytest.approx(expected)
    assert table["theorem1"].tolist() == [0.75, 0.75, 0.9]  # the chapter's, not the rerun's


def test_a_whole_table_is_cut_to_the_runs_sack_reran() -> None:
    chapter = pd.DataFrame({"p": [0.01, 0.02, 0.05], "rate_pps": [10.0, 7.0, 4.0]})
    rerun = pd.DataFrame({"tcp": ["sack"] * 2, "p": [0.01, 0.05], "rate_pps": [11.0, 5.0]})
    tables = {"packets-loss": chapter, "packets-sack-loss": rerun}
    newreno = variants.variant_table(tables, "packets-loss", "newreno")
    assert newreno["p"].tolist() == [0.01, 0.05] and newreno["rate_pps"].tolist() == [10.0, 4.0]
    sack = variants.variant_table(tables, "packets-loss", "sack")
    assert "tcp" not in sack and sack["rate_pps"].tolist() == [11.0, 5.0]
    both = variants.both(tables, "packets-loss")
    assert both["tcp"].tolist() == ["NewReno", "NewReno", "SACK", "SACK"]
