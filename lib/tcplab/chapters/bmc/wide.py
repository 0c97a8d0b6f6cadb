"""Fig. 3.2's point in the packet model with the disjoint links far above the ideal shares.

At the thesis's rates (disjoint links of 4 and 12 Mb/s, a 30 Mb/s shared link) the ideal
shares at weights 1/4, 3/4 are 3.75 and 11.25 Mb/s, 94% of each subflow's own link: a lone
AIMD flow cannot run that close to a link's rate without losing packets there too. This
experiment reruns the case with the disjoint links at ``scale`` times their rates (8 and 24
Mb/s by default), where the ideal shares sit at 47% of them, beside the thesis's rates, and
reports each subflow's Mb/s with the drops at its disjoint link: if the shortfall of
``bmc-worked`` comes from the disjoint links, it goes away with them; if it is the small-N
bias of one weighted flow against one TCP flow, it stays. MPTCP's linked increases (RFC 6356)
run beside it: their goal is the rate of one TCP flow on the connection's best path, which the
wider links raise from 12 to 15 Mb/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from tcplab import multipath as mp
from tcplab.packet import RunLength
from tcplab.packet.multipath import MultipathRun, MultipathSetup

from .params import BmcParams
from .runs import Job, job, run_jobs

__all__ = ["WideParams", "wide", "THESIS_SPARE"]

#: the thesis's disjoint links (Figs. 3.1-3.2) and its shared link
THESIS_SPARE = (4.0, 12.0)
SHARED_MBPS = 30.0
#: Fig. 3.2's weights
FIG32_WEIGHTS = (0.25, 0.75)


@dataclass(frozen=True)
class WideParams(BmcParams):
    """The Fig. 3.2 case (weights 1/4, 3/4), uncoupled subflows and MPTCP's linked increases
    (``lia``), at the thesis's disjoint links and at twice them, ``seeds`` runs of
    ``examples_duration``."""

    spares: tuple[tuple[float, float], ...] = (THESIS_SPARE, (8.0, 24.0))
    wide_cases: tuple[str, ...] = ("fixed", "uncoupled", "lia")
    seeds: int = 4
    examples_duration: float = 200.0

    @classmethod
    def quick(cls) -> WideParams:
        """Short runs of every case: enough to show the columns (and to take each case's
        code path, for the restamp canary)."""
        return cls(spares=((4.0, 12.0), (8.0, 24.0)), wide_cases=("fixed", "uncoupled", "lia"),
                   seeds=1, examples_duration=20.0, workers=1)  # fmt: skip


def _rows(work: Job, run: MultipathRun) -> list[dict[str, Any]]:
    links = run.links.set_index("link")
    shared = links.loc["shared"]
    out = []
    for r in run.flows.itertuples():
        own = f"disjoint{int(r.subflow) + 1}" if r.connection == "bmc" else ""
        row = {
            **work.label,
            "source": r.connection,
            "subflow": int(r.subflow),
            "mbps": float(r.goodput_mbps),
            "own_link": own,
            "own_link_mbps": float(links.loc[own, "rate_mbps"]) if own else float("nan"),
            "own_link_drops": int(links.loc[own, "drops"]) if own else 0,
            "own_link_drop_rate": float(links.loc[own, "drop_rate"]) if own else 0.0,
            "shared_drops": int(shared["drops"]),
            "shared_drop_rate": float(shared["drop_rate"]),
        }
        out.append(row)
    return out


def wide(params: WideParams, seed: int = 0) -> pd.DataFrame:
    """Per (disjoint rates, case, replica, subflow): Mb/s over the second half of the run,
    and the drops at the subflow's disjoint link and at the shared link."""
    jobs = [
        job(
            MultipathSetup(
                mp.shared(SHARED_MBPS, spare),
                controller,
                FIG32_WEIGHTS if controller == "fixed" else None,
                params.j_s,
                params.k,
                length=RunLength(params.examples_duration, params.examples_duration / 2.0),
            ),
            spare1=spare[0],
            spare2=spare[1],
            case="D = 1/4, 3/4" if controller == "fixed" else controller,
            replica=r,
        )  # fmt: skip
        for spare in params.spares
        for controller in params.wide_cases
        for r in range(params.seeds)
    ]
    frames = run_jobs(jobs, params.workers, seed, "wide", _rows)
    return pd.DataFrame([row for rows in frames for row in rows])
