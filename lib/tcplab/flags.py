"""Reading the flag values several ``tcplab`` commands share: number lists, numbers of flows,
probe pairs.

A bad value raises :class:`tcplab.commands.UsageError` (or ``ValueError``) with a message that
names the flag and its value; the entry point prints it as one line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .commands import UsageError

__all__ = ["numbers", "levels", "probe_pairs"]


def numbers(name: str, text: str | None) -> Any:
    """``"0.5"`` -> 0.5, ``"0.4,0.6"`` -> [0.4, 0.6]; a bad entry names the parameter."""
    if text is None:
        return None
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number or a comma-separated list") from None
    return values[0] if len(values) == 1 else values


def levels(flag: str, text: str) -> list[int]:
    """``"1-31"`` -> 1..31, ``"1,2,5"`` -> [1, 2, 5]; a bad entry names the flag."""
    try:
        if "-" in text:
            low, _, high = text.partition("-")
            found = list(range(int(low), int(high) + 1))
        else:
            found = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag} {text!r} is not a range A-B or a list A,B,... of flows") from None
    if not found or min(found) < 1:
        raise UsageError(f"{flag} {text!r}: the numbers of flows must be in [1, inf)")
    return sorted(set(found))


def probe_pairs(texts: Sequence[str]) -> list[tuple[int, float]]:
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
        if not (bw > 0 and math.isfinite(bw)):
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
