"""TameParallelTCP on a real network: measured probes in, advice and its limits out.

:func:`advise` runs Lu et al.'s advisor (:func:`tcplab.tame.tame_parallel_tcp`) with its
guards on: it refuses (:class:`~tcplab.tame.OutOfModel`, one line saying what the probes
imply) when the fit leaves the model's domain, unless ``force``. A probe is either recorded
numbers ({n: throughput} or {n: [repeats]}) or a function of n such as :class:`Iperf3Probe`
(``iperf3 -c HOST -P n -t T -O W -J``, its JSON parsed; repeated K times). With repeats it
gives each probe's spread and a confidence band on the prediction; ``validate`` measures once
more at the chosen n and reports the prediction's error.

What the numbers mean (:data:`ASSUMPTIONS`): the impact is the relative drop of each cross
flow's throughput when the transfer opens n connections instead of one; it assumes
loss-limited, Reno-like cross traffic sharing one loss rate with the transfer (eqs. 16-18).

The command-line layer (:func:`add_tame_arguments`, :func:`run_measured`,
:func:`add_predict_arguments`, :func:`predict_impacts`) lives in :mod:`tcplab.advisor_cli`.
Nothing here starts a process at import (the chapter's panel imports it in the browser).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .checks import check_int, check_range
from .tame import OutOfModel, TameResult, domain_problem, table_probe, tame_parallel_tcp
from .theory.lu import fit_probes

__all__ = [
    "ASSUMPTIONS",
    "Advice",
    "Iperf3Probe",
    "OutOfModel",
    "ProbeError",
    "advise",
    "parse_host",
    "parse_iperf3",
    "parse_pairs",
    "t_quantile",
]

ASSUMPTIONS = (
    "impact = relative drop of each cross flow's throughput when the transfer uses n "
    "connections instead of one; it assumes loss-limited Reno-like cross traffic sharing one "
    "loss rate with the transfer (CUBIC cross traffic, rate ~ p^-3/4, loses more than this "
    "predicts; BBR cross traffic, not loss-driven, less; window-limited cross traffic loses "
    "nothing)"
)
PROBE_HYGIENE = (
    "probe for several congestion epochs (10-30 s on a wide-area path) and omit the first "
    "seconds (-O): slow start ramps n connections n times faster than one and would bias the "
    "ratio of the probes upward"
)

#: two-sided 95% quantiles of Student's t for 1..30 degrees of freedom (standard tables)
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom (1.96 beyond
    30, where the table's last entry is within 4% of it)."""
    df = check_int("df", df, 1)
    return _T95[df - 1] if df <= len(_T95) else 1.96


class ProbeError(RuntimeError):
    """A probe could not measure (server unreachable, connection refused, iperf3 failed):
    the message is one line naming the host and what failed."""


def parse_pairs(text: str | Sequence[str], name: str = "probes") -> dict[int, list[float]]:
    """``"1:100 10:800 10:760"`` (or a list of ``N:BW``) -> {1: [100.0], 10: [800.0, 760.0]};
    a repeated N adds a repeat. Bad entries: a ValueError naming ``name`` and the entry."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    pairs: dict[int, list[float]] = {}
    for part in parts:
        n_text, sep, bw_text = part.partition(":")
        try:
            n, bw = int(n_text), float(bw_text)
        except ValueError:
            raise ValueError(f"{name}: {part!r} is not N:THROUGHPUT (flows N >= 1)") from None
        if not sep or n < 1:
            raise ValueError(f"{name}: {part!r}: flows N={n_text} must be in [1, inf)")
        if not (bw > 0 and math.isfinite(bw)):
            raise ValueError(f"{name}: {part!r}: throughput={bw_text} must be in (0, inf)")
        pairs.setdefault(n, []).append(bw)
    if len(pairs) < 2:
        raise ValueError(f"{name}: {len(pairs)} numbers of flows; give two, e.g. 1:100 10:800")
    return pairs


def parse_host(text: str) -> tuple[str, int | None]:
    """``HOST``, ``HOST:PORT`` or ``[IPv6]:PORT`` -> (host, port or None)."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"--iperf3 {text!r}: no host; give HOST or HOST:PORT")
    if not port_text:
        return host, None
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--iperf3 {text!r}: port {port_text!r} is not a number") from None
    return host, check_int("port", port, 1, 65535)


def parse_iperf3(text: str, where: str, flows: int) -> float:
    """The receiver's throughput (Mbit/s, warm-up omitted) from ``iperf3 -J`` output; a
    :class:`ProbeError` naming ``where`` if iperf3 reported an error or the JSON lacks it."""
    try:
        report = json.loads(text)
    except json.JSONDecodeError:
        raise ProbeError(f"iperf3 to {where}: its output is not JSON ({text[:60]!r})") from None
    if report.get("error"):
        raise ProbeError(f"iperf3 to {where} with {flows} streams failed: {report['error']}")
    try:
        received = report["end"]["sum_received"]
        bits = float(received["bits_per_second"])
    except (KeyError, TypeError, ValueError):
        raise ProbeError(f"iperf3 to {where}: no end.sum_received in its JSON") from None
    streams = len(report.get("start", {}).get("connected", []))
    if streams != flows:
        raise ProbeError(f"iperf3 to {where}: {streams} streams connected, {flows} asked for")
    if not bits > 0:
        raise ProbeError(f"iperf3 to {where} with {flows} streams: nothing received")
    return bits / 1e6


@dataclass
class Iperf3Probe:
    """A probe that runs ``iperf3 -c host [-p port] -P n -t duration -O omit -J`` ``repeat``
    times and returns the mean receiver throughput in Mbit/s (the omitted warm-up excluded).
    ``samples`` keeps every run's value by n, ``runs`` every run's record. Each run has a
    timeout (duration + omit + ``slack_s``)."""

    host: str
    port: int | None = None
    duration: float = 10.0
    omit: float = 2.0
    repeat: int = 3
    slack_s: float = 15.0
    executable: str = "iperf3"
    #: words before the command, e.g. ("ip", "netns", "exec", "NS") to probe inside a namespace
    prefix: tuple[str, ...] = ()
    samples: dict[int, list[float]] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        check_range("duration", self.duration, 0.0, 3600.0, low_open=True)
        check_range("omit", self.omit, 0.0, 600.0)
        check_int("repeat", self.repeat, 1, 100)
        if self.port is not None:
            check_int("port", self.port, 1, 65535)

    @property
    def where(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"

    def command(self, n: int) -> list[str]:
        """The iperf3 command line for n parallel streams."""
        port = [] if self.port is None else ["-p", str(self.port)]
        return [
            *self.prefix, self.executable, "-c", self.host, *port, "-P", str(n),
            "-t", f"{self.duration:g}", "-O", f"{self.omit:g}", "-J", "--connect-timeout", "5000",
        ]  # fmt: skip

    def once(self, n: int) -> float:
        """One iperf3 run with n streams: Mbit/s (recorded in ``runs``, not in ``samples``)."""
        import subprocess  # noqa: PLC0415 - not at import: the browser has no processes

        n = check_int("flows", n, 1, 128)
        timeout = self.duration + self.omit + self.slack_s
        try:
            done = subprocess.run(
                self.command(n), capture_output=True, text=True, timeout=timeout, check=False
            )
        except FileNotFoundError:
            raise ProbeError(
                f"iperf3 to {self.where}: {self.executable!r} is not installed "
                "(Debian: apt-get install iperf3)"
            ) from None
        except subprocess.TimeoutExpired:
            raise ProbeError(
                f"iperf3 to {self.where} with {n} streams did not finish in {timeout:g} s"
            ) from None
        if not done.stdout.strip():
            error = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise ProbeError(f"iperf3 to {self.where} failed (status {done.returncode}): {error}")
        value = parse_iperf3(done.stdout, self.where, n)
        received = json.loads(done.stdout)["end"]["sum_received"]
        self.runs.append(
            {"flows": n, "mbit_per_s": value, "bytes": received["bytes"],
             "seconds": received["seconds"], "status": done.returncode}
        )  # fmt: skip
        return value

    def __call__(self, n: int) -> float:
        values = [self.once(n) for _ in range(self.repeat)]
        self.samples.setdefault(n, []).extend(values)
        return float(np.mean(values))


@dataclass(frozen=True)
class Advice:
    """The advisor's answer with what it rests on: the search's ``result``; ``predicted``
    throughput and ``impact`` at each n; ``samples`` (every probe measurement by n), their
    ``spread`` (sample standard deviation, None with one run) and the ``band`` on the
    predicted throughput (None without repeats); the ``warning`` when forced out of the
    model's domain; and ``validation`` (measured at the chosen n, relative error) or None."""

    result: TameResult
    max_impact: float
    predicted: dict[int, float]
    impact: dict[int, float]
    samples: dict[int, list[float]]
    spread: dict[int, float | None]
    band: dict[int, tuple[float, float]] | None
    warning: str | None
    validation: dict[str, float | bool] | None
    unit: str

    def summary(self) -> dict[str, Any]:
        """One JSON-ready object; the fields of ``tcplab tame``'s simulator run where they mean
        the same (flows, predicted_impact, stopped_by, a, b, probes), NaN as None."""
        r = self.result
        return {
            "flows": r.flows,
            "max_impact": self.max_impact,
            "predicted_throughput": _finite(r.throughput),
            "predicted_impact": _finite(r.impact),
            "stopped_by": r.stopped_by,
            "a": r.fit.a,
            "b": r.fit.b,
            "probes": {str(n): bw for n, bw in sorted(r.probes.items())},
            "samples": {str(n): v for n, v in sorted(self.samples.items())},
            "spread": {str(n): v for n, v in sorted(self.spread.items())},
            "predicted": {str(n): _finite(v) for n, v in self.predicted.items()},
            "impact": {str(n): _finite(v) for n, v in self.impact.items()},
            "band": None
            if self.band is None
            else {str(n): [_finite(lo), _finite(hi)] for n, (lo, hi) in self.band.items()},
            "band_coverage": None if self.band is None else 0.95 ** len(r.probes),
            "monotone": r.monotone,
            "warning": self.warning,
            "validation": self.validation,
            "unit": self.unit,
            "assumptions": ASSUMPTIONS,
        }


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def advise(
    probe: Callable[[int], float] | Mapping[int, float | Sequence[float]],
    max_impact: float,
    *,
    probes: Sequence[int] | None = None,
    max_flows: int = 31,
    min_gain: float = 0.01,
    force: bool = False,
    validate: bool = False,
    unit: str = "",
) -> Advice:
    """The advisor with its guards on. ``probe`` is a function of n (e.g. :class:`Iperf3Probe`)
    probed at ``probes`` (default 1 and 10), or the measurements {n: value or [repeats]}
    (``probes`` default: every n given). Refuses with :class:`OutOfModel` outside the model's
    domain unless ``force`` (then ``warning`` says why the numbers are suspect). ``validate``
    (a probe function only) measures once more at the chosen n."""
    if isinstance(probe, Mapping):
        samples = {
            check_int("flows", n, 1): [float(v) for v in (vs if isinstance(vs, Sequence) else [vs])]
            for n, vs in probe.items()
        }
        for n, values in samples.items():
            if not values:
                raise ValueError(f"probes: no measurement at flows={n}")
        means = {n: float(np.mean(v)) for n, v in samples.items()}
        levels = list(probes) if probes is not None else sorted(means)
        function: Callable[[int], float] = table_probe(means)
        if validate:
            raise ValueError("validate=True needs a probe function, not recorded numbers")
    else:
        levels = list(probes) if probes is not None else [1, 10]
        function = probe
    result = tame_parallel_tcp(
        function, max_impact, probes=levels, max_flows=max_flows, min_gain=min_gain,
        guard=not force,
    )  # fmt: skip
    if isinstance(probe, Mapping):
        samples = {n: samples[n] for n in result.probes}
    else:
        recorded = getattr(probe, "samples", {})
        samples = {n: list(recorded.get(n, [v])) for n, v in result.probes.items()}
    warning = None
    if force:
        warning = domain_problem(result.fit, result.probes)
        if warning is None and not result.monotone:
            warning = "the predicted impact or gain is not monotone in n: binary search unsure"
    flows = range(1, result.max_flows + 1)
    predicted = result.fit.predict(flows)
    impact = {n: float(result.fit.impact(n)) for n in flows}
    spread = {n: float(np.std(v, ddof=1)) if len(v) > 1 else None for n, v in samples.items()}
    band = prediction_band(samples, result.fit.model, list(flows))
    validation = None
    if validate:
        measure = getattr(probe, "once", function)
        measured = float(measure(result.flows))
        validation = {
            "flows": result.flows,
            "measured": measured,
            "predicted": result.throughput,
            "error": measured / result.throughput - 1.0,
            "inside_band": bool(band is not None and band[result.flows][0] <= measured
                                <= band[result.flows][1]),
        }  # fmt: skip
    return Advice(
        result, max_impact, predicted, impact, samples, spread, band, warning, validation, unit
    )


def prediction_band(
    samples: Mapping[int, Sequence[float]], model: str, flows: Sequence[int]
) -> dict[int, tuple[float, float]] | None:
    """The range of the predicted throughput at each n over the corners of the probes' 95%
    t intervals (mean +- t s / sqrt(k)); None unless every probe has k >= 2 repeats.

    The prediction n / sqrt(p'_n) is monotone in each probe's y = n^2 / BW^2 (p'_n is linear
    in the y's), so its extremes over the box are at corners: when every interval covers its
    probe's true mean (probability 0.95^L for L independent probes, 90% for two) the band
    covers the model's prediction from the true means."""
    if any(len(v) < 2 for v in samples.values()):
        return None
    edges = []
    for n, values in sorted(samples.items()):
        k = len(values)
        mean, sd = float(np.mean(values)), float(np.std(values, ddof=1))
        half = t_quantile(k - 1) * sd / math.sqrt(k)
        edges.append([(n, max(mean - half, mean * 1e-9)), (n, mean + half)])
    curves = np.array(
        [fit_probes(dict(corner), model).throughput(list(flows)) for corner in
         itertools.product(*edges)]
    )  # fmt: skip
    with np.errstate(all="ignore"):
        low = np.min(np.where(np.isfinite(curves), curves, -np.inf), axis=0)
        high = np.max(np.where(np.isfinite(curves), curves, np.inf), axis=0)
    return {int(n): (float(lo), float(hi)) for n, lo, hi in zip(flows, low, high, strict=True)}
