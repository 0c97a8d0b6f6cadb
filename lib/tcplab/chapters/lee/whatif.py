"""What-if runs that take one suspected cause away at a time (the referee round, issue 32).

Each variant is a path model of :mod:`tcplab.chapters.lee.transfer` with changes and
:class:`~tcplab.chapters.lee.transfer.Knobs`, run by
:func:`~tcplab.chapters.lee.transfer.run_repetition` with
Lee et al.'s method (N transfers of 2 MB started together, fresh cross traffic in every
repetition). The table has one row per transfer, the variant's name in ``path``, so
:mod:`tcplab.chapters.lee.analysis` reads it like ``lee-transfers``.

The shaped path (38 ms), where 50 transfers split into a fast and a slow cluster and the
aggregate falls by a third from 30 to 40 flows:

* ``shaped``: as shipped, measured again with the shapers' drops;
* ``shaped, 400 Mb/s bottleneck``: the shared bottleneck no longer overloaded (50 x 5 Mb/s =
  250 Mb/s < 400), the per-connection shapers unchanged;
* ``shaped, no shapers``: the shapers gone, the 200 Mb/s bottleneck as it was;
* ``sliver shaper``: PlanetLab's way, one 100 Mb/s shaper for all the transfers of the sliver
  (no per-connection shaper).

The shared path (49 ms) with the sender of a real Linux host of 2012, to measure how long the
transfers stay in their initial slow start and what the initial window changes:

* ``shared``: as shipped (NewReno, initial window 1, an ACK per packet);
* ``shared, IW 3``: RFC 3390's initial window (Linux before 2.6.39);
* ``shared, IW 10``: RFC 6928's (Linux from 2.6.39);
* ``shared, Linux-like``: SACK, initial window 10, delayed ACKs (every second packet, 40 ms at
  the latest). Linux's CUBIC is not in the packet model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .experiments import transfer_rows
from .transfer import Knobs, Repetition, path_model

__all__ = ["WhatIfParams", "whatif", "VARIANTS", "run_labelled", "KEPT"]

#: each variant: name, base path, RTT (ms), changes to the path, knobs, numbers of flows
VARIANTS: tuple[tuple[str, str, float, dict[str, Any], Knobs, tuple[int, ...]], ...] = (
    ("shaped", "shaped", 38.0, {}, Knobs(), (30, 40, 50)),
    ("shaped, 400 Mb/s bottleneck", "shaped", 38.0, {"bottleneck_mbps": 400.0}, Knobs(),
     (30, 40, 50)),
    ("shaped, no shapers", "shaped", 38.0, {"shaper_mbps": None}, Knobs(), (30, 40, 50)),
    ("sliver shaper", "window", 38.0, {"max_window": 20_000}, Knobs(sliver_mbps=100.0),
     (10, 30, 50)),
    ("shared", "shared", 49.0, {}, Knobs(), (10, 30, 50)),
    ("shared, IW 3", "shared", 49.0, {}, Knobs(initial_window=3), (10, 30, 50)),
    ("shared, IW 10", "shared", 49.0, {}, Knobs(initial_window=10), (10, 30, 50)),
    ("shared, Linux-like", "shared", 49.0, {"tcp": "sack"},
     Knobs(initial_window=10, delayed_ack_ms=40.0), (10, 30, 50)),
)  # fmt: skip
#: what a repetition's row keeps of its run (with knobs), after its labels and the transfer
KEPT = ("completion_s", "bytes", "timeouts", "fast_retransmits", "slowstart_s", "cross",
        "greedy", "rtt_drawn_ms", "drops", "shaper_drops")  # fmt: skip


@dataclass(frozen=True)
class WhatIfParams:
    """``repetitions`` per variant and number of flows (a probe of causes, not the paper's
    100), ``flows`` None: each variant's own numbers of flows."""

    repetitions: int = 10
    nbytes: int = 2_000_000
    flows: tuple[int, ...] | None = None
    workers: int = 2

    @classmethod
    def quick(cls) -> WhatIfParams:
        return cls(repetitions=1, nbytes=300_000, flows=(10,), workers=1)


def run_labelled(
    labelled: list[tuple[dict[str, Any], Repetition, Knobs]], workers: int, desc: str
) -> pd.DataFrame:
    """Run every repetition with its knobs (heaviest first) and give one row per transfer:
    its labels, ``transfer`` and :data:`KEPT`, in the order of ``labelled``."""
    return transfer_rows(labelled, workers, desc, KEPT)


def whatif_seed(seed: int, variant: int, flows: int, repetition: int) -> int:
    """The seed of one run: independent across variants, flow counts and repetitions."""
    key = (seed, 32, variant, flows, repetition)
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def whatif(params: WhatIfParams, seed: int = 0) -> pd.DataFrame:
    """Rows (path = the variant, rtt_ms, flows, repetition, transfer, completion_s, bytes,
    timeouts, fast_retransmits, slowstart_s, cross, greedy, rtt_drawn_ms, drops,
    shaper_drops), one per transfer."""
    labelled = []
    for v, (name, base, rtt, changes, knobs, own) in enumerate(VARIANTS):
        path = path_model(base, **changes)
        for n in params.flows or own:
            for r in range(params.repetitions):
                rep = Repetition(path, n, params.nbytes, rtt, whatif_seed(seed, v, n, r))
                labels = {"path": name, "rtt_ms": rtt, "flows": n, "repetition": r}
                labelled.append((labels, rep, knobs))
    return run_labelled(labelled, params.workers, "lee-whatif")
