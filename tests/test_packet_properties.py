"""Invariants of the packet model on small random dumbbells (hypothesis, few examples).

After the senders stop and the network drains, every packet a sender injected was either
received or dropped (conservation, counted at three different places); along the way no
window falls below one packet, the bottleneck never holds more than its buffer and never
transmits faster than its rate.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcplab.packet import VARIANTS, Dumbbell, TcpConfig, make_queue, run_dumbbell

scenarios = st.fixed_dictionaries(
    {
        "flows": st.integers(1, 4),
        "queue": st.sampled_from(["droptail", "red", "threshold"]),
        "buffer": st.integers(1, 30),
        "rate_mbps": st.floats(0.5, 10.0),
        "delay_ms": st.floats(0.0, 40.0),
        "access_mbps": st.floats(1.0, 100.0),
        "tcp": st.sampled_from(VARIANTS),
        "seed": st.integers(0, 2**16),
        "delayed_ack_ms": st.sampled_from([None, 40.0, 200.0]),
        "overhead_ms": st.sampled_from([0.0, 1.0]),
    }
)


def build(s: dict) -> Dumbbell:
    rng = np.random.default_rng(s["seed"])
    configs = [TcpConfig(variant=s["tcp"], packet_bytes=1000) for _ in range(s["flows"])]
    options = {"threshold": min(3, s["buffer"]), "hold": 0.05} if s["queue"] == "threshold" else {}
    queue = make_queue(s["queue"], s["buffer"], rng if s["queue"] == "red" else None, **options)
    delays = list(rng.uniform(0.0, 0.02, s["flows"]))
    delack = None if s["delayed_ack_ms"] is None else s["delayed_ack_ms"] / 1e3
    rate, delay, access = s["rate_mbps"] * 1e6, s["delay_ms"] / 1e3, s["access_mbps"] * 1e6
    overhead = s["overhead_ms"] / 1e3
    net = Dumbbell(
        configs, queue, rate, delay, access, delays, delayed_ack=delack, overhead=overhead, rng=rng
    )
    net.bottleneck.trace = True
    for sender in net.senders:
        sender.trace = True
    net.start(rng.uniform(0.0, 0.5, s["flows"]))
    return net


@settings(max_examples=25, deadline=None)
@given(scenarios)
def test_packets_are_conserved(s):
    net = build(s)
    net.env.run(until=3.0)
    mid = net.counts()
    in_flight = mid["sent"] - mid["received"] - mid["dropped"]
    assert in_flight >= 0
    net.drain()
    end = net.counts()
    assert end["sent"] == mid["sent"]  # stopped senders send nothing more
    assert end["sent"] == end["received"] + end["dropped"]
    # what was in flight at the stop was received or (still queueing upstream) dropped since
    assert (end["received"] - mid["received"]) + (end["dropped"] - mid["dropped"]) == in_flight
    assert net.bottleneck.drops == end["dropped"]  # access links have no loss


@settings(max_examples=25, deadline=None)
@given(scenarios)
def test_window_queue_and_rate_stay_in_bounds(s):
    net = build(s)
    net.env.run(until=3.0)
    for sender in net.senders:
        assert min(sender.trace_cwnd) >= 1.0
        assert max(sender.trace_cwnd) <= sender.config.max_window
        assert sender.snd_una <= sender.snd_nxt <= sender.maxseq
    trace = net.bottleneck.traces()
    assert trace["waiting"].max() <= s["buffer"]
    assert len(trace["time"]) == net.bottleneck.arrivals
    assert trace["dropped"].sum() == net.bottleneck.drops
    service = 1000 * 8 / (s["rate_mbps"] * 1e6)
    departures = trace["departure"]
    assert np.all(np.diff(departures) >= service * (1 - 1e-9))
    admitted = trace["time"][~trace["dropped"]]
    assert np.all(departures >= admitted + service * (1 - 1e-9))


@settings(max_examples=8, deadline=None)
@given(scenarios)
def test_summary_is_consistent_and_reproducible(s):
    kwargs = {k: v for k, v in s.items()}
    kwargs.update(duration=3.0, warmup=1.0, packet_bytes=1000)
    if s["queue"] == "threshold":
        kwargs["queue_options"] = {"threshold": min(3, s["buffer"]), "hold": 0.05}
    first, second = run_dumbbell(**kwargs), run_dumbbell(**kwargs)
    a, b = first.summary(), second.summary()
    a.pop("wall_s"), b.pop("wall_s"), a.pop("packets_per_wall_s"), b.pop("packets_per_wall_s")
    assert a == b
    assert 0.0 <= a["drop_rate"] <= 1.0
    # receiver arrivals in the 2 s window are bottleneck departures in a shifted 2 s window:
    # at most rate * 2 s plus the one packet whose transmission straddles its start
    assert a["goodput_mbps"] <= s["rate_mbps"] + 1000 * 8 / 2.0 / 1e6 + 1e-9
    assert sum(a["per_flow_mbps"]) == pytest.approx(a["goodput_mbps"])
    assert len(a["per_flow_mbps"]) == s["flows"]
    assert a["packets"] >= a["arrivals_after_warmup"] >= a["drops_after_warmup"]
    cwnd = first.cwnd()
    assert list(cwnd.columns) == ["time", "flow", "cwnd"]
    assert (cwnd["cwnd"] >= 1).all()
    queue = first.queue()
    assert len(queue) == a["packets"] and queue["waiting"].max() <= s["buffer"]
