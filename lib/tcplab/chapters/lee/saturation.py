"""Why the shared path saturates late: the same path with one thing changed at a time.

On the paper's three pairs the aggregate saturates after about 10 flows; on the chapter's
shared path it keeps growing to 40-50. Three mechanisms could hold it back at small N: the
cross traffic (2-8 greedy connections whose share the transfers take over as N grows), the
buffer (200 packets, half a bandwidth-delay product, which synchronised slow starts overflow)
and the sender's recovery from a slow-start overshoot (NewReno repairs one lost packet per
round trip, so a window that lost tens of packets takes tens of round trips). Each variant
changes one of them, nothing else, and runs the paper's method (10-50 flows of 2 MB,
``repetitions`` each, fresh cross traffic):

* ``no cross traffic``: ``cross=(0, 0)``, the bottleneck is the transfers' alone;
* ``BDP buffer``: a buffer of one bandwidth-delay product (100 Mb/s x 49 ms / 1500 B = 408
  packets), the classic rule of thumb;
* ``SACK``: the transfers use selective acknowledgements (RFC 2018/6675), as the paper's
  Linux hosts did by default, and recover several losses per round trip;
* ``SACK, no cross traffic``: both.

The shared path as shipped is ``lee-transfers``'s; the table here has the same columns, with
the variant's name in ``path``, so :mod:`~tcplab.chapters.lee.analysis` reads both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .experiments import KEPT, transfer_rows
from .transfer import PACKET_BYTES, PATHS, Repetition, path_model

__all__ = ["SaturationParams", "saturation", "VARIANTS", "BDP_PACKETS"]

#: one bandwidth-delay product of the shared path at 49 ms, in packets (rounded down)
BDP_PACKETS = int(PATHS["shared"].capacity_bytes_per_s * 0.049 / PACKET_BYTES)
#: each variant: its name and what it changes in the shared path
VARIANTS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("no cross traffic", {"cross": (0, 0)}),
    ("BDP buffer", {"buffer": BDP_PACKETS}),
    ("SACK", {"tcp": "sack"}),
    ("SACK, no cross traffic", {"tcp": "sack", "cross": (0, 0)}),
)
RTT_MS = 49.0  # the shared path's, the paper's pair (alpha, beta)


@dataclass(frozen=True)
class SaturationParams:
    """The runs: ``repetitions`` per variant and number of flows (fewer than the paper's
    100: the variants are a probe of mechanisms, not a reproduction)."""

    flows: tuple[int, ...] = (10, 20, 30, 40, 50)
    repetitions: int = 20
    nbytes: int = 2_000_000
    workers: int = 2

    @classmethod
    def quick(cls) -> SaturationParams:
        return cls(flows=(10, 30), repetitions=1, workers=1)


def variant_seed(seed: int, variant: int, flows: int, repetition: int) -> int:
    """The seed of one run: independent across variants, flow counts and repetitions."""
    key = (seed, 7919, variant, flows, repetition)
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def saturation(params: SaturationParams, seed: int = 0) -> pd.DataFrame:
    """Rows (path = the variant's name, rtt_ms, flows, repetition, transfer, completion_s,
    bytes, timeouts, fast_retransmits, cross, drops), one per transfer."""
    labelled = []
    for v, (name, changes) in enumerate(VARIANTS):
        path = path_model("shared", **changes)
        for n in params.flows:
            for r in range(params.repetitions):
                rep = Repetition(path, n, params.nbytes, RTT_MS, variant_seed(seed, v, n, r))
                labels = {"path": name, "rtt_ms": RTT_MS, "flows": n, "repetition": r}
                labelled.append((labels, rep))
    kept = tuple(k for k in KEPT if k != "start_s")
    return transfer_rows(labelled, params.workers, "lee-sat", kept)
