"""``tcplab predict``, ``tcplab tame`` and ``tcplab lu``: Lu et al.'s prediction of parallel
TCP throughput from two probes, the TameParallelTCP advisor against the packet model, and one
run of the paper's scenarios.

Three commands in one module: :data:`COMMANDS`, a tuple of :class:`tcplab.commands.Command`
(the convention of :mod:`tcplab.commands` for a module with several commands).
"""

from __future__ import annotations

import argparse
import json
import math
import time

from tcplab.checks import check_int
from tcplab.commands import Command, UsageError, print_summary
from tcplab.flags import levels, probe_pairs

__all__ = ["COMMANDS"]


def _finite(value: float) -> float | None:
    """JSON has no NaN: an undefined prediction is null."""
    return float(value) if math.isfinite(value) else None


def _predict_arguments(parser: argparse.ArgumentParser) -> None:
    pre = parser
    pre.add_argument(
        "--probe", action="append", metavar="N:THROUGHPUT",
        help="throughput measured with N parallel flows (repeat: two probes, three for full2)",
    )  # fmt: skip
    pre.add_argument("--flows", default="1-31", help="numbers of flows to predict: A-B or A,B,...")
    pre.add_argument("--model", choices=("partial2", "linear", "full2"), default="partial2")
    pre.add_argument("--json", action="store_true", help="print one JSON object")


def _predict(args: argparse.Namespace) -> int:
    from tcplab.theory.lu import PROBES_NEEDED, fit_probes

    pairs = probe_pairs(args.probe or [])
    need = PROBES_NEEDED[args.model]
    if len(pairs) < need:
        raise UsageError(f"--probe: model {args.model} needs {need} probes N:THROUGHPUT")
    fit = fit_probes(pairs, args.model)
    predicted = fit.predict(levels("--flows", args.flows))
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
    from .scenarios import SCENARIOS

    if scenario not in SCENARIOS:
        known = ", ".join(str(k) for k in SCENARIOS)
        raise UsageError(f"--scenario={scenario} is outside the allowed range: one of {known}")
    return scenario


def _tame_arguments(parser: argparse.ArgumentParser) -> None:
    tam = parser
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


def _tame(args: argparse.Namespace) -> int:
    from tcplab.tame import PacketProbe, tame_parallel_tcp

    scenario = _scenario_flag(args.scenario)
    if not 0.0 < args.max_impact < 1.0:
        raise UsageError(f"--max-impact={args.max_impact:g} is outside the allowed range (0, 1)")
    probes = levels("--probes", args.probes)
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
    print_summary(summary, args.json)
    return 0


def _lu_arguments(parser: argparse.ArgumentParser) -> None:
    lu = parser
    lu.add_argument("--scenario", type=int, required=True, help="Lu et al.'s scenario, 1-6")
    lu.add_argument("--flows", type=int, required=True, help="parallel TCP flows, >= 1")
    lu.add_argument("--cross", type=int, required=True, help="cross-traffic flows, >= 0")
    lu.add_argument("--queue", choices=("droptail", "red"), default="droptail")
    lu.add_argument("--seed", type=int, default=0)
    lu.add_argument("--json", action="store_true", help="print one JSON object")


def _lu(args: argparse.Namespace) -> int:
    from .scenarios import run_scenario

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
    print_summary(summary, args.json)
    return 0


COMMANDS = (
    Command(
        "predict",
        "parallel TCP throughput at every n from two probes (Lu et al.)",
        _predict_arguments,
        _predict,
    ),
    Command(
        "tame",
        "TameParallelTCP: the advisor against the packet model (Lu et al.)",
        _tame_arguments,
        _tame,
    ),
    Command(
        "lu",
        "one run of Lu et al.'s scenarios: parallel flows and cross traffic",
        _lu_arguments,
        _lu,
    ),
)
