"""Where tcplab's retransmission time-out sits during a run of the appendix's grid.

The delayed-ACK probe asks whether a simulator's RTO is close enough to its floor for an ACK
held back by the receiver's delayed-ACK timer to arrive after it. :func:`rto_profile` runs one
scenario of :mod:`tcplab.chapters.ns3.grid` on the packet model, wired as
:func:`tcplab.chapters.ns3.experiments.run_scenario` wires it, and reads every sender's
current RTO (:attr:`tcplab.packet.tcp.TcpSender.rto`, back-off included) and smoothed RTT
every ``every`` seconds after the warm-up. It is an observation of one run, computed when the
appendix is built; no experiment of the registry stores it.

ns-3's side is read from data/ns3-rto.csv (:func:`ns3_rto_table`), which
``tools/ns3/rto_probe.py`` writes where ns-3 is installed: the same sampling of ns-3's senders
in the delayed-ACK runs of the grid, summarised per run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tcplab import cache
from tcplab.checks import check_range
from tcplab.packet import call_at

from .experiments import build_dumbbell, setup_of
from .grid import PROBE_MIN_RTO_MS, Scenario

__all__ = ["NS3_RTO_TABLE", "RtoProfile", "ns3_rto_numbers", "ns3_rto_table", "rto_numbers",
           "rto_profile"]  # fmt: skip

NS3_RTO_TABLE = "ns3-rto"  # data/ns3-rto.csv, written by tools/ns3/rto_probe.py


@dataclass(frozen=True)
class RtoProfile:
    """The RTO of every sender, sampled over the measured time (seconds): ``rto`` and
    ``srtt`` hold one value per sample and sender (senders without an RTT sample yet are left
    out); ``floor`` is the scenario's RTO floor."""

    rto: np.ndarray
    srtt: np.ndarray
    floor: float

    @property
    def at_floor(self) -> float:
        """The share of the samples with the RTO on its floor."""
        return float(np.mean(self.rto <= self.floor + 1e-9))

    @property
    def median_rto(self) -> float:
        return float(np.median(self.rto))

    @property
    def median_srtt(self) -> float:
        return float(np.median(self.srtt))


def rto_profile(
    scenario: Scenario,
    seed: int,
    warmup: float,
    duration: float,
    timer: str = "rfc6298",
    every: float = 0.01,
) -> RtoProfile:
    """One run of ``scenario`` (as in :func:`experiments.setup_of`) with every sender's RTO
    and smoothed RTT sampled every ``every`` seconds from ``warmup`` to ``duration``."""
    every = check_range("every", every, 0.0, duration - warmup, low_open=True)
    net, _ = build_dumbbell(setup_of(scenario, seed, warmup, duration, timer))
    rto: list[float] = []
    srtt: list[float] = []

    def sample(_event: object) -> None:
        for sender in net.senders:
            if sender.srtt is not None:
                rto.append(sender.rto)
                srtt.append(sender.srtt)

    for at in np.arange(warmup, duration, every):
        call_at(net.env, float(at), sample, None)
    net.network.run(duration, warmup)
    return RtoProfile(np.asarray(rto), np.asarray(srtt), scenario.min_rto_ms / 1e3)


def rto_numbers(scale: str, seed: int = 1) -> dict[str, float]:
    """What the appendix quotes of tcplab's RTO with delayed ACKs at 30 SACK flows and the
    matched 200 ms floor, with ns-3's timer rule: the share of the time each RTO is on the
    floor, the median RTO and the median smoothed RTT (ms). ``scale`` is the chapter's
    (``"quick"``: the grid's quick run length)."""
    from .experiments import Ns3Params
    from .grid import DELAYED_ACK_MS, LARGE

    params = Ns3Params.quick() if scale == "quick" else Ns3Params()
    scenario = Scenario("droptail", LARGE, 30, "sack", DELAYED_ACK_MS)
    profile = rto_profile(scenario, seed, params.warmup, params.duration)
    return {
        "tcplab_rto_at_floor": profile.at_floor,
        "tcplab_rto_median_ms": 1e3 * profile.median_rto,
        "tcplab_srtt_median_ms": 1e3 * profile.median_srtt,
    }


def ns3_rto_table() -> tuple[pd.DataFrame, dict[str, Any]]:
    """ns-3's RTO in the delayed-ACK runs, one row per run, and its provenance (data/)."""
    found = cache.load(cache.Entry(NS3_RTO_TABLE))
    if found is None:
        raise FileNotFoundError(
            f"data/{NS3_RTO_TABLE}.csv is missing: run tools/ns3/rto_probe.py where ns-3 is"
            " installed"
        )
    return found


def ns3_rto_numbers() -> dict[str, float]:
    """What the appendix quotes of ns-3's RTO at the matched 200 ms floor with delayed ACKs:
    as :func:`rto_numbers` for tcplab (means over its seeds), and of its time-outs the shares
    that found one packet outstanding, a window of one packet, the open state (no recovery
    under way), over all its runs' time-outs, and the expired RTO (mean of the runs'
    medians); and the share of one packet outstanding at the probe's floor."""
    table, _ = ns3_rto_table()
    runs = table[table["min_rto_ms"] == 200.0]
    probe = table[table["min_rto_ms"] == PROBE_MIN_RTO_MS]
    return {
        "ns3_rto_at_floor": float(runs["rto_at_floor"].mean()),
        "ns3_rto_median_ms": 1e3 * float(runs["rto_median_s"].mean()),
        "ns3_srtt_median_ms": 1e3 * float(runs["srtt_median_s"].mean()),
        "ns3_timeouts_one_outstanding": float(
            (runs["timeouts_one_outstanding"] * runs["timeouts_seen"]).sum()
            / runs["timeouts_seen"].sum()
        ),
        "ns3_timeouts_window_one": float(
            (runs["timeouts_window_one"] * runs["timeouts_seen"]).sum()
            / runs["timeouts_seen"].sum()
        ),
        "ns3_timeouts_in_open_state": float(
            (runs["timeouts_in_open_state"] * runs["timeouts_seen"]).sum()
            / runs["timeouts_seen"].sum()
        ),
        "ns3_timeout_rto_median_ms": 1e3 * float(runs["timeout_rto_median_s"].mean()),
        "ns3_probe_timeouts_one_outstanding": float(
            (probe["timeouts_one_outstanding"] * probe["timeouts_seen"]).sum()
            / probe["timeouts_seen"].sum()
        ),
    }
