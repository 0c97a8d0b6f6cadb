"""The packet chapter's what-if runs (tcplab.chapters.packets.whatifs): the closed form of the
sawtooth lifted by a buffer, against a numerical integration of the fluid window written
here, and the pipe against a hand computation; and the what-if rows, which must fail on
tables made by hand where the effect does not go away."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tcplab import ledger
from tcplab.chapters.packets.experiments import PacketsParams
from tcplab.chapters.packets.whatif_claims import (
    floor_claims,
    red_queue_claim,
    run_length_claims,
    starts_claim,
)
from tcplab.chapters.packets.whatifs import lifted_sawtooth, pipe_packets


def _integrated(pipe: float, buffer: float, steps: int = 200_000) -> float:
    """One AIMD cycle of the fluid window from W/2 to W = pipe + buffer, integrated in small
    window steps: one packet per round trip, the round trip max(pipe, w) packet-times (the
    queue holds w - pipe), the window's w packets sent per round trip."""
    top = pipe + buffer
    w = np.linspace(top / 2, top, steps + 1)
    mid = (w[:-1] + w[1:]) / 2
    dw = np.diff(w)
    rtt = np.maximum(pipe, mid)  # in packet times (the link sends one per packet time)
    dt = dw * rtt  # +1 packet per round trip
    sent = mid / rtt * dt
    return float(sent.sum() / dt.sum())


@pytest.mark.parametrize("buffer", [0.0, 1.0, 5.0, 20.0, 50.0])
def test_the_lifted_sawtooth_is_the_integrated_fluid_cycle(buffer: float) -> None:
    pipe = 76.5
    assert lifted_sawtooth(buffer / pipe) == pytest.approx(_integrated(pipe, buffer), abs=1e-6)


def test_the_lifted_sawtooth_ends_at_three_quarters_and_at_one() -> None:
    assert lifted_sawtooth(0.0) == pytest.approx(0.75, abs=1e-12)  # (1 + beta)/2, beta = 1/2
    assert lifted_sawtooth(1.0) == pytest.approx(1.0, abs=1e-12)  # the floor at the pipe
    assert lifted_sawtooth(2.0) == 1.0
    with pytest.raises(ValueError, match="x="):
        lifted_sawtooth(-0.1)


def test_the_pipe_of_the_chapter_by_hand() -> None:
    # 5 Mb/s, 1000-byte packets: 625 packets/s; round trip 2 (55 + 5) ms + 1.6 ms on the
    # bottleneck + 0.8 ms on the 10 Mb/s access link = 122.4 ms: 76.5 packets
    assert pipe_packets(PacketsParams()) == pytest.approx(76.5, abs=1e-9)


def _ok(item: str, found: dict) -> bool:
    """Whether the checks ``found`` reproduce the packets ledger's ``item``."""
    entry = next(e for e in ledger.chapter_entries("packets") if e.key == item)
    judged = ledger.judge_with(entry, found)
    return judged is not None and judged.status == "reproduced"


def _red_queue(gaps: dict[tuple[float, float], float]) -> pd.DataFrame:
    rows = [
        {"flows": n, "min_th": low, "max_th": high, "gap": gap + 0.001 * n, "timeouts": 0}
        for (low, high), gap in gaps.items()
        for n in (5, 10)
    ]
    return pd.DataFrame(rows)


def test_the_red_queue_claim_needs_the_excess_to_go_with_lower_thresholds() -> None:
    gone = _red_queue({(60.0, 80.0): 0.05, (30.0, 40.0): 0.0, (12.0, 16.0): -0.13})
    assert _ok("why-red-above", {"why-red-above": red_queue_claim(gone, 0.025)})
    stays = _red_queue({(60.0, 80.0): 0.05, (30.0, 40.0): 0.04, (12.0, 16.0): -0.13})
    # only an overshoot: not the excess gone
    assert not _ok("why-red-above", {"why-red-above": red_queue_claim(stays, 0.025)})
    never = _red_queue({(60.0, 80.0): 0.01, (30.0, 40.0): 0.0})
    # no excess to explain
    assert not _ok("why-red-above", {"why-red-above": red_queue_claim(never, 0.025)})


def _starts(equal_m: float, equal_full: float) -> pd.DataFrame:
    rows = [(4.0, r, 2.7 + 0.1 * r, 0.01) for r in range(3)] + [(0.0, 0, equal_m, equal_full)]
    table = pd.DataFrame(rows, columns=["start_spread", "replica", "mean_m", "full_share"])
    return table.assign(flows=10, buffer=5, events=1000)


def test_the_starts_claim_fails_when_equal_starts_synchronise_fully() -> None:
    def ok(table: pd.DataFrame) -> bool:
        return _ok("partial-sync-starts", {"partial-sync-starts": starts_claim(table)})

    assert ok(_starts(2.7, 0.003))
    assert not ok(_starts(10.0, 1.0))  # every connection in every event
    assert not ok(_starts(1.0, 0.0))  # no synchronisation left at all


def _lengths(shift: float) -> pd.DataFrame:
    rows = []
    for length, offset in (("book", 0.0), ("paper", shift)):
        for r, noise in enumerate((-0.002, 0.0, 0.002)):
            rows.append(("droptail", 5, 10, length, r, 0.90 + offset + noise))
    columns = ["queue", "buffer", "flows", "length", "replica", "utilisation"]
    return pd.DataFrame(rows, columns=columns)


def test_the_run_length_check_is_an_equivalence_within_a_plot_reading() -> None:
    """The paper's run length against the book's: the difference's 95% interval must lie
    inside a reading of Fig. 7 (+-0.025); 0.001 does, 0.02 with +-0.004 straddles its edge,
    0.04 lies outside."""
    assert _ok("setup-run-length", run_length_claims(_lengths(0.001)))
    entry = next(e for e in ledger.chapter_entries("packets") if e.key == "setup-run-length")
    assert ledger.judge_with(entry, run_length_claims(_lengths(0.022))).status == "undecided"
    assert ledger.judge_with(entry, run_length_claims(_lengths(0.04))).status == "differs"


def _floor(large: float) -> pd.DataFrame:
    rows = []
    for rate, pipe, mean in ((5.0, 76.5, 0.7603), (20.0, 301.5, large)):
        for r, noise in enumerate((-0.0005, 0.0, 0.0005, 0.0)):
            rows.append((rate, pipe, 1, r, mean + noise, float(lifted_sawtooth(1 / pipe))))
    columns = ["rate_mbps", "pipe_packets", "buffer", "replica", "utilisation", "lifted"]
    return pd.DataFrame(rows, columns=columns)


def test_the_floor_claims_fail_when_the_larger_pipe_keeps_the_excess() -> None:
    validation = pd.DataFrame({"utilisation": [0.760]})
    droptail = pd.DataFrame({"flows": [1, 1], "buffer": [5, 10], "utilisation": [0.79, 0.83]})
    found = floor_claims(_floor(0.7502), validation, droptail)
    statuses = ledger.check_statuses("packets", found)
    assert statuses["why-one-flow"] == statuses["one-flow-whatif"] == "reproduced"
    kept = floor_claims(_floor(0.7603), validation, droptail)  # no drop with the larger pipe
    statuses = ledger.check_statuses("packets", kept)
    assert statuses["why-one-flow"] == statuses["one-flow-whatif"] == "differs"
