"""Speed of Lu et al.'s scenarios on the packet model, and what the book's and the paper's
grids cost.

Run from the repository root with ``python benchmarks/bench_lu.py`` (``--quick`` for 30 s runs
instead of 100 s). Part 1 times one run of each kind (scenarios 1, 2 and 4, ten parallel
flows and ten cross-traffic flows) on one pinned core: bottleneck packets (every arrival at L3,
the warm-up included) per CPU-second and per wall-second (they differ when the machine is
shared). Part 2 prices the grids: the packets of every run of the book's grid are read from
data/lu-scenarios.csv, those of the paper's grid interpolated from the measured runs over n
and the cross traffic (the 1 Gb/s scenarios 4 and 5 from data/lu-gigabit.csv, measured at 10
cross-traffic connections only and used as they are for every level; a scenario with no
measured run at all gets the bound ``min(capacity, windows / RTT) x 100 s``, an
overestimate), and divided by part 1's speed on two cores. Part 3 sets that beside ns-3's
speed as the ns-3 appendix measured it (data/ns3-dumbbell.csv: the same dumbbell runs in both
simulators, bottleneck packets per wall-second). This is a script, not a test: it asserts
nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split

import argparse
import dataclasses
import platform
import time

import numpy as np
import pandas as pd
import simpy

from tcplab import cache
from tcplab.chapters.lu.claims import scenario_table
from tcplab.chapters.lu.experiments import LuParams, _cost
from tcplab.chapters.lu.scenarios import scenario_setup
from tcplab.packet import RunLength
from tcplab.packet.qiu import simulate_qiu

CASES = [(1, 10, 10), (2, 10, 10), (4, 10, 10)]  # (scenario, parallel flows, cross flows)
BUDGET_S = 30 * 60  # the issue's: full-scale data in under 30 minutes on two cores
CORES = 2


def time_runs(duration: float) -> pd.DataFrame:
    rows = []
    for k, n, m in CASES:
        setup = scenario_setup(k, n, m, seed=1)
        setup = dataclasses.replace(setup, length=RunLength(duration, 10.0))
        wall, cpu = time.perf_counter(), time.process_time()
        result = simulate_qiu(setup)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        packets = result.packets
        rows.append(
            {"scenario": k, "flows": n, "cross": m, "seconds": duration, "packets": packets,
             "cpu_s": cpu, "wall_s": wall, "per_cpu_s": packets / cpu,
             "per_wall_s": packets / wall}
        )  # fmt: skip
    return pd.DataFrame(rows)


def grid_packets(params: LuParams, book: pd.DataFrame) -> float:
    """Bottleneck packets of every run of ``params``, interpolated from the book's runs."""
    total = 0.0
    for grid in params.grids:
        for queue in grid.queues:
            runs = book[(book["scenario"] == grid.scenario) & (book["queue"] == queue)]
            if runs.empty:  # not in the book's grid (scenarios 4, 5): the runs' own bound
                total += grid.replicas * sum(
                    _cost(scenario_setup(grid.scenario, n, m, queue))
                    for m in grid.cross
                    for n in grid.flows
                )
                continue
            per_run = runs.groupby(["cross", "flows"])["packets"].mean().unstack("flows")
            known_m = per_run.index.to_numpy(dtype=float)
            known_n = per_run.columns.to_numpy(dtype=float)
            for m in grid.cross:
                row = [np.interp(m, known_m, per_run[n].to_numpy()) for n in per_run.columns]
                total += grid.replicas * float(np.sum(np.interp(grid.flows, known_n, row)))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 s runs instead of 100 s")
    args = parser.parse_args()
    pinned = one_core.pin()
    print(f"simpy {simpy.__version__}, Python {platform.python_version()}, {pinned}")
    timed = time_runs(30.0 if args.quick else 100.0)
    print(timed.round(2).to_string(index=False))
    speed = float(np.median(timed["per_cpu_s"]))
    found = cache.load(cache.Entry("lu-scenarios"))
    if found is None:
        print("data/lu-scenarios.csv is missing: run `tcplab data --only lu-scenarios` first")
        return
    book = found[0]
    gigabit = cache.load(cache.Entry("lu-gigabit"))
    measured = scenario_table({"lu-scenarios": book, "lu-gigabit": gigabit[0] if gigabit else None})
    print(f"\nspeed: {speed:,.0f} bottleneck packets per CPU-second (median of the runs above)")
    print(f"{'grid':<8} {'runs':>6} {'packets':>14} {'CPU s':>9} {'wall min (2 cores)':>19}")
    for name, params in (("book", LuParams()), ("paper", LuParams.paper())):
        runs = sum(len(g.flows) * len(g.cross) * len(g.queues) * g.replicas for g in params.grids)
        packets = float(book["packets"].sum()) if name == "book" else grid_packets(params, measured)
        cpu = packets / speed
        print(f"{name:<8} {runs:>6} {packets:>14,.0f} {cpu:>9,.0f} {cpu / CORES / 60:>19.1f}")
        if name == "paper":
            print(f"the paper's grid fits {BUDGET_S / 60:.0f} minutes on {CORES} cores with a "
                  f"model {cpu / (CORES * BUDGET_S):.1f} times faster")  # fmt: skip
            compare_ns3(packets)


def compare_ns3(packets: float) -> None:
    """What the paper's grid would cost at ns-3's speed, as the ns-3 appendix measured it."""
    ns3 = cache.load(cache.Entry("ns3-dumbbell"))
    ours = cache.load(cache.Entry("ns3-tcplab"))
    if ns3 is None or ours is None:
        print("data/ns3-dumbbell.csv or ns3-tcplab.csv is missing: no comparison with ns-3")
        return
    speeds = {
        "ns-3": float(np.median(ns3[0]["packets_per_wall_s"])),
        "tcplab": float(np.median(ours[0]["packets_per_wall_s"])),
    }
    print("\nthe ns-3 appendix's dumbbell runs (medians over its runs, packets per wall-second):")
    for name, speed in speeds.items():
        hours = packets / speed / CORES / 3600
        print(f"{name:<8} {speed:>10,.0f} packets/s: the paper's grid in {hours:,.1f} h "
              f"on {CORES} cores")  # fmt: skip


if __name__ == "__main__":
    main()
