"""``tcplab predict``, ``tcplab tame`` and ``tcplab lu``: Lu et al.'s prediction of parallel
TCP throughput from two probes, the TameParallelTCP advisor against the packet model, and one
run of the paper's scenarios.

Three commands in one module: :data:`COMMANDS`, a tuple of :class:`tcplab.commands.Command`
(the convention of :mod:`tcplab.commands` for a module with several commands).

Their size flags are bounded. ``predict`` evaluates a closed form: up to
:data:`tcplab.flags.MOST_FLOWS_PREDICTED` flows. ``lu`` and ``tame`` run the paper's 100 s
scenarios in the packet model, whose cost is set by the bottleneck's rate more than by the
flows (measured on the book's two-core machine, one core: scenario 1, 1.5 Mb/s, 31 + 30
flows: 1.3 s, 1000 + 1000 flows: 2.3 s; scenario 2, 100 Mb/s, 1000 flows: 29 s; scenario 4,
1 Gb/s, one flow: 5 s, 31 flows and 10 cross-traffic flows about 100 s): at most
:data:`MOST_FLOWS` parallel and cross-traffic flows each. The 1 Gb/s scenarios 4 and 5 cost
up to minutes per run; their grids belong to ``tcplab data`` (lu-gigabit) on a cluster.
"""

from __future__ import annotations

import argparse
import json
import math
import time

from tcplab.advisor_cli import (
    add_predict_arguments,
    add_tame_arguments,
    impact_lines,
    is_measured,
    predict_impacts,
    run_measured,
    simulator_conflicts,
)
from tcplab.checks import check_int
from tcplab.commands import Command, UsageError, print_summary
from tcplab.flags import LARGER_RUNS, MOST_FLOWS_PREDICTED, levels, probe_pairs

__all__ = ["COMMANDS"]

MOST_FLOWS = 1000  # parallel flows, and cross-traffic flows, of one run of a scenario


def _finite(value: float) -> float | None:
    """JSON has no NaN: an undefined prediction is null."""
    return float(value) if math.isfinite(value) else None


def _predict_arguments(parser: argparse.ArgumentParser) -> None:
    pre = parser
    pre.add_argument(
        "--probe", action="append", metavar="N:THROUGHPUT",
        help="throughput measured with N parallel flows, N in [1, "
        f"{MOST_FLOWS_PREDICTED}] (repeat: two probes, three for full2)",
    )  # fmt: skip
    pre.add_argument(
        "--flows", default="1-31",
        help=f"numbers of flows to predict: A-B or A,B,..., in [1, {MOST_FLOWS_PREDICTED}]",
    )  # fmt: skip
    pre.add_argument("--model", choices=("partial2", "linear", "full2"), default="partial2")
    pre.add_argument("--json", action="store_true", help="print one JSON object")
    add_predict_arguments(pre)
    pre.add_argument(
        "--force", action="store_true",
        help="print the partial2 prediction even when the probes leave the model's domain "
        "(a' <= 0 or b' <= 0, throughput not rising, probes too close)",
    )  # fmt: skip


def _predict(args: argparse.Namespace) -> int:
    from tcplab.theory.lu import PROBES_NEEDED, fit_probes

    pairs = probe_pairs(args.probe or [])
    need = PROBES_NEEDED[args.model]
    if len(pairs) < need:
        raise UsageError(f"--probe: model {args.model} needs {need} probes N:THROUGHPUT")
    flows = levels("--flows", args.flows)
    fit = fit_probes(pairs, args.model)
    if args.model == "partial2" and not args.force:
        from tcplab.tame import domain_problem

        problem = domain_problem(fit, dict(pairs))
        if problem:
            raise UsageError(f"--probe: {problem} (--force prints the numbers anyway)")
    predicted = fit.predict(flows)
    summary = {
        "model": args.model,
        "a": fit.a,
        "b": fit.b,
        **({"c": fit.params[2]} if len(fit.params) > 2 else {}),  # full2: a n^2 + b n + c
        "probes": {str(n): bw for n, bw in pairs},
        "predicted": {str(n): _finite(v) for n, v in predicted.items()},
    }
    if args.impact:
        summary.update(predict_impacts(fit, list(predicted)))
    if args.json:
        print(json.dumps(summary))
    else:
        extra = f", c = {fit.params[2]:.6g}" if len(fit.params) > 2 else ""
        print(f"model {args.model}: a = {fit.a:.6g}, b = {fit.b:.6g}{extra}")
        if args.impact:
            print("\n".join(impact_lines(fit, predicted)))
        else:
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
    tam.add_argument(
        "--scenario", type=int,
        help="Lu et al.'s scenario, 1-6 (4 and 5, at 1 Gb/s, take minutes per run); "
        "leave it out with measured probes (--probe, --iperf3)",
    )  # fmt: skip
    tam.add_argument("--cross", type=int, help=f"cross-traffic flows (10), in [0, {MOST_FLOWS}]")
    tam.add_argument(
        "--max-impact", type=float, required=True,
        help="largest relative drop of each cross flow's throughput allowed, in (0, 1)",
    )  # fmt: skip
    tam.add_argument(
        "--probes",
        help=f"the two probes' numbers of flows, A,B (1,10): exactly two, in [1, {MOST_FLOWS}] "
        "(--scenario or --iperf3)",
    )  # fmt: skip
    tam.add_argument(
        "--max-flows", type=int, default=31,
        help=f"most flows considered, in [1, {MOST_FLOWS}]",
    )  # fmt: skip
    tam.add_argument(
        "--min-gain", type=float, default=0.01,
        help="stop when one more flow adds less than this fraction (0.01)",
    )  # fmt: skip
    tam.add_argument("--queue", choices=("droptail", "red"), help="droptail (the default) or red")
    tam.add_argument("--seed", type=int, help="the simulator's seed (0)")
    tam.add_argument("--json", action="store_true", help="print one JSON object")
    tam.epilog = LARGER_RUNS
    add_tame_arguments(tam)


def _tame(args: argparse.Namespace) -> int:
    from tcplab.tame import PacketProbe, domain_problem, tame_parallel_tcp

    if is_measured(args):
        check_int("max_flows", args.max_flows, 1, MOST_FLOWS)
        return run_measured(args)
    if args.scenario is None:
        raise UsageError("give --scenario (the simulator) or --probe/--iperf3 (measured probes)")
    scenario = _scenario_flag(args.scenario)
    simulator_conflicts(args)
    if not 0.0 < args.max_impact < 1.0:
        raise UsageError(f"--max-impact={args.max_impact:g} is outside the allowed range (0, 1)")
    given = args.probes or "1,10"
    probes = levels("--probes", given, MOST_FLOWS)
    if "-" in given or len(probes) != len(given.split(",")) or len(probes) != 2:
        raise UsageError(
            f"--probes {given}: exactly two different numbers of flows in "
            f"[1, {MOST_FLOWS}], e.g. 1,10"
        )
    max_flows = check_int("max_flows", args.max_flows, 1, MOST_FLOWS)
    cross = check_int("cross", 10 if args.cross is None else args.cross, 0, MOST_FLOWS)
    queue = args.queue or "droptail"
    started = time.perf_counter()
    probe = PacketProbe(scenario, cross, queue, 0 if args.seed is None else args.seed)
    advice = tame_parallel_tcp(
        probe, args.max_impact, probes=probes, max_flows=max_flows, min_gain=args.min_gain
    )
    chosen = probe.run(advice.flows)
    base = probe.run(1).cross_bytes_per_s
    simulated_impact = 1.0 - chosen.cross_bytes_per_s / base if base > 0 else float("nan")
    over = bool(math.isfinite(simulated_impact) and simulated_impact > args.max_impact)
    summary = {
        "scenario": scenario,
        "cross": cross,
        "queue": queue,
        "max_impact": args.max_impact,
        "flows": advice.flows,
        "predicted_bytes_per_s": advice.throughput,
        "simulated_bytes_per_s": chosen.parallel_bytes_per_s,
        "predicted_impact": advice.impact,
        "simulated_impact": _finite(simulated_impact),
        "over_limit": over,
        "stopped_by": advice.stopped_by,
        "a": advice.fit.a,
        "b": advice.fit.b,
        "probes": {str(n): bw for n, bw in advice.probes.items()},
        "model_warning": domain_problem(advice.fit, advice.probes),
        "runs": len(probe.runs),
        "wall_s": time.perf_counter() - started,
    }
    if over:
        summary["warning"] = (
            f"the simulated impact {simulated_impact:.1%} exceeds the limit "
            f"{args.max_impact:.0%} (predicted {advice.impact:.1%}): the model under-predicts "
            "the impact here"
        )
    print_summary(summary, args.json)
    return 0


def _lu_arguments(parser: argparse.ArgumentParser) -> None:
    lu = parser
    lu.add_argument(
        "--scenario", type=int, required=True,
        help="Lu et al.'s scenario, 1-6 (4 and 5, at 1 Gb/s, take minutes)",
    )  # fmt: skip
    lu.add_argument(
        "--flows", type=int, required=True, help=f"parallel TCP flows, in [1, {MOST_FLOWS}]"
    )
    lu.add_argument(
        "--cross", type=int, required=True, help=f"cross-traffic flows, in [0, {MOST_FLOWS}]"
    )
    lu.add_argument("--queue", choices=("droptail", "red"), default="droptail")
    lu.add_argument("--seed", type=int, default=0)
    lu.add_argument("--json", action="store_true", help="print one JSON object")
    lu.epilog = LARGER_RUNS


def _lu(args: argparse.Namespace) -> int:
    from .scenarios import run_scenario

    scenario = _scenario_flag(args.scenario)
    started = time.perf_counter()
    cross = check_int("cross", args.cross, 0, MOST_FLOWS)
    flows = check_int("flows", args.flows, 1, MOST_FLOWS)
    result = run_scenario(scenario, flows, cross, args.queue, args.seed)
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
        "TameParallelTCP: the advisor from measured probes or the packet model (Lu et al.)",
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
