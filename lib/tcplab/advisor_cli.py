"""The command-line layer of the measured advisor (:mod:`tcplab.advisor`), as functions a
command module wires in with a few lines:

* :func:`add_tame_arguments` adds ``--probe N:BW``, ``--iperf3 HOST[:PORT]``, ``--duration``,
  ``--omit``, ``--repeat``, ``--no-validate`` and ``--force`` to the ``tame`` parser (which
  already has ``--max-impact``, ``--min-gain``, ``--max-flows`` and ``--json``);
  :func:`is_measured` says whether a parsed command line asks for them and :func:`run_measured`
  answers it (exit status 0, or 1 with one line on stderr when a probe failed; a refusal or a
  bad value raises ``ValueError``, the command line's one error line with status 2), printing
  nothing until everything is measured.
* :func:`add_predict_arguments` adds ``--impact`` to ``predict``; :func:`predict_impacts`
  gives the impact at each n for its JSON and :func:`impact_lines` for its text.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from .advisor import (
    ASSUMPTIONS,
    PROBE_HYGIENE,
    Advice,
    Iperf3Probe,
    OutOfModel,
    ProbeError,
    advise,
    parse_host,
    parse_pairs,
)
from .theory.lu import Fit

__all__ = [
    "TAME_EPILOG",
    "add_predict_arguments",
    "add_tame_arguments",
    "impact_lines",
    "is_measured",
    "predict_impacts",
    "run_measured",
]

TAME_EPILOG = (
    "Measured probes (no simulator): --probe 1:BW1 --probe 10:BW10 (any one unit; repeat an N "
    f"to give repeats), or --iperf3 HOST[:PORT] to run iperf3 -c HOST -P n -t T -O W -J. "
    f"{ASSUMPTIONS}. {PROBE_HYGIENE.capitalize()}. The advisor refuses probes outside the "
    "model's domain "
    "(a' <= 0 or b' <= 0, throughput not rising, probes too close); --force prints the "
    "numbers anyway."
)


def add_tame_arguments(parser: argparse.ArgumentParser) -> None:
    """The measured-probe flags of ``tcplab tame`` (the existing parser keeps its own)."""
    group = parser.add_argument_group(
        "measured probes (instead of --scenario)", TAME_EPILOG
    )  # fmt: skip
    group.add_argument(
        "--probe", action="append", metavar="N:THROUGHPUT",
        help="throughput measured with N parallel connections (at least two different N; "
        "a repeated N is a repeat), in any one unit",
    )  # fmt: skip
    group.add_argument(
        "--iperf3", metavar="HOST[:PORT]",
        help="probe with iperf3 against this server (at 1 and 10 streams, or --probes)",
    )  # fmt: skip
    group.add_argument(
        "--duration", type=float,
        help="iperf3 seconds measured per run, after the warm-up (10; longer on long paths: "
        "several congestion epochs)",
    )  # fmt: skip
    group.add_argument(
        "--omit", type=float,
        help="iperf3 warm-up seconds left out (-O, 2): slow start favours many streams",
    )  # fmt: skip
    group.add_argument("--repeat", type=int, help="iperf3 runs per probe (3): spread and band")
    group.add_argument(
        "--no-validate", action="store_true",
        help="skip the iperf3 run at the recommended n that checks the prediction",
    )  # fmt: skip
    group.add_argument(
        "--force", action="store_true",
        help="print the numbers even when the probes leave the model's domain",
    )  # fmt: skip


def is_measured(args: argparse.Namespace) -> bool:
    """Does this ``tame`` command line give measured probes (then :func:`run_measured`)?"""
    return bool(getattr(args, "probe", None)) or getattr(args, "iperf3", None) is not None


#: the iperf3 run's flags and their defaults (None on the command line: not given)
IPERF3_DEFAULTS = {"duration": 10.0, "omit": 2.0, "repeat": 3, "no_validate": False}


def _iperf3_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The iperf3 flags with their defaults; refused when given without ``--iperf3`` (they
    would change nothing)."""
    given = [k for k, v in IPERF3_DEFAULTS.items() if getattr(args, k, None) not in (None, v)]
    if args.iperf3 is None and given:
        flag = "--" + given[0].replace("_", "-")
        raise ValueError(f"{flag} applies to --iperf3 probes only")
    return {
        k: v if getattr(args, k, None) is None else getattr(args, k)
        for k, v in IPERF3_DEFAULTS.items()
    }


def _fail(message: str, status: int) -> int:
    print(f"tcplab: error: {message}", file=sys.stderr)
    return status


def run_measured(args: argparse.Namespace) -> int:
    """``tcplab tame --probe ...`` or ``--iperf3 ...``: advise from measured probes; prints the
    advice (text or ``--json``) and returns the exit status. Bad input raises ``ValueError``
    (the command line's one error line, status 2); a failed probe returns 1."""
    settings = _iperf3_settings(args)
    try:
        if args.probe and args.iperf3:
            raise ValueError("--probe and --iperf3 exclude each other: give one")
        if getattr(args, "scenario", None) is not None:
            raise ValueError("--scenario runs the simulator: leave it out with measured probes")
        if not 0.0 < args.max_impact < 1.0:
            raise ValueError(
                f"--max-impact={args.max_impact:g} is outside the allowed range (0, 1)"
            )
        common = {"max_flows": args.max_flows, "min_gain": args.min_gain, "force": args.force}
        if args.probe:
            advice = advise(parse_pairs(args.probe, "--probe"), args.max_impact, **common)
        else:
            try:
                host, port = parse_host(args.iperf3)
            except ValueError as error:
                named = str(error) if "--iperf3" in str(error) else f"--iperf3: {error}"
                raise ValueError(named) from None
            probe = Iperf3Probe(
                host, port, settings["duration"], settings["omit"], settings["repeat"]
            )
            levels = _probe_levels(getattr(args, "probes", "1,10"))
            advice = advise(
                probe, args.max_impact, probes=levels, validate=not settings["no_validate"],
                unit="Mbit/s", **common,
            )  # fmt: skip
    except OutOfModel as error:  # the refusal: what the probes imply, naming where they came from
        raise OutOfModel(f"{'--probe' if args.probe else '--iperf3'}: {error}") from None
    except ProbeError as error:
        return _fail(str(error), 1)
    summary = advice.summary()
    summary["source"] = f"iperf3 {args.iperf3}" if args.iperf3 else "probes"
    if args.json:
        print(json.dumps(summary))
    else:
        print("\n".join(advice_lines(advice, summary["source"])))
    return 0


def _probe_levels(text: str) -> list[int]:
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"--probes {text!r}: two numbers of flows A,B, e.g. 1,10") from None
    if len(set(levels)) != len(levels) or len(levels) < 2 or min(levels) < 1:
        raise ValueError(f"--probes {text!r}: two different numbers of flows in [1, inf)")
    return levels


def _num(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.4g}"


def advice_lines(advice: Advice, source: str = "probes") -> list[str]:
    """The advice as text: choice, fit, probes, the table over n, validation, assumptions."""
    r = advice.result
    unit = f" {advice.unit}" if advice.unit else ""
    lines = []
    if advice.warning:
        lines.append(f"WARNING (--force): {advice.warning}")
    lines += [
        f"open {r.flows} connections (stopped by {r.stopped_by}; max impact "
        f"{advice.max_impact:.0%}): predicted {_num(r.throughput)}{unit}, impact {r.impact:.1%}",
        f"fit (partial order 2, from {source}): a' = {r.fit.a:.6g}, b' = {r.fit.b:.6g}",
    ]
    for n, value in sorted(r.probes.items()):
        spread = advice.spread.get(n)
        runs = len(advice.samples.get(n, [value]))
        extra = f" (sd {spread:.3g} over {runs} runs)" if spread is not None else ""
        lines.append(f"probe {n:>3} connections: {value:.6g}{unit}{extra}")
    header = f"{'n':>5} {'predicted':>11} {'impact':>8}"
    lines.append(header + ("   95% band" if advice.band else ""))
    for n, value in advice.predicted.items():
        impact = advice.impact[n]
        row = f"{n:>5} {_num(value):>11} {impact:>8.1%}" if math.isfinite(impact) else (
            f"{n:>5} {_num(value):>11} {'-':>8}")  # fmt: skip
        if advice.band:
            lo, hi = advice.band[n]
            row += f"   {_num(lo)} - {_num(hi)}"
        lines.append(row + ("  <- chosen" if n == r.flows else ""))
    if advice.band:
        lines.append(
            "band: the fit over each probe's 95% t interval (covers the model's prediction "
            f"with probability >= {0.95 ** len(r.probes):.0%})"
        )
    if advice.validation:
        v = advice.validation
        lines.append(
            f"validation at {v['flows']}: measured {_num(float(v['measured']))}{unit}, "
            f"prediction off by {float(v['error']):+.1%}"
            + ("" if advice.band is None else f" ({'inside' if v['inside_band'] else 'outside'}"
               " the band)")
        )  # fmt: skip
    lines.append(f"assumes: {ASSUMPTIONS}")
    return lines


def add_predict_arguments(parser: argparse.ArgumentParser) -> None:
    """``--impact`` for ``tcplab predict``: also the predicted cross-traffic impact at each n."""
    parser.add_argument(
        "--impact", action="store_true",
        help="also print the predicted impact at each n: the relative drop of each cross "
        "flow's throughput against one connection (loss-limited Reno-like cross traffic "
        "sharing one loss rate)",
    )  # fmt: skip


def predict_impacts(fit: Fit, levels: list[int]) -> dict[str, Any]:
    """The JSON fields ``predict --impact`` adds: ``impact`` {n: value or None} and the
    ``assumptions`` it rests on."""
    values = {str(n): float(fit.impact(n)) for n in levels}
    return {
        "impact": {n: (v if math.isfinite(v) else None) for n, v in values.items()},
        "assumptions": ASSUMPTIONS,
    }


def impact_lines(fit: Fit, predicted: dict[int, float]) -> list[str]:
    """``predict --impact``'s text: n, throughput and impact per line, then the assumptions."""
    lines = []
    for n, value in predicted.items():
        impact = float(fit.impact(n))
        shown = f"{impact:.1%}" if math.isfinite(impact) else "-"
        lines.append(f"{n:>5} flows: {value:.6g}  impact {shown}")
    return [*lines, f"assumes: {ASSUMPTIONS}"]
