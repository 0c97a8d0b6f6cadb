"""The retransmission timer against RFC 6298, on traces with scripted losses.

The estimator (first sample, alpha = 1/8, beta = 1/4, K = 4, the granularity G with the
model's documented rounding up to a multiple of G, the min_rto and max_rto clamps), Karn's
rule, exponential back-off and its reset: every expected RTO is computed here from the RFC's
formulas and the RTT samples, never read off the model. The path is ``tcplab trace``'s idle
one (see ``test_tcp_rfc.py``): a round trip takes R = 101.2 ms.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tcplab.packet import run_trace

TAU = 1500 * 8 / 10e6  # one packet's transmission time (s)
R = 0.1 + TAU  # a packet's round trip on the idle path (s)


def of(ev: pd.DataFrame, *events: str) -> pd.DataFrame:
    return ev[ev["event"].isin(events)]


def ceil_to(x: float, g: float) -> float:
    """The smallest multiple of ``g`` not below ``x`` (a relative 1e-9 absorbs rounding)."""
    return g * math.ceil(x / g - 1e-9)


def rto_rfc6298(samples, g: float, min_rto: float, max_rto: float) -> list[float]:
    """RFC 6298 (2.2)-(2.4) for a sequence of RTT samples: the first sets SRTT = R and
    RTTVAR = R/2; each next one RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R| and then SRTT <- 7/8
    SRTT + 1/8 R; RTO = SRTT + max(G, K RTTVAR) with K = 4, rounded up to a multiple of G
    (the model's documented rounding) and clamped to [min_rto, max_rto]."""
    srtt = rttvar = None
    out = []
    for r in samples:
        if srtt is None:
            srtt, rttvar = r, r / 2
        else:
            rttvar = (1 - 1 / 4) * rttvar + 1 / 4 * abs(srtt - r)
            srtt = (1 - 1 / 8) * srtt + 1 / 8 * r
        out.append(min(max(ceil_to(srtt + max(g, 4 * rttvar), g), min_rto), max_rto))
    return out


@pytest.mark.parametrize(("g", "min_rto"), [(0.01, 0.2), (0.5, 0.1), (0.001, 0.05)])
def test_first_sample_and_the_closed_form_with_a_constant_rtt(g, min_rto):
    """With one packet in flight every RTT sample is R exactly: SRTT stays R, RTTVAR is
    (3/4)^(n-1) R/2 after n samples, so the RTO falls from ceil(3R) towards R + G (G = 0.5:
    it is R + G from the first sample, rounded up) or sits on the floor min_rto."""
    ev = run_trace("newreno", (), packets=14, window=1, granularity=g, min_rto=min_rto).events
    sampled = ev[ev["rtt_sample"].notna()]
    assert len(sampled) == 14 and np.allclose(sampled["rtt_sample"], R, rtol=0, atol=1e-12)
    expected = [
        max(ceil_to(R + max(g, 4 * 0.75 ** (n - 1) * R / 2), g), min_rto) for n in range(1, 15)
    ]
    assert sampled["rto"].to_numpy() == pytest.approx(expected, abs=1e-12)
    assert ev["rto"].iloc[0] == 1.0  # before any sample: the initial RTO (2.1)
    if g == 0.01:
        assert expected[0] == pytest.approx(0.31) and expected[-1] == min_rto  # 3R; floor
    if g == 0.5:
        assert set(expected) == {1.0}  # G > 4 RTTVAR: R + G rounded up


@pytest.mark.parametrize(
    ("g", "min_rto", "max_rto"), [(0.01, 0.2, 64.0), (0.5, 0.1, 64.0), (0.001, 0.1, 0.3)]
)
def test_rto_follows_rfc6298_over_varying_samples(g, min_rto, max_rto):
    """A 1 Mb/s path queues a growing window (samples from 0.112 s to about 0.4 s); the RTO
    after each sample is RFC 6298's, computed here from the samples alone."""
    ev = run_trace(
        "newreno", (), packets=250, window=30, rate_mbps=1.0, granularity=g,
        min_rto=min_rto, max_rto=max_rto,
    ).events  # fmt: skip
    sampled = ev[ev["rtt_sample"].notna()]
    samples = sampled["rtt_sample"].to_numpy()
    assert samples.max() - samples.min() > 0.2  # the samples vary
    assert sampled["rto"].to_numpy() == pytest.approx(
        rto_rfc6298(samples, g, min_rto, max_rto), abs=1e-12
    )
    # between samples the RTO does not change (no time-outs here)
    assert of(ev, "timeout").empty
    rto, unsampled = ev["rto"].to_numpy(), ev["rtt_sample"].isna().to_numpy()
    assert np.array_equal(rto[1:][unsampled[1:]], rto[:-1][unsampled[1:]])


@pytest.mark.parametrize("max_rto", [64.0, 5.0])
def test_back_off_doubles_to_the_cap_and_karn_keeps_it_until_a_clean_sample(max_rto):
    """Packet 0 is lost five times. Before any sample the RTO is 1 s (RFC 6298 2.1); each
    expiry retransmits it and doubles the RTO (5.5), up to max_rto (2.5). The sixth
    transmission gets through: its ACK gives no sample (Karn: it was retransmitted), so the
    backed-off RTO stays; the next packet's ACK is the first sample (2.2): RTO = ceil(3R)."""
    ev = run_trace("newreno", [0] * 5, packets=5, max_rto=max_rto).events
    timeouts = of(ev, "timeout")
    rtos = [min(2.0**k, max_rto) for k in range(1, 6)]  # after each doubling
    waits = [1.0, *rtos[:-1]]  # the timer runs for the RTO before each expiry
    assert timeouts["rto"].to_numpy() == pytest.approx(rtos)
    assert timeouts["time"].to_numpy() == pytest.approx(np.cumsum(waits), abs=1e-9)
    assert (timeouts["seq"] == 0).all() and (timeouts["cwnd"] == 1.0).all()
    acks = of(ev, "ack")
    first = acks.iloc[0]
    assert first["time"] == pytest.approx(sum(waits) + R, abs=1e-9)
    assert math.isnan(first["rtt_sample"]) and first["rto"] == rtos[-1]
    second = acks.iloc[1]
    assert second["rtt_sample"] == pytest.approx(R, abs=1e-12)
    assert second["rto"] == pytest.approx(ceil_to(3 * R, 0.01), abs=1e-12)  # back-off gone


@pytest.mark.parametrize("tcp", ["newreno", "sack"])
def test_the_fast_retransmit_restarts_the_timer_unless_told_not_to(tcp):
    """Packet 14 and its fast retransmission are lost, so no new ACK comes after the
    dupACKs. By default (4.4BSD, ns-2) the timer restarts at the fast retransmit and fires
    one RTO after it; with ``restart_rto_at_fast_retransmit=False`` only new ACKs restart it
    (RFC 6298 5.3 alone, ns-3's timer), so it fires one RTO after the last new ACK: earlier
    by the time the three dupACKs took to come."""
    times = {}
    for restart in (True, False):
        ev = run_trace(tcp, [14, 14], packets=60, window=28,
                       restart_rto_at_fast_retransmit=restart).events  # fmt: skip
        timeout = of(ev, "timeout").iloc[0]
        last_new = of(ev[ev["time"] < timeout["time"]], "ack").iloc[-1]
        fr = of(ev, "fast_retransmit").iloc[0]
        start = fr if restart else last_new
        assert timeout["time"] == pytest.approx(start["time"] + start["rto"], abs=1e-9)
        times[restart] = timeout["time"]
    assert times[False] < times[True]
