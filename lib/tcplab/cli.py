"""The ``tcplab`` command line: run any model or experiment, print JSON or CSV.

Every bad argument ends in one line on stderr that names the parameter, its value and the
allowed range, and a non-zero exit status; never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
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


def _morris(args: argparse.Namespace) -> int:
    from .chapters.morris.measures import summarise  # simpy is only needed here
    from .chapters.morris.runs import SENDERS, morris_setup
    from .chapters.morris.topology import run_morris

    flows = check_int("--flows", args.flows, 1, 100_000)
    buffer = check_int("--buffer", args.buffer, 4 if args.queue == "red" else 1, 1_000_000)
    seconds = check_range("--seconds", args.seconds, 0.0, 1e6, low_open=True)
    warmup = check_range("--warmup", args.warmup, 0.0, seconds, high_open=True)
    setup = morris_setup(
        flows, buffer=buffer, queue=check_choice("--queue", args.queue, ("red", "droptail")),
        sender=check_choice("--tcp", args.tcp, SENDERS), seconds=seconds, warmup=warmup,
        seed=check_int("--seed", args.seed, 0), telnet=check_int("--telnet", args.telnet, 0, 1000),
    )  # fmt: skip
    summary = summarise(run_morris(setup))
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            shown = ", ".join(f"{v:.3f}" for v in value if v is not None) if isinstance(
                value, list) else value  # fmt: skip
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


def _transfers(args: argparse.Namespace) -> int:
    from .chapters.lee.experiments import repetition_seed  # simpy is only needed here
    from .chapters.lee.transfer import PATHS, Repetition, packets_for, path_model, run_repetition

    flows = check_int("--flows", args.flows, 1, 10_000)
    nbytes = check_range("--bytes", args.bytes, 1.0, 1e10)
    if nbytes != int(nbytes):
        raise ValueError(f"--bytes={args.bytes!r} must be a whole number of bytes")
    packets_for(nbytes)
    rtt = check_range("--rtt-ms", args.rtt_ms, 0.0, 10_000.0, low_open=True)
    path = path_model(check_choice("--path", args.path, PATHS))
    repetitions = check_int("--repetitions", args.repetitions, 1, 10_000)
    seed = check_int("--seed", args.seed, 0)
    started = time.perf_counter()
    aggregate, per_flow, completion, delivered = [], [], [], 0
    for r in range(repetitions):
        rep = Repetition(path, flows, int(nbytes), rtt, repetition_seed(seed, path.name, flows, r))
        out = run_repetition(rep)
        times = [float(t) for t in out["completion_s"]]
        delivered += int(out["bytes"].sum())
        completion.append(times)
        per_flow.append([nbytes / t if t == t else 0.0 for t in times])
        last = max(times)
        aggregate.append(flows * nbytes / last if last == last else 0.0)
    summary = {
        "path": path.name, "flows": flows, "bytes": int(nbytes), "rtt_ms": rtt,
        "repetitions": repetitions, "seed": seed, "aggregate_bytes_per_s": aggregate,
        "per_flow_bytes_per_s": per_flow, "completion_s": completion,
        "bytes_delivered": delivered, "wall_s": time.perf_counter() - started,
    }  # fmt: skip
    if args.json:
        print(json.dumps(summary))
        return 0
    shown = dict(summary)
    shown["per_flow_bytes_per_s"] = [float(np.median(v)) for v in per_flow]
    shown["completion_s"] = [max(v) for v in completion]
    print(
        "(per flow and completion: the median per-flow rate and the last completion of each "
        "repetition; --json gives every flow)"
    )
    _print(shown, False)
    return 0


def _print(summary: dict[str, Any], as_json: bool) -> None:
    """One JSON object, or one ``key: value`` line per entry (lists and dicts on one line)."""
    if as_json:
        print(json.dumps(summary))
        return
    for key, value in summary.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            print(f"{key:>16}: {len(value)} entries (--json shows them)")
        elif isinstance(value, list):
            print(f"{key:>16}: " + ", ".join("-" if v is None else f"{v:.4g}" for v in value))
        elif isinstance(value, dict):
            print(f"{key:>16}: " + ", ".join(f"{k} {v:.4g}" for k, v in value.items()))
        else:
            print(f"{key:>16}: {value}")


def _weighted(args: argparse.Namespace) -> int:
    from .packet import weighted  # simpy is only needed here

    flows = check_int("--flows", args.flows, 1)
    weight = check_range("--weight", args.weight, 0.0, 1.0, low_open=True)
    duration = check_range("--duration", args.duration, 0.0, low_open=True)
    setup = weighted.weighted_setup([weight] * flows, duration=duration, warmup=0.0, seed=args.seed)
    run = weighted.run_weighted(setup, flows)
    summary = {"weight": weight, "flows": flows, **run.summary(), "wall_s": run.wall_s}
    _print(summary, args.json)
    return 0


def _bmc(args: argparse.Namespace) -> int:
    from . import multipath
    from .theory.bmc import K_RANGE

    scene = multipath.scenario(args.scenario)
    weights = _numbers("--weights", args.weights)
    if weights is not None:
        try:
            weights = multipath.check_weights(np.atleast_1d(weights), scene.subflows).tolist()
        except ValueError as error:  # "weights=..." or "weights[i]=...": name the flag
            raise UsageError(f"--{error}") from None
    j_s = check_range("--j-s", args.j_s, 0.0, low_open=True)
    k = check_range("--k", args.k, *K_RANGE, low_open=True)
    duration = check_range("--duration", args.duration, j_s)
    if args.model == "fluid":
        if args.controller == "lia":
            raise UsageError("--controller lia runs only in the packet model (--model packet)")
        run = multipath.manage(
            scene, weights, j_s=j_s, k=k, duration=duration, controller=args.controller
        )
        _print(run.summary(), args.json)
        return 0
    from .packet.multipath import MultipathSetup, run_multipath  # simpy is only needed here
    from .packet.setup import RunLength

    setup = MultipathSetup(
        scene, args.controller, tuple(weights) if weights else None, j_s, k,
        length=RunLength(duration, duration / 2.0), seed=args.seed,
    )  # fmt: skip
    _print(run_multipath(setup).summary(), args.json)
    return 0


def _levels(flag: str, text: str) -> list[int]:
    """``"1-31"`` -> 1..31, ``"1,2,5"`` -> [1, 2, 5]; a bad entry names the flag."""
    try:
        if "-" in text:
            low, _, high = text.partition("-")
            levels = list(range(int(low), int(high) + 1))
        else:
            levels = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag} {text!r} is not a range A-B or a list A,B,... of flows") from None
    if not levels or min(levels) < 1:
        raise UsageError(f"{flag} {text!r}: the numbers of flows must be in [1, inf)")
    return sorted(set(levels))


def _probe_pairs(texts: Sequence[str]) -> list[tuple[int, float]]:
    """``--probe N:THROUGHPUT`` values, checked: N >= 1, all different, throughputs > 0."""
    pairs: list[tuple[int, float]] = []
    for text in texts:
        n_text, _, bw_text = text.partition(":")
        try:
            n, bw = int(n_text), float(bw_text)
        except ValueError:
            raise UsageError(f"--probe {text!r} is not N:THROUGHPUT (flows N >= 1)") from None
        if n < 1:
            raise UsageError(f"--probe {text}: flows={n} is outside the allowed range [1, inf)")
        if not (bw > 0 and np.isfinite(bw)):
            raise UsageError(
                f"--probe {text}: throughput={bw_text} is outside the allowed range (0, inf)"
            )
        if n in [m for m, _ in pairs]:
            raise UsageError(
                f"--probe: two probes at flows={n}; the probes need different numbers of "
                "flows in [1, inf)"
            )
        pairs.append((n, bw))
    return pairs


def _finite(value: float) -> float | None:
    """JSON has no NaN: an undefined prediction is null."""
    return float(value) if np.isfinite(value) else None


def _predict(args: argparse.Namespace) -> int:
    from .theory.lu import PROBES_NEEDED, fit_probes

    pairs = _probe_pairs(args.probe or [])
    need = PROBES_NEEDED[args.model]
    if len(pairs) < need:
        raise UsageError(f"--probe: model {args.model} needs {need} probes N:THROUGHPUT")
    fit = fit_probes(pairs, args.model)
    predicted = fit.predict(_levels("--flows", args.flows))
    summary = {
        "model": args.model,
        "a": fit.a,
        "b": fit.b,
        **({"c": fit.params[2]} if len(fit.params) > 2 else {}),  # full2: a n^2 + b n + c
        "probes": {str(n): bw for n, bw in pairs},
        "predicted": {str(n): _finite(v) for n, v in predicted.items()},
    }
    if args.json:
        print(json.dumps(summary))
    else:
        extra = f", c = {fit.params[2]:.6g}" if len(fit.params) > 2 else ""
        print(f"model {args.model}: a = {fit.a:.6g}, b = {fit.b:.6g}{extra}")
        for n, value in predicted.items():
            print(f"{n:>5} flows: {value:.6g}")
    return 0


def _scenario_flag(scenario: int) -> int:
    from .chapters.lu.scenarios import SCENARIOS

    if scenario not in SCENARIOS:
        known = ", ".join(str(k) for k in SCENARIOS)
        raise UsageError(f"--scenario={scenario} is outside the allowed range: one of {known}")
    return scenario


def _tame(args: argparse.Namespace) -> int:
    from .tame import PacketProbe, tame_parallel_tcp

    scenario = _scenario_flag(args.scenario)
    if not 0.0 < args.max_impact < 1.0:
        raise UsageError(f"--max-impact={args.max_impact:g} is outside the allowed range (0, 1)")
    probes = _levels("--probes", args.probes)
    if len(probes) != len(args.probes.split(",")) or len(probes) < 2:
        raise UsageError(
            f"--probes {args.probes}: two different numbers of flows in [1, inf), e.g. 1,10"
        )
    started = time.perf_counter()
    probe = PacketProbe(scenario, check_int("cross", args.cross, 0), args.queue, args.seed)
    advice = tame_parallel_tcp(
        probe, args.max_impact, probes=probes, max_flows=args.max_flows, min_gain=args.min_gain
    )
    chosen = probe.run(advice.flows)
    base = probe.run(1).cross_bytes_per_s
    simulated_impact = 1.0 - chosen.cross_bytes_per_s / base if base > 0 else float("nan")
    summary = {
        "scenario": scenario,
        "cross": args.cross,
        "queue": args.queue,
        "max_impact": args.max_impact,
        "flows": advice.flows,
        "predicted_bytes_per_s": advice.throughput,
        "simulated_bytes_per_s": chosen.parallel_bytes_per_s,
        "predicted_impact": advice.impact,
        "simulated_impact": _finite(simulated_impact),
        "stopped_by": advice.stopped_by,
        "a": advice.fit.a,
        "b": advice.fit.b,
        "probes": {str(n): bw for n, bw in advice.probes.items()},
        "runs": len(probe.runs),
        "wall_s": time.perf_counter() - started,
    }
    _print(summary, args.json)
    return 0


def _lu(args: argparse.Namespace) -> int:
    from .chapters.lu.scenarios import run_scenario

    scenario = _scenario_flag(args.scenario)
    started = time.perf_counter()
    cross = check_int("cross", args.cross, 0)
    result = run_scenario(scenario, check_int("flows", args.flows, 1), cross, args.queue, args.seed)
    summary = {
        "scenario": scenario,
        "flows": args.flows,
        "cross": args.cross,
        "queue": args.queue,
        "seed": args.seed,
        **{k: _finite(v) if isinstance(v, float) else v for k, v in result.summary().items()},
    }
    summary["wall_s"] = time.perf_counter() - started
    _print(summary, args.json)
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


def _executor(args: argparse.Namespace) -> contextlib.AbstractContextManager[object]:
    """Where ``tcplab data`` runs the experiments' tasks: the local process pool, the Dask
    scheduler of ``--scheduler``, or a LocalCluster (``--cluster local``)."""
    if args.cluster_workers is not None and args.cluster is None:
        raise ValueError(f"--cluster-workers={args.cluster_workers} needs --cluster local")
    if args.scheduler is None and args.cluster is None:
        return contextlib.nullcontext()
    from .cluster import dask_executor  # imports Dask: only when asked for

    check_range("--timeout", args.timeout, 0.1, 3600.0)
    if args.scheduler is not None:
        return dask_executor(args.scheduler, timeout=args.timeout)
    workers = (os.cpu_count() or 1) if args.cluster_workers is None else args.cluster_workers
    return dask_executor(local_workers=check_int("--cluster-workers", workers, 1, 1024))


def _data(args: argparse.Namespace) -> int:
    names = args.only or sorted(registry.REGISTRY)
    for name in names:  # refuse a bad name before any long computation starts
        check_choice("experiment", name, registry.REGISTRY)
    with _executor(args):
        try:
            return _compute(names, args)
        except RuntimeError as error:
            if args.scheduler is None and args.cluster is None:
                raise
            from .cluster import ClusterLost

            if not isinstance(error, ClusterLost):
                raise
            print(f"tcplab: error: {error}", file=sys.stderr)
            return 1


def _compute(names: Sequence[str], args: argparse.Namespace) -> int:
    from .tasks import current_executor

    executor = current_executor()
    for name in tqdm(names, desc="experiments", unit="exp", file=sys.stderr):
        started = time.perf_counter()
        sent = getattr(executor, "sent", 0)
        table = registry.run(name, scale=args.scale, seed=args.seed, refresh=not args.keep)
        where = ""
        if executor is not None and getattr(executor, "sent", 0) == sent:
            where = " (nothing sent to the cluster: up to date, or not yet on tcplab.tasks)"
        tqdm.write(
            f"{name}: {len(table)} rows in {time.perf_counter() - started:.1f} s{where}",
            file=sys.stderr,
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

    mor = commands.add_parser(
        "morris", help="Morris (1997): N Tahoe flows through RED, his Figure 2 set-up"
    )
    mor.add_argument("--flows", type=int, required=True, help="greedy TCP flows N, >= 1")
    mor.add_argument("--buffer", type=int, default=217, help="router A's buffer, packets")
    mor.add_argument("--seconds", type=float, default=200.0, help="simulated seconds")
    mor.add_argument("--warmup", type=float, default=20.0, help="seconds not measured")
    mor.add_argument(
        "--tcp", default="tahoe",
        help="tahoe, reno, newreno, sack or tahoe-<remedy> (backoff4, paced, slowgrowth, ...)",
    )  # fmt: skip
    mor.add_argument("--queue", default="red", help="red (Figure 2) or droptail")
    mor.add_argument("--telnet", type=int, default=5, help="telnet-like sessions, 0..1000")
    mor.add_argument("--seed", type=int, default=0)
    mor.add_argument("--json", action="store_true", help="print one JSON object")
    mor.set_defaults(handler=_morris)

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
    tr.add_argument("--beta", type=float, help="aimd: window multiplied by beta on a loss (0.5)")
    tr.add_argument(
        "--json", action="store_true",
        help="print one JSON object (ssthresh is null while still infinite)",
    )  # fmt: skip
    tr.set_defaults(handler=_trace)

    wtd = commands.add_parser(
        "weighted",
        help="N TCP flows against N AIMD(D^2, 1/2) flows on Honda's 60 Mb/s RED bottleneck",
    )
    wtd.add_argument("--weight", type=float, required=True, help="BMC weight D, in (0, 1]")
    wtd.add_argument("--flows", type=int, required=True, help="N: flows of each kind, >= 1")
    wtd.add_argument("--duration", type=float, default=100.0, help="simulated seconds")
    wtd.add_argument("--seed", type=int, default=0)
    wtd.add_argument("--json", action="store_true", help="print one JSON object")
    wtd.set_defaults(handler=_weighted)

    pm = commands.add_parser(
        "bmc", help="BMC's proportion manager on the thesis's multipath examples (Honda)"
    )
    pm.add_argument("--scenario", choices=("shared", "pooling"), required=True)
    pm.add_argument("--model", choices=("fluid", "packet"), default="fluid")
    pm.add_argument(
        "--controller", choices=("bmc", "fixed", "uncoupled", "lia"), default="bmc",
        help="proportion manager, weights held, TCP per subflow, or MPTCP LIA (packet only)",
    )  # fmt: skip
    pm.add_argument("--j-s", type=float, default=10.0, help="measurement period J, s, > 0")
    pm.add_argument("--k", type=float, default=0.5, help="weight step factor K, in (0, 1]")
    pm.add_argument("--weights", help="starting weights D1,D2 summing to 1 (default equal)")
    pm.add_argument("--duration", type=float, default=300.0, help="simulated seconds, >= J")
    pm.add_argument("--seed", type=int, default=0)
    pm.add_argument("--json", action="store_true", help="print one JSON object")
    pm.set_defaults(handler=_bmc)

    pre = commands.add_parser(
        "predict", help="parallel TCP throughput at every n from two probes (Lu et al.)"
    )
    pre.add_argument(
        "--probe", action="append", metavar="N:THROUGHPUT",
        help="throughput measured with N parallel flows (repeat: two probes, three for full2)",
    )  # fmt: skip
    pre.add_argument("--flows", default="1-31", help="numbers of flows to predict: A-B or A,B,...")
    pre.add_argument("--model", choices=("partial2", "linear", "full2"), default="partial2")
    pre.add_argument("--json", action="store_true", help="print one JSON object")
    pre.set_defaults(handler=_predict)

    tam = commands.add_parser(
        "tame", help="TameParallelTCP: the advisor against the packet model (Lu et al.)"
    )
    tam.add_argument("--scenario", type=int, required=True, help="Lu et al.'s scenario, 1-6")
    tam.add_argument("--cross", type=int, default=10, help="cross-traffic flows, >= 0")
    tam.add_argument(
        "--max-impact", type=float, required=True,
        help="largest relative drop of each cross flow's throughput allowed, in (0, 1)",
    )  # fmt: skip
    tam.add_argument("--probes", default="1,10", help="the two probes' numbers of flows")
    tam.add_argument("--max-flows", type=int, default=31, help="most flows considered, >= 1")
    tam.add_argument(
        "--min-gain", type=float, default=0.01,
        help="stop when one more flow adds less than this fraction (0.01)",
    )  # fmt: skip
    tam.add_argument("--queue", choices=("droptail", "red"), default="droptail")
    tam.add_argument("--seed", type=int, default=0)
    tam.add_argument("--json", action="store_true", help="print one JSON object")
    tam.set_defaults(handler=_tame)

    lu = commands.add_parser(
        "lu", help="one run of Lu et al.'s scenarios: parallel flows and cross traffic"
    )
    lu.add_argument("--scenario", type=int, required=True, help="Lu et al.'s scenario, 1-6")
    lu.add_argument("--flows", type=int, required=True, help="parallel TCP flows, >= 1")
    lu.add_argument("--cross", type=int, required=True, help="cross-traffic flows, >= 0")
    lu.add_argument("--queue", choices=("droptail", "red"), default="droptail")
    lu.add_argument("--seed", type=int, default=0)
    lu.add_argument("--json", action="store_true", help="print one JSON object")
    lu.set_defaults(handler=_lu)

    tra = commands.add_parser(
        "transfers", help="Lee et al. (2012): N parallel finite transfers on an emulated path"
    )
    tra.add_argument("--flows", type=int, required=True, help="parallel transfers, >= 1")
    tra.add_argument("--bytes", type=float, default=2e6, help="bytes per transfer (2e6)")
    tra.add_argument("--rtt-ms", type=float, default=49.0, help="round-trip time, ms (49)")
    tra.add_argument("--path", default="shared", help="path model: shared, window or shaped")
    tra.add_argument("--repetitions", type=int, default=1, help="repetitions, >= 1")
    tra.add_argument("--seed", type=int, default=0)
    tra.add_argument("--json", action="store_true", help="print one JSON object")
    tra.set_defaults(handler=_transfers)

    from .ledger import command as ledger_command  # the ledger's own command (issue 38's form)

    led = commands.add_parser(ledger_command.NAME, help=ledger_command.HELP)
    ledger_command.add_arguments(led)
    led.set_defaults(handler=ledger_command.run)

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
    data.add_argument(
        "--scale", choices=("full", "paper"), default="full",
        help="paper: the paper's own grid where it is larger than the book's (lu-scenarios), "
        "stored as data/<name>.paper.csv",
    )  # fmt: skip
    where = data.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT",
        help="run the experiments' tasks on this Dask scheduler's workers (see the README)",
    )  # fmt: skip
    where.add_argument(
        "--cluster", choices=("local",),
        help="local: on a Dask LocalCluster of this machine (one process per core)",
    )  # fmt: skip
    data.add_argument(
        "--cluster-workers", type=int, metavar="N", help="worker processes of --cluster local"
    )
    data.add_argument(
        "--timeout", type=float, default=10.0, metavar="SECONDS",
        help="how long to wait for --scheduler to answer (default 10)",
    )  # fmt: skip
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
