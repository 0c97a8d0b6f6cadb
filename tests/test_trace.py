"""The microscope itself: the loss script, finite transfers, the event log and ``tcplab trace``.

These tests check the instruments (what a script drops, what the log records, what the
command prints); ``test_tcp_rfc.py`` uses them to check the senders against the RFCs.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import simpy

from tcplab import cli
from tcplab.packet import (
    EVENTS,
    VARIANTS,
    DropTail,
    Link,
    LossScript,
    Receiver,
    RecordingSender,
    TcpConfig,
    TcpSender,
    run_trace,
)
from tcplab.packet.sack import RecordingSackSender, SackReceiver, SackSender

TCPLAB = str(Path(sys.executable).parent / "tcplab")
RTT = 0.1 + 1500 * 8 / 10e6  # the CLI's defaults: 100 ms of propagation plus one transmission
ACK_EVENTS = {"ack", "dupack", "partial_ack", "recovery_exit"}


# -- the loss script ------------------------------------------------------------------------
def test_each_listing_drops_one_more_transmission_of_that_packet():
    script = LossScript([(0, 5), (0, 5), (1, 5)])
    passed = []
    send = script.wrap(passed.append)
    offered = [(0, 5, 1500), (0, 6, 1500), (1, 5, 1500), (0, 5, 1500), (0, 5, 1500), (1, 5, 1)]
    results = [send(p) for p in offered]
    # (0, 5) twice: its first two transmissions lost, the third passes; (1, 5) once
    assert results == [False, None, False, False, None, None]
    assert passed == [(0, 6, 1500), (0, 5, 1500), (1, 5, 1)]
    assert script.dropped == [(0, 5), (1, 5), (0, 5)]
    assert script.pending == []


def test_a_script_names_its_bad_entries():
    with pytest.raises(ValueError, match=r"seq=-1 is outside the allowed range \[0, inf\)"):
        LossScript([(0, -1)])
    with pytest.raises(ValueError, match="drop=7 is not a"):
        LossScript([7])
    assert LossScript([(2, 9), (0, 1)]).pending == [(0, 1), (2, 9)]


def test_a_packet_listed_twice_gets_through_on_its_third_transmission():
    trace = run_trace("newreno", drops=[20, 20], packets=60)
    ev = trace.events
    sends = ev[(ev["seq"] == 20) & ev["event"].isin(["send", "retransmit"])]
    assert list(sends["event"]) == ["send", "retransmit", "retransmit"]
    # the cumulative ACK passes 20 one round trip (plus queueing) after the third transmission
    passed = ev[ev["event"].isin(ACK_EVENTS) & (ev["seq"] > 20)]["time"].min()
    third = sends["time"].iloc[2]
    assert third + RTT <= passed < third + 2 * RTT
    assert trace.retransmits == 2 and trace.completion_s is not None


# -- finite transfers -----------------------------------------------------------------------
def test_a_finite_transfer_sends_each_packet_once_and_stops():
    trace = run_trace("reno", packets=50)
    ev = trace.events
    assert sorted(ev.loc[ev["event"] == "send", "seq"]) == list(range(50))
    assert trace.retransmits == trace.fast_retransmits == trace.timeouts == 0
    last = ev.iloc[-1]
    assert last["event"] == "ack" and last["seq"] == 50
    assert trace.completion_s == last["time"]


def test_completion_time_of_tiny_transfers_on_an_idle_path():
    # one packet: one round trip; three packets (initial window 1, slow start): packet 0,
    # then 1 and 2 together when its ACK returns; 2 waits one transmission time behind 1
    transmission = 1500 * 8 / 10e6
    assert run_trace(packets=1).completion_s == pytest.approx(RTT, abs=1e-12)
    assert run_trace(packets=3).completion_s == pytest.approx(2 * RTT + transmission, abs=1e-12)


def test_a_trace_stops_at_its_time_limit():
    trace = run_trace(packets=1000, until=0.5)
    assert trace.completion_s is None and trace.events["time"].max() <= 0.5
    assert trace.to_dict()["completion_s"] is None
    with pytest.raises(ValueError, match=r"until=0 is outside the allowed range \(0, inf\)"):
        run_trace(until=0)


def test_a_finished_sender_reports_once_and_sends_nothing_more():
    env = simpy.Environment()
    config = TcpConfig(packets=10)
    done = []
    forward = Link(env, 10e6, 0.05, DropTail(100))
    back = Link(env, None, 0.05)
    sender = TcpSender(env, 0, config, forward.send)
    receiver = Receiver(env, 0, back.send)
    forward.dst, back.dst = receiver.on_packet, sender.on_ack
    sender.on_complete = done.append
    sender.start()
    env.run(until=30.0)
    assert done == [sender] and sender.stopped
    assert sender.sent == 10 and receiver.delivered == 10
    assert sender.completed_at is not None and sender.rate == 0.0
    with pytest.raises(ValueError, match=r"packets=0 is outside the allowed range \[1, inf\)"):
        TcpConfig(packets=0)


# -- the event log --------------------------------------------------------------------------
def one_flow(sender_type, drops, tcp="newreno", packets=120):
    env = simpy.Environment()
    config = TcpConfig(variant=tcp, packets=packets, max_window=40)
    forward = Link(env, 2e6, 0.03, DropTail(12))  # a small buffer: real drops as well
    back = Link(env, None, 0.03)
    if tcp == "sack":  # SACK's own sender (plain or recording) and receiver
        sender_type = {TcpSender: SackSender, RecordingSender: RecordingSackSender}[sender_type]
    sender = sender_type(env, 0, config, forward.send, trace=True)
    receiver = (SackReceiver if tcp == "sack" else Receiver)(env, 0, back.send)
    forward.dst, back.dst = receiver.on_packet, sender.on_ack
    LossScript([(0, s) for s in drops]).attach(sender)
    sender.start()
    env.run()
    return sender, forward


@pytest.mark.parametrize("tcp", VARIANTS)
def test_recording_changes_nothing_the_sender_does(tcp):
    plain, plain_link = one_flow(TcpSender, [30, 31, 60, 60], tcp)
    recorded, recorded_link = one_flow(RecordingSender, [30, 31, 60, 60], tcp)
    assert plain_link.drops > 0  # the buffer overflowed too
    for name in ("sent", "retransmits", "fast_retransmits", "timeouts", "completed_at"):
        assert getattr(plain, name) == getattr(recorded, name), name
    assert list(plain.trace_time) == list(recorded.trace_time)
    assert list(plain.trace_cwnd) == list(recorded.trace_cwnd)
    assert list(plain_link.trace_departure) == list(recorded_link.trace_departure)


@pytest.mark.parametrize("tcp", VARIANTS)
def test_the_log_agrees_with_the_senders_counters(tcp):
    sender, _ = one_flow(RecordingSender, [30, 31, 60, 60], tcp)
    ev = sender.log.frame()
    counts = ev["event"].value_counts()
    assert set(counts.index) <= set(EVENTS)
    assert counts.get("retransmit", 0) == sender.retransmits > 0
    assert counts.get("fast_retransmit", 0) == sender.fast_retransmits
    assert counts.get("timeout", 0) == sender.timeouts
    assert counts["send"] + counts.get("retransmit", 0) == sender.sent
    assert np.all(np.diff(ev["time"].to_numpy()) >= 0)  # in time order
    sampled = ev[ev["rtt_sample"].notna()]
    assert len(sampled) > 0 and set(sampled["event"]) <= ACK_EVENTS
    # each loss response is logged right after the ACK that caused it (a time-out after none)
    kind, seq, time = ev["event"].to_numpy(), ev["seq"].to_numpy(), ev["time"].to_numpy()
    for i in np.flatnonzero(kind == "fast_retransmit"):
        assert kind[i - 1] == "dupack" and time[i - 1] == time[i]
        assert kind[i + 1] == "retransmit" and seq[i + 1] == seq[i]


def test_the_trace_frame_and_its_json():
    trace = run_trace("reno", drops=[14, 26, 28], packets=40, window=28)
    ev = trace.events
    assert list(ev.columns) == ["time", "event", "seq", "cwnd", "ssthresh", "rto", "rtt_sample"]
    assert math.isinf(ev["ssthresh"].iloc[0])  # no loss yet
    text = json.dumps(trace.to_dict(), allow_nan=False)  # valid JSON: no Infinity, no NaN
    back = json.loads(text)
    assert {"events", "fast_retransmits", "timeouts", "retransmits", "completion_s"} <= set(back)
    assert len(back["events"]) == len(ev)
    first = back["events"][0]
    assert set(first) == {"t", "event", "seq", "cwnd", "ssthresh", "rto", "rtt_sample"}
    assert first["ssthresh"] is None and first["rtt_sample"] is None
    assert [e["ssthresh"] is None for e in back["events"]] == list(np.isinf(ev["ssthresh"]))


# -- the command line -----------------------------------------------------------------------
def test_tcplab_trace_prints_json_and_a_table():
    args = ["trace", "--tcp", "reno", "--drop", "14", "--drop", "28", "--window", "28",
            "--packets", "40"]  # fmt: skip
    done = subprocess.run([TCPLAB, *args, "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not valid JSON")

    result = json.loads(done.stdout, parse_constant=refuse)
    assert result["fast_retransmits"] == 2 and result["timeouts"] == 0  # see test_tcp_rfc
    assert result["drops"] == [14, 28] and result["tcp"] == "reno"
    table = subprocess.run([TCPLAB, *args], capture_output=True, text=True, timeout=60)
    lines = table.stdout.splitlines()
    assert lines[0].split()[:3] == ["t", "(s)", "event"]
    assert len(lines) == len(result["events"]) + 2
    assert lines[-1].startswith("fast retransmits 2, time-outs 0, retransmits 2, completed at")


def test_the_cli_offers_every_variant():
    parser = cli._parser()
    actions = parser._subparsers._group_actions[0].choices["trace"]._actions
    tcp = next(a for a in actions if a.dest == "tcp")
    assert tuple(tcp.choices) == VARIANTS


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--packets", "0"], ["--packets", "packets=0", "[1, 100000]"]),
        (["--window", "0"], ["window=0", "[1, inf)"]),
        (["--drop", "100"], ["drop=100", "[0, 99]"]),
        (["--drop", "-1"], ["drop=-1", "[0, 99]"]),
        (["--drop", "x"], ["--drop", "'x'"]),
        (["--rtt-ms", "-5"], ["rtt_ms=-5", "[0, inf)"]),
        (["--rate-mbps", "0"], ["rate_mbps=0", "(0, inf)"]),
        (["--buffer", "0"], ["buffer=0", "[1, inf)"]),
        (["--initial-window", "65"], ["initial_window=65", "[1, 64]"]),
        (["--granularity", "0"], ["granularity=0", "(0, inf)"]),
        # x / G overflowed at the smallest double (an OverflowError traceback): the RTO is an
        # exact multiple of G only for G >= max_rto / 2^53
        (["--granularity=5e-324"], ["--granularity=5e-324", "[7.11e-15, inf)", "--max-rto 64"]),
        (["--granularity=1e-12", "--max-rto=1e6"], ["[1.11e-10, inf)", "--max-rto 1e+06"]),
        (["--min-rto", "0"], ["min_rto=0", "(0, inf)"]),
        (["--max-rto", "0.1"], ["max_rto=0.1", "[0.2, inf)"]),
        (["--tcp", "vegas"], ["--tcp", "vegas", "newreno"]),
        (["--tcp", "reno", "--a", "2"], ["--a/--beta", "--tcp aimd", "reno"]),
        (["--tcp", "aimd", "--beta", "1"], ["beta=1", "(0, 1)"]),
        (["--tcp", "aimd", "--a", "0"], ["a=0", "(0, inf)"]),
    ],
)
def test_bad_trace_input_is_one_line_naming_the_flag(capsys, args, words):
    assert cli.main(["trace", *args]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0]
