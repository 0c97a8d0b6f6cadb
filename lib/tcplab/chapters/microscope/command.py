"""``tcplab trace``: one TCP flow with chosen packets dropped, every sender event printed (the
chapter's loss scripts, from the shell). One command, named by the module-level ``NAME``,
``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).

Its size flag, ``--packets``, is bounded (:data:`MOST_PACKETS`) by memory more than by time:
the trace keeps every event, and on the book's two-core machine 10^5 packets took 4 s of one
core and 250 MB (24 MB of JSON), 10^6 packets 31 s and 1.8 GB.

``--granularity`` G is at least ``max_rto / 2**53``: the sender rounds its RTO up to a multiple
``G ceil(x / G)``, an exact multiple only while ``x / G`` is an integer a double holds exactly
(below 2**53), and ``x / G`` overflowed past 1.8e308 at G = 5e-324 (a traceback).
"""

from __future__ import annotations

import argparse
import json

from tcplab.checks import check_int
from tcplab.flags import LARGER_RUNS

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "trace"
HELP = "one TCP flow, chosen packets dropped: every sender event (loss script)"
MOST_PACKETS = 100_000  # 4 s of one core, 250 MB


def add_arguments(parser: argparse.ArgumentParser) -> None:
    tr = parser
    tr.add_argument(
        "--tcp", choices=("tahoe", "reno", "newreno", "aimd", "sack"), default="newreno"
    )
    tr.add_argument(
        "--drop", type=int, action="append", metavar="SEQ",
        help="drop one more transmission of packet SEQ (repeat: --drop 20 --drop 20 also "
        "loses its retransmission)",
    )  # fmt: skip
    tr.add_argument(
        "--packets", type=int, default=100,
        help=f"new packets sent in all, in [1, {MOST_PACKETS:g}]",
    )  # fmt: skip
    tr.add_argument("--window", type=int, default=64, help="most packets in flight, >= 1")
    tr.add_argument("--rtt-ms", type=float, default=100.0, help="round-trip propagation, ms")
    tr.add_argument("--rate-mbps", type=float, default=10.0, help="link rate, Mb/s")
    tr.add_argument("--buffer", type=int, default=1000, help="link buffer in packets")
    tr.add_argument("--initial-window", type=int, default=1, help="packets, in [1, window]")
    tr.add_argument(
        "--granularity", type=float, default=0.01, help="timer granularity G, s, >= max-rto / 2^53"
    )
    tr.add_argument("--min-rto", type=float, default=0.2, help="RTO floor, s")
    tr.add_argument("--max-rto", type=float, default=64.0, help="RTO cap, s, >= min-rto")
    tr.add_argument("--a", type=float, help="aimd: packets added per RTT (1)")
    tr.add_argument("--beta", type=float, help="aimd: window multiplied by beta on a loss (0.5)")
    tr.add_argument(
        "--json", action="store_true",
        help="print one JSON object (ssthresh is null while still infinite)",
    )  # fmt: skip
    tr.epilog = LARGER_RUNS


def run(args: argparse.Namespace) -> int:
    from tcplab.packet.trace import run_trace  # simpy is only needed here

    aimd = {k: v for k, v in (("a", args.a), ("beta", args.beta)) if v is not None}
    if aimd and args.tcp != "aimd":
        raise ValueError(f"--a/--beta only apply to --tcp aimd, not {args.tcp!r}")
    if args.max_rto > 0 and args.max_rto < float("inf"):  # else run_trace names --max-rto
        least = args.max_rto * 2.0**-53
        if 0 < args.granularity < least:  # 0, negative or NaN: run_trace says (0, inf)
            raise ValueError(
                f"--granularity={args.granularity!r} is outside the allowed range [{least:.3g}, "
                f"inf) for --max-rto {args.max_rto:g}: an RTO rounded up to a multiple of G is "
                "exact only above max-rto / 2^53"
            )
    trace = run_trace(
        args.tcp,
        args.drop or (),
        packets=check_int("packets", args.packets, 1, MOST_PACKETS),
        window=args.window,
        rtt_ms=args.rtt_ms,
        rate_mbps=args.rate_mbps,
        buffer=args.buffer,
        initial_window=args.initial_window,
        granularity=args.granularity,
        min_rto=args.min_rto,
        max_rto=args.max_rto,
        **aimd,
    )
    if args.json:
        print(json.dumps(trace.to_dict()))
        return 0
    head = ("t (s)", "event", "seq", "cwnd", "ssthresh", "rto (s)", "rtt (s)")
    print("{:>10} {:<16} {:>5} {:>8} {:>8} {:>7} {:>8}".format(*head))
    for row in trace.records:
        ssthresh = "inf" if row["ssthresh"] is None else f"{row['ssthresh']:.2f}"
        rtt = "-" if row["rtt_sample"] is None else f"{row['rtt_sample']:.4f}"
        print(
            f"{row['t']:>10.4f} {row['event']:<16} {row['seq']:>5} {row['cwnd']:>8.2f} "
            f"{ssthresh:>8} {row['rto']:>7.3f} {rtt:>8}"
        )
    done = trace.completion_s
    print(
        f"fast retransmits {trace.fast_retransmits}, time-outs {trace.timeouts}, "
        f"retransmits {trace.retransmits}, completed at "
        + ("never" if done is None else f"{done:.4f} s")
    )
    return 0
