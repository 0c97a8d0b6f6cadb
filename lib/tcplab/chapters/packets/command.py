"""``tcplab packet``: N TCP flows on a dumbbell in the packet model (simpy), with the queue
(DropTail, RED, the threshold-dropper) and sender knobs the chapter varies. One command,
named by the module-level ``NAME``, ``HELP``, ``add_arguments`` and ``run`` (see
:mod:`tcplab.commands`).

Its size flags are bounded, each and together: a run's cost is its bottleneck packets (the
model simulated 35 000 to 60 000 of them per second of one core, measured on the book's
two-core machine), about ``--rate-mbps x --duration / --packet-bytes``; at most
:data:`MOST_PACKETS` of them, a couple of minutes.
"""

from __future__ import annotations

import argparse
import json

from tcplab.checks import check_int, check_range
from tcplab.commands import UsageError
from tcplab.flags import LARGER_RUNS, budget

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "packet"
HELP = "N TCP flows on a dumbbell, packet-level (simpy)"
MOST_FLOWS = 1000
MOST_BUFFER = 1_000_000
MOST_RATE_MBPS = 10_000.0
MOST_DURATION = 3600.0
MOST_PACKETS = 5e6  # bottleneck packets, rate x duration / packet size: about 2 minutes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pkt = parser
    pkt.add_argument(
        "--flows", type=int, default=10, help=f"number of TCP flows, in [1, {MOST_FLOWS}]"
    )
    pkt.add_argument("--queue", choices=("droptail", "red", "threshold"), default="droptail")
    pkt.add_argument(
        "--buffer", type=int, default=100,
        help=f"bottleneck buffer in packets, in [1, {MOST_BUFFER:g}]",
    )  # fmt: skip
    pkt.add_argument(
        "--rate-mbps", type=float, default=10.0,
        help=f"bottleneck rate, Mb/s, in (0, {MOST_RATE_MBPS:g}]",
    )  # fmt: skip
    pkt.add_argument("--delay-ms", type=float, default=25.0, help="bottleneck one-way delay")
    pkt.add_argument("--access-mbps", type=float, default=100.0, help="access link rate, Mb/s")
    pkt.add_argument("--access-delay-ms", type=float, default=0.0, help="access one-way delay")
    pkt.add_argument(
        "--duration", type=float, default=60.0,
        help=f"simulated seconds, in (0, {MOST_DURATION:g}]; rate x duration / packet size "
        f"at most {MOST_PACKETS:g} packets",
    )  # fmt: skip
    pkt.add_argument("--warmup", type=float, default=10.0, help="seconds not measured")
    pkt.add_argument("--tcp", choices=("tahoe", "reno", "newreno", "sack"), default="newreno")
    pkt.add_argument("--packet-bytes", type=int, default=1500)
    pkt.add_argument(
        "--delayed-ack-ms",
        type=float,
        help="receivers ACK every second packet, at most this late (default: every packet)",
    )
    pkt.add_argument("--initial-window", type=int, default=1, help="packets, >= 1")
    pkt.add_argument("--min-rto-ms", type=float, default=200.0, help="RTO floor, ms (200)")
    pkt.add_argument("--min-th", type=float, help="RED min threshold (default 0.6 buffer)")
    pkt.add_argument("--max-th", type=float, help="RED max threshold (default 0.8 buffer)")
    pkt.add_argument("--max-p", type=float, help="RED max drop probability, in (0, 1]")
    pkt.add_argument(
        "--gentle", action="store_true", help="RED: ramp from max_p to 1 up to 2 max_th"
    )
    pkt.add_argument("--threshold", type=int, help="threshold-dropper: queue length Th (3)")
    pkt.add_argument("--hold-ms", type=float, help="threshold-dropper: hold time, ms (100)")
    pkt.add_argument(
        "--select",
        choices=("first", "random", "largest"),
        help="threshold-dropper: connection signalled (first arrival, uniform, largest rate)",
    )
    pkt.add_argument(
        "--overhead-ms",
        type=float,
        default=0.0,
        help="random per-packet send jitter U(0, x) ms, as ns-2's overhead_",
    )
    pkt.add_argument("--seed", type=int, default=0)
    pkt.add_argument("--json", action="store_true", help="print one JSON object")
    pkt.epilog = LARGER_RUNS


def run(args: argparse.Namespace) -> int:
    from tcplab import packet  # simpy is only needed here

    check_int("flows", args.flows, 1, MOST_FLOWS)
    check_int("buffer", args.buffer, 1, MOST_BUFFER)
    rate = check_range("rate_mbps", args.rate_mbps, 0.0, MOST_RATE_MBPS, low_open=True)
    duration = check_range("duration", args.duration, 0.0, MOST_DURATION, low_open=True)
    size = check_int("packet_bytes", args.packet_bytes, 1)
    what = f"--rate-mbps x --duration / --packet-bytes = {rate:g} Mb/s x {duration:g} s / {size} B"
    budget(what, rate * 1e6 / 8 * duration / size, MOST_PACKETS)
    red_max = 0.8 * args.buffer  # RED's max_th when not given (tcplab.packet.queues)
    if args.queue == "red" and args.max_th is None and (args.min_th or 0.0) >= red_max:
        raise UsageError(
            f"--min-th={args.min_th:g} is outside the allowed range [0, {red_max:g}): below "
            f"max_th, 0.8 x --buffer unless --max-th is given"
        )
    hold = None if args.hold_ms is None else check_range("hold_ms", args.hold_ms, 0.0) / 1e3
    min_rto = check_range("min_rto_ms", args.min_rto_ms, 0.0, low_open=True) / 1e3
    flags = {"min_th": "--min-th", "max_th": "--max-th", "max_p": "--max-p", "hold": "--hold-ms"}
    try:
        queue = packet.QueueSetup(
            args.queue, args.buffer, min_th=args.min_th, max_th=args.max_th, max_p=args.max_p,
            gentle=True if args.gentle else None, threshold=args.threshold, hold=hold,
            select=args.select,
        )  # fmt: skip
    except packet.MisplacedOptions as error:  # the rule is the set-up's; the words are flags
        given = "/".join(flags.get(name, f"--{name}") for name in error.names)
        raise UsageError(
            f"{given} only apply to --queue {error.owner}, not {error.kind!r}"
        ) from None
    setup = packet.PacketSetup(
        topology=packet.DumbbellTopology(
            args.flows, args.rate_mbps, args.delay_ms, args.access_mbps, args.access_delay_ms,
            overhead_ms=args.overhead_ms,
        ),
        queue=queue,
        tcp=packet.TcpConfig(
            variant=args.tcp, packet_bytes=args.packet_bytes,
            initial_window=args.initial_window, min_rto=min_rto,
        ),
        length=packet.RunLength(args.duration, args.warmup),
        probes=packet.Probes(trace=False),
        delayed_ack_ms=args.delayed_ack_ms,
        seed=args.seed,
    )  # fmt: skip
    summary = packet.run(setup).summary()
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            shown = ", ".join(f"{v:.3f}" for v in value) if isinstance(value, list) else value
            print(f"{key:>22}: {shown}")
    return 0
