"""Lee et al. (2012) beside the packet model: the paper's qualitative findings, each checked on
the path model meant to produce it, and one closed form (the receiver-window bound).

The paper's printed minima (19033.7 and 24022.0 KB/s aggregate, 475.8 and 480.4 KB/s per flow
at 40 and 50 flows on (delta, zeta)) come from single bad PlanetLab repetitions: measurements we
do not reproduce, so they are not claims here.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from tcplab.claims import Claim, yes_no

from .analysis import (
    aggregates,
    clusters,
    drops_per_transfer,
    growth,
    meeting,
    per_flow,
    saturation_curves,
    with_variants,
)
from .experiments import PATH_RTTS
from .saturation import BDP_PACKETS
from .transfer import PACKET_BYTES, PATHS

__all__ = [
    "TABLES",
    "EXPECTED_VERDICTS",
    "QUICK_VERDICTS",
    "chapter_claims",
    "chapter_numbers",
    "saturation_numbers",
]

TABLES = ("lee-transfers", "lee-saturation")
#: how the prose names the shared path and its variants (lee-saturation)
VARIANT_KEYS = {
    "shared": "shipped",
    "no cross traffic": "nocross",
    "BDP buffer": "bdp",
    "SACK": "sack",
    "SACK, no cross traffic": "sacknocross",
}
SOURCE = "Lee et al. 2012"

EXPECTED_VERDICTS = {
    # the shared path's aggregate keeps growing past 10 flows: the transfers take the
    # bottleneck over from greedy cross traffic as N grows, and NewReno repairs the losses of
    # synchronised slow starts one per round trip (lee-saturation; the chapter explains)
    "after 10": False,
    # with the paper's 100 repetitions the shared path's median at 50 flows is 1.26 times that
    # at 30 (with 40 repetitions it was 1.17): the aggregate is still growing at 50 flows
    "saturation": False,
    "growth": True,
    "flat per flow": True,
    "clusters": True,
    "window bound": True,
}
#: the quick grid's three repetitions at 50 flows: the shaped path's flows with a time-out run
#: at about two thirds of the others' median (0.66 with seed 0), not below 0.6 as in the full
#: data (0.43): too few repetitions to separate the clusters as clearly. The quick grid's
#: shared path: its medians at 30 and 50 flows (0.56 and 0.54 of the link with seed 0) come from
#: three repetitions each, and happen to be level
QUICK_VERDICTS = {"clusters": False, "saturation": True}


def _medians(table: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    agg = aggregates(table).groupby(["path", "flows"])["aggregate_bytes_per_s"].median()
    pf = per_flow(table).groupby(["path", "flows"])["bytes_per_s"].median()
    return agg, pf


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    table = tables["lee-transfers"]
    agg, pf = _medians(table)
    top = int(table["flows"].max())
    rtt = dict(PATH_RTTS)["window"] / 1e3
    bound = PATHS["window"].max_window * PACKET_BYTES / rtt
    c50 = clusters(table, top).set_index("path").loc["shaped"]
    low = int(table["flows"].min())
    return {
        "after 10": yes_no(
            f"shared path: saturated after about {low} flows (median at {top} < 1.2 x at {low})",
            f"{SOURCE}, Fig. 2 and Sec. 4.1, pairs (a,b), (a,g), (d,e)",
            True,
            bool(agg["shared", top] < 1.2 * agg["shared", low]),
        ),
        "saturation": yes_no(
            "shared path: the aggregate saturates (median at 50 flows < 1.2 x at 30)",
            f"{SOURCE}, Fig. 2, pairs (a,b), (a,g), (d,e)",
            True,
            bool(agg["shared", top] < 1.2 * agg["shared", 30]),
        ),
        "growth": yes_no(
            "window path: the aggregate grows up to 30 flows (median at 30 > 2.5 x at 10)",
            f"{SOURCE}, Fig. 2, pair (d,z)",
            True,
            bool(agg["window", 30] > 2.5 * agg["window", 10]),
        ),
        "flat per flow": yes_no(
            "window path: per-flow throughput flat up to 30 flows (median within 5%)",
            f"{SOURCE}, Fig. 3, pair (d,z)",
            True,
            bool(abs(pf["window", 30] / pf["window", 10] - 1.0) < 0.05),
        ),
        "clusters": yes_no(
            "shaped path, 50 flows: fast and slow clusters (slow = had a time-out, "
            "median < 0.6 x the others)",
            f"{SOURCE}, Fig. 4, pair (d,z)",
            True,
            bool(c50["median_with_timeout"] < 0.6 * c50["median_without"]),
        ),
        "window bound": Claim(
            "window path, 10 flows: median per-flow rate / (window x MSS / RTT)",
            "hand calculation (16 x 1500 B / 38 ms)",
            1.0,
            float(pf["window", 10] / bound),
            0.1,
        ),
    }


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str) -> dict[str, float]:
    agg, pf = _medians(tables["lee-transfers"])
    numbers: dict[str, float] = {}
    for (path, flows), value in agg.items():
        numbers[f"agg_{path}_{flows}_kBps"] = float(value) / 1e3
    for (path, flows), value in pf.items():
        numbers[f"pf_{path}_{flows}_kBps"] = float(value) / 1e3
    table = tables["lee-transfers"]
    top = int(table["flows"].max())
    numbers["top_flows"] = float(top)
    shared = agg["shared"]
    numbers["shared_gain_30_top"] = float(shared[top] / shared[30] - 1.0)
    before = int(shared.index[-2])  # the next-largest number of flows (40 in the full data)
    numbers["shared_before_top"] = float(before)
    numbers["shared_gain_before_top"] = float(shared[top] / shared[before] - 1.0)
    numbers["repetitions"] = float(table["repetition"].nunique())
    runs = table.groupby(["path", "flows", "repetition"])["completion_s"]
    numbers["all_repetitions"] = float(runs.ngroups)
    numbers["failed_repetitions"] = float(runs.apply(lambda s: s.isna().any()).sum())
    c = clusters(table, top).set_index("path").loc["shaped"]
    numbers["shaped_timeout_share"] = float(c["share_with_timeout"])
    numbers["shaped_slow_kBps"] = float(c["median_with_timeout"]) / 1e3
    numbers["shaped_fast_kBps"] = float(c["median_without"]) / 1e3
    numbers.update(saturation_numbers(tables))
    for path in ("shared", "window"):
        meet = meeting(table, path, PATHS[path].capacity_bytes_per_s).set_index("flows")
        for column in ("measured", "altman", "lu"):
            numbers[f"meet_{path}_{column}"] = float(meet.loc[top, column])
    return numbers


def saturation_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float]:
    """The shared path beside its variants: per variant (``VARIANT_KEYS``) the median
    aggregate's share of the bottleneck at the fewest, the second-fewest and the most flows,
    the growth from the fewest and from the second-fewest to the most, the share of transfers
    with a time-out and the straggle (last / median completion) at the fewest flows."""
    both = with_variants(tables["lee-transfers"], tables["lee-saturation"])
    curves = saturation_curves(both, PATHS["shared"].capacity_bytes_per_s)
    low = int(curves["flows"].min())
    at_low = curves[curves["flows"] == low].set_index("path")
    second = int(sorted(curves["flows"].unique())[1])
    numbers: dict[str, float] = {"sat_low_flows": float(low), "sat_second_flows": float(second)}
    numbers["sat_repetitions"] = float(tables["lee-saturation"]["repetition"].nunique())
    numbers["sat_bdp_packets"] = float(BDP_PACKETS)
    shares = curves.set_index(["path", "flows"])["share"]
    drops = drops_per_transfer(both)
    for _, row in growth(curves, low).iterrows():
        key = VARIANT_KEYS[row["path"]]
        numbers[f"sat_{key}_low"] = row["share_low"]
        numbers[f"sat_{key}_top"] = row["share_top"]
        numbers[f"sat_{key}_growth"] = row["growth"]
        numbers[f"sat_{key}_second"] = float(shares[row["path"], second])
        numbers[f"sat_{key}_gain_second"] = float(
            row["share_top"] / shares[row["path"], second] - 1
        )
        lowest = shares[row["path"]].idxmin()
        numbers[f"sat_{key}_min"] = float(shares[row["path"], lowest])
        numbers[f"sat_{key}_min_flows"] = float(lowest)
        for at, n in (("low", low), ("min", lowest), ("top", row["top"])):
            numbers[f"sat_{key}_drops_{at}"] = float(drops[row["path"], n])
        curve = curves.set_index(["path", "flows"]).loc[row["path"]]
        numbers[f"sat_{key}_timeout_min"] = float(curve.loc[lowest, "with_timeout"])
        numbers[f"sat_{key}_straggle_min"] = float(curve.loc[lowest, "straggle"])
        numbers[f"sat_{key}_timeout_low"] = float(at_low.loc[row["path"], "with_timeout"])
        numbers[f"sat_{key}_straggle_low"] = float(at_low.loc[row["path"], "straggle"])
    return numbers
