"""Finite transfers (tcplab.chapters.lee.transfer) against hand calculations of slow start."""

from __future__ import annotations

import math

import pytest

from tcplab.chapters.lee.transfer import (
    PATHS,
    Repetition,
    TransferSender,
    delivered_bytes,
    packets_for,
    path_model,
    run_repetition,
    transfer_config,
)
from tcplab.packet import DropTail, Network


def _alone(nbytes: int, rtt: float, max_window: int = 20_000) -> TransferSender:
    """One transfer alone on a pure delay line (no serialisation, no queue): RTT ``rtt``."""
    net = Network()
    net.add_link("line", None, rtt / 2.0 * 1e3)
    cfg = transfer_config(nbytes, max_window=max_window)
    conn = net.add_connection([["line"]], cfg, sender=TransferSender, trace=True)
    net.env.run(until=100.0)
    return conn.senders[0]  # type: ignore[return-value]


def test_slow_start_rounds_hand_calculation() -> None:
    # 100 packets, initial window 1, one ACK per packet: cwnd += 1 per ACK, so round k sends
    # 2^k packets; after m rounds 2^m - 1 are sent. 2^6 - 1 = 63 < 100 <= 127 = 2^7 - 1:
    # 7 rounds, the last ACK returns at 7 RTT.
    sender = _alone(100 * 1500, rtt=0.1)
    assert sender.completed_at == pytest.approx(0.7, abs=1e-9)
    # progress after each round: 1, 3, 7, 15, 31, 63, then all 100
    at_rounds = [
        max(
            p
            for t, p in zip(sender.progress_time, sender.progress_packets, strict=True)
            if t <= 0.1 * k + 1e-9
        )
        for k in range(1, 8)
    ]
    assert at_rounds == [1, 3, 7, 15, 31, 63, 100]


def test_slow_start_then_receiver_window_hand_calculation() -> None:
    # receiver window 8: rounds send 1, 2, 4, then 8 per RTT. After 3 rounds 7 packets are
    # done; the other 93 take ceil(93 / 8) = 12 rounds: 15 RTT in all.
    sender = _alone(100 * 1500, rtt=0.05, max_window=8)
    assert sender.completed_at == pytest.approx(15 * 0.05, abs=1e-9)
    # the transfer time proper: 100 packets at 8 packets per RTT is 12.5 RTT; slow start
    # costs the rest
    assert sender.completed_at > 100 / 8 * 0.05


def test_bytes_delivered_equal_bytes_asked() -> None:
    for nbytes in (1, 1499, 1500, 1501, 2_000_000):
        assert packets_for(nbytes) == math.ceil(nbytes / 1500)
    out = run_repetition(Repetition(path_model("shared", cross=(2, 2)), 5, 123_457, 40.0, 3))
    assert list(out["bytes"]) == [123_457] * 5
    assert not any(math.isnan(c) for c in out["completion_s"])
    assert delivered_bytes(82, 123_457) == 123_000  # 82 full packets, not the remainder


@pytest.mark.parametrize("tcp", ["newreno", "sack"])
def test_one_transfer_alone_on_the_shared_path_by_hand(tcp: str) -> None:
    # 100 packets, no cross traffic, no loss: slow start takes 7 rounds (1 + 2 + ... + 64 =
    # 127 >= 100) of 49 ms; on top, the start jitter (at most 1 ms) and at most every
    # packet's serialisation at 100 Mb/s (120 us each)
    path = path_model("shared", cross=(0, 0), tcp=tcp)
    out = run_repetition(Repetition(path, 1, 100 * 1500, 49.0, 5))
    low = 7 * 0.049
    assert low <= out["completion_s"][0] <= low + 0.001 + 100 * 1500 * 8 / 100e6
    assert list(out["bytes"]) == [150_000] and out["timeouts"][0] == 0


def test_sack_transfers_deliver_every_byte_under_cross_traffic() -> None:
    path = path_model("shared", cross=(2, 2), tcp="sack")
    out = run_repetition(Repetition(path, 5, 123_457, 40.0, 3))
    assert list(out["bytes"]) == [123_457] * 5
    assert not any(math.isnan(c) for c in out["completion_s"])


def test_completion_ordered_with_sizes() -> None:
    net = Network()
    net.add_link("b", 10.0, 20.0, DropTail(100))
    sizes = [20_000, 200_000, 2_000_000]
    senders = []
    for i, size in enumerate(sizes):
        net.add_link(f"u{i}", None, 0.0)
        conn = net.add_connection([[f"u{i}", "b"]], transfer_config(size), sender=TransferSender)
        senders.append(conn.senders[0])
    net.env.run(until=60.0)
    times = [s.completed_at for s in senders]
    assert None not in times
    assert times == sorted(times)
    # and no faster than the link allows: all bytes through 10 Mb/s
    assert times[-1] >= sum(packets_for(s) for s in sizes) * 1500 * 8 / 10e6


@pytest.mark.parametrize(
    ("make", "word"),
    [
        (lambda: packets_for(0), "bytes"),
        (lambda: packets_for(10.5), "bytes"),
        (lambda: path_model("lossy"), "path"),
        (lambda: Repetition(PATHS["shared"], 0, 2_000_000, 49.0, 0), "flows"),
        (lambda: Repetition(PATHS["shared"], 10, 2_000_000, 0.0, 0), "rtt_ms"),
        (lambda: path_model("shared", shaper_mbps=-1.0), "shaper_mbps"),
        (lambda: path_model("shared", max_window=0), "max_window"),
        (lambda: path_model("shared", tcp="cubic"), "tcp"),
        (
            lambda: Repetition(path_model("shared", tcp="sack"), 1, 1500, 49.0, 0, trace=True),
            "trace",
        ),  # fmt: skip
    ],
)
def test_bad_input_names_the_parameter(make, word: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=word):
        make()


def test_transfer_sender_needs_a_finite_transfer() -> None:
    from tcplab.packet import TcpConfig

    net = Network()
    net.add_link("line", None, 10.0)
    with pytest.raises(ValueError, match="packets"):
        net.add_connection([["line"]], TcpConfig(), sender=TransferSender)


def test_sack_repairs_a_slow_start_overshoot_sooner_than_newreno() -> None:
    # ten synchronised slow starts overflow the buffer with tens of losses per window; NewReno
    # repairs one per round trip (RFC 6582), SACK several (RFC 6675): the last SACK transfer
    # ends sooner
    ends = {}
    for tcp in ("newreno", "sack"):
        path = path_model("shared", cross=(0, 0), tcp=tcp)
        out = run_repetition(Repetition(path, 10, 600_000, 49.0, 2))
        assert out["drops"] > 10 * 5  # the overshoot: many losses per connection
        ends[tcp] = max(out["completion_s"])
    assert ends["sack"] < ends["newreno"]
