"""The command-line layer of the measured advisor (:mod:`tcplab.advisor`), as functions a
command module wires in with a few lines:

* :func:`add_tame_arguments` adds ``--probe N:BW``, ``--iperf3 HOST[:PORT]``, ``--duration``,
  ``--omit``, ``--repeat``, ``--no-validate``, ``--decide`` and ``--force`` to the ``tame``
  parser (which already has ``--max-impact``, ``--min-gain``, ``--max-flows``, ``--probes``
  and ``--json``); :func:`is_measured` says whether a parsed command line asks for them and
  :func:`run_measured` answers it (exit status 0, or 1 with one line on stderr when a probe
  failed; a refusal or a bad value raises ``ValueError``, the command line's one error line
  with status 2). Before iperf3 starts, one line on stderr says how many runs it will make;
  the advice is printed once everything is measured. :func:`simulator_conflicts` refuses the
  measured-only flags in the simulator's mode; a flag of the other mode is never ignored.
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
    DECIDE,
    PROBE_HYGIENE,
    Advice,
    OutOfModel,
    advise,
    parse_pairs,
)
from .impact_band import ASSUMED_RUN_SPREAD, upper_confidence
from .iperf3 import MOST_STREAMS, Iperf3Probe, ProbeError, parse_host, printable, runs_needed
from .tame import CLOSEST_PROBES
from .theory.lu import Fit

__all__ = [
    "TAME_EPILOG",
    "add_predict_arguments",
    "add_tame_arguments",
    "impact_lines",
    "is_measured",
    "predict_impacts",
    "run_measured",
    "simulator_conflicts",
]

TAME_EPILOG = (
    "Measured probes (no simulator): --probe 1:BW1 --probe 10:BW10 (any one unit; repeat an N "
    f"to give repeats), or --iperf3 HOST[:PORT] to run iperf3 -c HOST -P n -t T -O W -J. "
    f"{ASSUMPTIONS}. {PROBE_HYGIENE.capitalize()}. The advisor refuses probes outside the "
    "model's domain (a' <= 0 or b' <= 0, throughput not rising, probes too close) and probes "
    "that cannot exclude linear growth (window-limited or uncongested: undecidable; one run "
    f"per probe is taken to spread {ASSUMED_RUN_SPREAD:.0%}); --force prints the numbers "
    "anyway. With repeats it prints a band on the impact and, by default, chooses n on the "
    "band's upper edge (--decide point: on the point estimate). --iperf3 makes len(probes) x "
    "--repeat runs, and one more to validate: the server must serve them all (not iperf3 -s "
    "-1); a busy server is tried again for up to 30 s."
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
        help="iperf3 seconds measured per run, after the warm-up: whole seconds in [1, 3600] "
        "(10; longer on long paths: several congestion epochs)",
    )  # fmt: skip
    group.add_argument(
        "--omit", type=float,
        help="iperf3 warm-up seconds left out (-O): whole seconds in [0, 600] (2): slow start "
        "favours many streams",
    )  # fmt: skip
    group.add_argument("--repeat", type=int, help="iperf3 runs per probe (3): spread and band")
    group.add_argument(
        "--no-validate", action="store_true", default=None,
        help="skip the iperf3 run at the recommended n that checks the prediction",
    )  # fmt: skip
    group.add_argument(
        "--decide", choices=DECIDE,
        help="apply --max-impact to the impact band's upper edge (upper, the default; needs "
        "repeats, else the point is used) or to the point estimate (point, as the paper)",
    )  # fmt: skip
    group.add_argument(
        "--force", action="store_true", default=None,
        help="print the numbers even when the probes leave the model's domain",
    )  # fmt: skip


def is_measured(args: argparse.Namespace) -> bool:
    """Does this ``tame`` command line give measured probes (then :func:`run_measured`)?"""
    return bool(getattr(args, "probe", None)) or getattr(args, "iperf3", None) is not None


#: the iperf3 run's flags and their defaults (None on the command line: not given)
IPERF3_DEFAULTS = {"duration": 10, "omit": 2, "repeat": 3, "no_validate": False}
#: the simulator's own flags (None on the command line: not given), refused with measured probes
SIMULATOR_ONLY = ("cross", "queue", "seed")
#: the measured advisor's own flags, refused in the simulator's mode
MEASURED_ONLY = ("force", "decide", *IPERF3_DEFAULTS)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _given(args: argparse.Namespace, names: tuple[str, ...] | list[str]) -> list[str]:
    """The flags among ``names`` this command line gives (its parser's defaults are None)."""
    return [_flag(k) for k in names if getattr(args, k, None) is not None]


def simulator_conflicts(args: argparse.Namespace) -> None:
    """Refuse the measured advisor's flags given with ``--scenario`` (they would change
    nothing): a ValueError naming the first."""
    given = _given(args, MEASURED_ONLY)
    if given:
        raise ValueError(
            f"{given[0]} applies to measured probes (--probe, --iperf3), not to --scenario"
        )


def _iperf3_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The iperf3 flags with their defaults; refused when given without ``--iperf3`` (they
    would change nothing), and so are the simulator's flags and, with ``--probe``,
    ``--probes`` (the probes' own numbers of flows are the levels)."""
    iperf3_only = _given(args, list(IPERF3_DEFAULTS))
    if args.iperf3 is None and iperf3_only:
        raise ValueError(f"{iperf3_only[0]} applies to --iperf3 probes only")
    simulator = _given(args, SIMULATOR_ONLY)
    if simulator:
        raise ValueError(f"{simulator[0]} sets the simulator (--scenario): leave it out with "
                         "measured probes")  # fmt: skip
    if args.probe and getattr(args, "probes", None) is not None:
        raise ValueError(
            "--probes sets the levels of --iperf3 or --scenario; with --probe the levels are "
            "the probes' own N"
        )
    return {
        k: v if getattr(args, k, None) is None else getattr(args, k)
        for k, v in IPERF3_DEFAULTS.items()
    }


def _fail(message: str, status: int) -> int:
    print(f"tcplab: error: {printable(message, 2000)}", file=sys.stderr)
    return status


def run_measured(args: argparse.Namespace) -> int:
    """``tcplab tame --probe ...`` or ``--iperf3 ...``: advise from measured probes; prints the
    advice (text or ``--json``) and returns the exit status. Bad input raises ``ValueError``
    (the command line's one error line, status 2); a failed probe returns 1."""
    try:
        if args.probe and args.iperf3:
            raise ValueError("--probe and --iperf3 exclude each other: give one")
        if getattr(args, "scenario", None) is not None:
            raise ValueError("--scenario runs the simulator: leave it out with measured probes")
        settings = _iperf3_settings(args)
        if not 0.0 < args.max_impact < 1.0:
            raise ValueError(
                f"--max-impact={args.max_impact:g} is outside the allowed range (0, 1)"
            )
        common = {
            "max_flows": args.max_flows, "min_gain": args.min_gain, "force": bool(args.force),
            "decide": getattr(args, "decide", None) or "upper",
        }  # fmt: skip
        runs = None
        if args.probe:
            advice = advise(parse_pairs(args.probe, "--probe"), args.max_impact, **common)
        else:
            try:
                host, port = parse_host(args.iperf3)
            except ValueError as error:
                named = str(error) if "--iperf3" in str(error) else f"--iperf3: {error}"
                raise ValueError(named) from None
            levels = _probe_levels(getattr(args, "probes", None) or "1,10")
            probe = Iperf3Probe(
                host, port, settings["duration"], settings["omit"], settings["repeat"]
            )
            validate = not settings["no_validate"]
            probe.planned = runs = runs_needed(len(levels), probe.repeat, validate)
            print(_announce(probe, levels, validate), file=sys.stderr, flush=True)
            from tqdm import tqdm  # noqa: PLC0415 - the browser's panel never gets here

            # on a terminal only (disable=None): a pipe or a log gets the one line above
            with tqdm(total=runs, unit="run", desc="iperf3", disable=None, leave=False) as bar:
                probe.on_run = bar.update
                advice = advise(
                    probe, args.max_impact, probes=levels, validate=validate, unit="Mbit/s",
                    **common,
                )  # fmt: skip
    except OutOfModel as error:  # the refusal: what the probes imply, naming where they came from
        raise OutOfModel(f"{'--probe' if args.probe else '--iperf3'}: {error}") from None
    except ProbeError as error:
        return _fail(str(error), 1)
    summary = advice.summary()
    summary["source"] = f"iperf3 {args.iperf3}" if args.iperf3 else "probes"
    summary["runs"] = runs
    if args.json:
        print(json.dumps(summary))
    else:
        print("\n".join(advice_lines(advice, summary["source"])))
    return 0


def _announce(probe: Iperf3Probe, levels: list[int], validate: bool) -> str:
    """The line said before iperf3 starts: how many runs, of how long, and what they need."""
    runs = probe.planned or 0
    each = probe.duration + probe.omit
    check = ", 1 to validate at the chosen n" if validate else ""
    return (
        f"tcplab: iperf3 to {probe.where}: {runs} runs of about {each:g} s ({probe.repeat} at "
        f"each of {', '.join(str(n) for n in levels)} streams{check}): about "
        f"{runs * (each + 1):.0f} s; the server must serve all {runs} (iperf3 -s, not -s -1)"
    )


def _probe_levels(text: str) -> list[int]:
    """``--probes`` for iperf3, checked before any run: numbers of streams iperf3 takes, far
    enough apart for the fit (the guard's ratio, :data:`tcplab.tame.CLOSEST_PROBES`)."""
    try:
        levels = [int(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"--probes {text!r}: two numbers of flows A,B, e.g. 1,10") from None
    if len(set(levels)) != len(levels) or len(levels) < 2 or min(levels) < 1:
        raise ValueError(f"--probes {text!r}: two different numbers of flows in [1, inf)")
    if max(levels) > MOST_STREAMS:
        raise ValueError(f"--probes {text!r}: iperf3 takes at most {MOST_STREAMS} streams")
    if max(levels) / min(levels) < CLOSEST_PROBES:
        raise ValueError(
            f"--probes {text!r}: {min(levels)} and {max(levels)} streams are too close (ratio "
            f"{max(levels) / min(levels):.3g} < {CLOSEST_PROBES:g}): the fit amplifies their "
            "noise; probe at 1 and about 10"
        )
    return levels


def _num(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.4g}"


def _pct(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.1%}"


def decision_lines(advice: Advice) -> list[str]:
    """The choice, what the limit was applied to, and what the band leaves undecided."""
    r = advice.result
    unit = f" {advice.unit}" if advice.unit else ""
    on = "the impact band's upper edge" if r.decided_on == "upper" else "the point estimate"
    if advice.impact_band is None:
        note = (
            "no band: one run per probe, so the choice rests on the point estimate; repeat "
            "each probe (N:BW given twice or more, or --repeat) for a band"
        )
    else:
        low, high = advice.impact_band[r.flows]
        note = f"band {_pct(low)} - {_pct(high)}"
    lines = [
        f"open {r.flows} connection{'' if r.flows == 1 else 's'} (stopped by {r.stopped_by}, "
        f"the limit applied to {on}; "
        f"max impact {advice.max_impact:.0%}): predicted {_num(r.throughput)}{unit}, impact "
        f"{_pct(r.impact)} ({note})"
    ]
    if advice.undecided is not None:
        first, last = advice.undecided
        span = f"{first}" if first == last else f"{first}-{last}"
        needed = (
            f"{advice.repeats_needed} runs per probe would decide {last} (if each probe's "
            "mean and run-to-run sd stay as measured)"
            if advice.repeats_needed is not None
            else f"no number of repeats decides {last}: its point impact is at the limit"
        )
        lines.append(
            f"the band is too wide to decide n = {span}: the point estimate allows up to "
            f"{r.point_flows} connections, the band's upper edge only "
            f"{first - 1 if first > 1 else 1}; {needed}"
        )
    return lines


def advice_lines(advice: Advice, source: str = "probes") -> list[str]:
    """The advice as text: choice, fit, probes, the table over n, validation, assumptions."""
    r = advice.result
    unit = f" {advice.unit}" if advice.unit else ""
    lines = [f"WARNING (--force): {advice.warning}"] if advice.warning else []
    lines += decision_lines(advice)
    lines.append(f"fit (partial order 2, from {source}): a' = {r.fit.a:.6g}, b' = {r.fit.b:.6g}")
    for n, value in sorted(r.probes.items()):
        spread = advice.spread.get(n)
        runs = len(advice.samples.get(n, [value]))
        extra = f" (sd {spread:.3g} over {runs} runs)" if spread is not None else ""
        lines.append(f"probe {n:>3} connections: {value:.6g}{unit}{extra}")
    bands = advice.band is not None and advice.impact_band is not None
    header = f"{'n':>5} {'predicted':>11} {'impact':>8}"
    lines.append(header + (f"   {'impact band':<17}throughput band" if bands else ""))
    for n, value in advice.predicted.items():
        row = f"{n:>5} {_num(value):>11} {_pct(advice.impact[n]):>8}"
        if advice.band is not None and advice.impact_band is not None:
            low, high = advice.impact_band[n]
            lo, hi = advice.band[n]
            row += f"   {_pct(low) + ' - ' + _pct(high):<17}{_num(lo)} - {_num(hi)}"
        lines.append(row + ("  <- chosen" if n == r.flows else ""))
    if bands:
        levels = len(r.probes)
        lines.append(
            "bands: the fit over each probe's 95% t interval; both cover the model's values "
            f"with probability >= {0.95**levels:.0%}, and the impact is at most the band's "
            f"upper edge with probability >= {upper_confidence(levels):.0%} (the probes' "
            "noise only, not the model's own error)"
        )
    if advice.validation:
        v = advice.validation
        where = (
            "no band to compare with: one run per probe" if v["inside_band"] is None
            else f"{'inside' if v['inside_band'] else 'outside'} the throughput band"
        )  # fmt: skip
        lines.append(
            f"validation at {v['flows']}: measured {_num(float(v['measured']))}{unit}, "
            f"prediction off by {float(v['error']):+.1%} ({where})"
        )
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
