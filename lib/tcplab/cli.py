"""The ``tcplab`` command line: run any model or experiment, print JSON or CSV.

Every bad argument ends in one line on stderr that names the parameter, its value and the
allowed range, and a non-zero exit status; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np
from tqdm import tqdm

from . import __version__, fluid, policies, registry
from .checks import check_choice, check_int, check_range
from .theory import altman

__all__ = ["main"]


class UsageError(Exception):
    """A bad command line; its message is printed as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse would print the usage and exit
        raise UsageError(message)


def _sawtooth(args: argparse.Namespace) -> int:
    beta, eta, capacity, events = args.beta, args.eta, args.capacity, args.events
    started = time.perf_counter()  # fluid.simulate checks each argument and names it
    result = fluid.simulate(
        1,
        policies.AllFlows(),
        capacity=capacity,
        beta=beta,
        eta=eta,
        events=events,
        replicas=1,
        seed=args.seed,
    )
    summary = {
        "beta": beta,
        "eta": eta,
        "capacity": capacity,
        "utilisation": result.aggregate,
        "formula": altman.sawtooth_utilisation(beta),
        "period": altman.sawtooth_period(beta, eta, capacity),
        "events": result.events,
        "wall_s": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>12}: {value:.6g}")
    return 0


def _numbers(name: str, text: str | None) -> Any:
    """``"0.5"`` -> 0.5, ``"0.4,0.6"`` -> [0.4, 0.6]; a bad entry names the parameter."""
    if text is None:
        return None
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number or a comma-separated list") from None
    return values[0] if len(values) == 1 else values


def _fluid(args: argparse.Namespace) -> int:
    flows = check_int("flows", args.flows, 1)
    events = check_int("events", args.events, 1)
    replicas = check_int("replicas", args.replicas, 1)
    started = time.perf_counter()
    result = fluid.simulate(
        flows,
        args.policy,
        probs=_numbers("probs", args.probs),
        capacity=check_range("capacity", args.capacity, 0.0, low_open=True),
        beta=_numbers("beta", args.beta),
        eta=_numbers("eta", args.eta),
        events=events,
        replicas=replicas,
        seed=args.seed,
    )
    wall = time.perf_counter() - started
    summary = {
        **result.to_dict(),
        "theorem_1": altman.parallel_throughput(flows, float(np.mean(result.beta))),
        "wall_s": wall,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"aggregate   {result.aggregate:.6f} ± {result.aggregate_ci:.1e} of c "
            f"(Theorem 1: {summary['theorem_1']:.6f})"
        )
        for i, (mean, second) in enumerate(
            zip(result.per_flow, result.second_moment, strict=True), 1
        ):
            print(f"flow {i:<3}    mean {mean:.6f}   E[X^2] {second:.6f}")
        print(f"events      {result.events}   wall {wall:.2f} s")
    return 0


def _packet(args: argparse.Namespace) -> int:
    from . import packet  # simpy is only needed here

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


def _trace(args: argparse.Namespace) -> int:
    from .packet.trace import run_trace  # simpy is only needed here

    aimd = {k: v for k, v in (("a", args.a), ("beta", args.beta)) if v is not None}
    if aimd and args.tcp != "aimd":
        raise ValueError(f"--a/--beta only apply to --tcp aimd, not {args.tcp!r}")
    trace = run_trace(
        args.tcp,
        args.drop or (),
        packets=args.packets,
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


def _list(args: argparse.Namespace) -> int:
    for name, experiment in sorted(registry.REGISTRY.items()):
        print(f"{name:28} {experiment.description}")
    return 0


def _run(args: argparse.Namespace) -> int:
    table = registry.run(args.name, scale=args.scale, seed=args.seed, refresh=args.refresh)
    if args.format == "json":
        print(table.to_json(orient="records"))
    else:
        print(table.to_csv(index=False), end="")
    return 0


def _data(args: argparse.Namespace) -> int:
    names = args.only or sorted(registry.REGISTRY)
    for name in names:  # refuse a bad name before any long computation starts
        check_choice("experiment", name, registry.REGISTRY)
    for name in tqdm(names, desc="experiments", unit="exp", file=sys.stderr):
        started = time.perf_counter()
        table = registry.run(name, scale="full", seed=args.seed, refresh=not args.keep)
        tqdm.write(
            f"{name}: {len(table)} rows in {time.perf_counter() - started:.1f} s", file=sys.stderr
        )
    return 0


def _parser() -> _Parser:
    parser = _Parser(prog="tcplab", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tcplab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    saw = commands.add_parser("sawtooth", help="one AIMD connection alone on a link")
    saw.add_argument("--beta", type=float, default=0.5, help="decrease factor, in (0, 1)")
    saw.add_argument("--eta", type=float, default=1.0, help="rate increase per unit time, > 0")
    saw.add_argument("--capacity", type=float, default=1.0, help="link capacity c, > 0")
    saw.add_argument("--events", type=int, default=1000, help="congestion events, >= 1")
    saw.add_argument("--seed", type=int, default=0)
    saw.add_argument("--json", action="store_true", help="print one JSON object")
    saw.set_defaults(handler=_sawtooth)

    flu = commands.add_parser("fluid", help="N AIMD connections, exact fluid model (Altman et al.)")
    flu.add_argument("--flows", type=int, default=2, help="number of connections N, >= 1")
    flu.add_argument("--policy", choices=policies.POLICY_NAMES, default="rate-independent")
    flu.add_argument("--probs", help="rate-independent selection probabilities p1,...,pN")
    flu.add_argument("--beta", default="0.5", help="decrease factor in (0, 1), or b1,...,bN")
    flu.add_argument("--eta", default="1", help="rate increase per unit time > 0, or e1,...,eN")
    flu.add_argument("--capacity", type=float, default=1.0, help="link capacity c, > 0")
    flu.add_argument("--events", type=int, default=10_000, help="congestion events per replica")
    flu.add_argument("--replicas", type=int, default=16, help="independent replicas, >= 1")
    flu.add_argument("--seed", type=int, default=0)
    flu.add_argument("--json", action="store_true", help="print one JSON object")
    flu.set_defaults(handler=_fluid)

    pkt = commands.add_parser("packet", help="N TCP flows on a dumbbell, packet-level (simpy)")
    pkt.add_argument("--flows", type=int, default=10, help="number of TCP flows, >= 1")
    pkt.add_argument("--queue", choices=("droptail", "red", "threshold"), default="droptail")
    pkt.add_argument("--buffer", type=int, default=100, help="bottleneck buffer in packets")
    pkt.add_argument("--rate-mbps", type=float, default=10.0, help="bottleneck rate, Mb/s")
    pkt.add_argument("--delay-ms", type=float, default=25.0, help="bottleneck one-way delay")
    pkt.add_argument("--access-mbps", type=float, default=100.0, help="access link rate, Mb/s")
    pkt.add_argument("--access-delay-ms", type=float, default=0.0, help="access one-way delay")
    pkt.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
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
    pkt.set_defaults(handler=_packet)

    tr = commands.add_parser(
        "trace", help="one TCP flow, chosen packets dropped: every sender event (loss script)"
    )
    tr.add_argument(
        "--tcp", choices=("tahoe", "reno", "newreno", "aimd", "sack"), default="newreno"
    )
    tr.add_argument(
        "--drop", type=int, action="append", metavar="SEQ",
        help="drop one more transmission of packet SEQ (repeat: --drop 20 --drop 20 also "
        "loses its retransmission)",
    )  # fmt: skip
    tr.add_argument("--packets", type=int, default=100, help="new packets sent in all, >= 1")
    tr.add_argument("--window", type=int, default=64, help="most packets in flight, >= 1")
    tr.add_argument("--rtt-ms", type=float, default=100.0, help="round-trip propagation, ms")
    tr.add_argument("--rate-mbps", type=float, default=10.0, help="link rate, Mb/s")
    tr.add_argument("--buffer", type=int, default=1000, help="link buffer in packets")
    tr.add_argument("--initial-window", type=int, default=1, help="packets, in [1, window]")
    tr.add_argument("--granularity", type=float, default=0.01, help="timer granularity G, s")
    tr.add_argument("--min-rto", type=float, default=0.2, help="RTO floor, s")
    tr.add_argument("--max-rto", type=float, default=64.0, help="RTO cap, s, >= min-rto")
    tr.add_argument("--a", type=float, help="aimd: packets added per RTT (1)")
    tr.add_argument(
        "--beta", type=float, help="aimd: window multiplied by beta on a loss (0.5)"
    )
    tr.add_argument(
        "--json", action="store_true",
        help="print one JSON object (ssthresh is null while still infinite)",
    )  # fmt: skip
    tr.set_defaults(handler=_trace)

    listing = commands.add_parser("list", help="list the experiments behind the book")
    listing.set_defaults(handler=_list)

    run = commands.add_parser("run", help="run one experiment and print its table")
    run.add_argument("name", help="experiment name (see `tcplab list`)")
    run.add_argument("--scale", choices=registry.SCALES, default="quick")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--format", choices=("csv", "json"), default="csv")
    run.add_argument("--refresh", action="store_true", help="recompute even if cached")
    run.set_defaults(handler=_run)

    data = commands.add_parser("data", help="recompute the full-scale results in data/")
    data.add_argument("--only", nargs="+", metavar="NAME", help="only these experiments")
    data.add_argument("--seed", type=int, default=0)
    data.add_argument("--keep", action="store_true", help="keep results that are up to date")
    data.set_defaults(handler=_data)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` command; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        return args.handler(args)
    except (UsageError, ValueError) as error:
        print(f"tcplab: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head`: not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stop the flush at exit failing)
        return 0
    except KeyboardInterrupt:
        print("tcplab: interrupted; data/ holds only complete results", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
