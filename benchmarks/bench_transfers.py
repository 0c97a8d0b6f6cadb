"""Speed of Lee et al.'s finite transfers on the packet model, and what the full data costs.

Run from the repository root with ``python benchmarks/bench_transfers.py`` (``--panel`` for
the live panel only). Times one repetition of each path model at each number of flows on this
core (CPU seconds), then prices the book's grid (``TransfersParams()``, the paper's 100
repetitions) on two cores. Then the live panel's redraw (wall seconds): one traced repetition
(:func:`~tcplab.chapters.lee.panel.transfers_live`) and its chart drawn to SVG, at the panel's
default settings and at 50 connections; the first SVG (vl-convert starting up) is not
counted. This is a script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split

import argparse
import time

from tcplab.chapters.lee import panel
from tcplab.chapters.lee.experiments import TransfersParams, repetition_seed
from tcplab.chapters.lee.transfer import Repetition, path_model, run_repetition

BUDGET_S = 10 * 60  # the issue's: full-scale data in under 10 minutes on two cores
CORES = 2


def grid() -> None:
    params = TransfersParams()
    per_set = 0.0
    for name, rtt in params.paths:
        for n in params.flows:
            rep = Repetition(
                path_model(name), n, params.nbytes, rtt, repetition_seed(0, name, n, 0)
            )
            began = time.process_time()
            run_repetition(rep)
            cpu = time.process_time() - began
            per_set += cpu
            print(f"{name:>7} {n:>3} flows: {cpu:6.2f} CPU s")
    wall = per_set * params.repetitions / CORES
    print(
        f"book grid ({params.repetitions} repetitions): about {wall:.0f} s on {CORES} free "
        f"cores (budget {BUDGET_S} s)"
    )


def redraws() -> None:
    """The panel's redraw: the traced repetition, then the SVG, in wall seconds."""
    from tcplab.charts import to_svg

    to_svg(panel.progress_chart(*panel.transfers_live("window", 1, 150_000)[:2]))  # warm-up
    for path, flows, rtt in (("shared", 10, 49.0), ("shared", 50, 49.0), ("window", 50, 38.0),
                             ("shaped", 50, 38.0)):  # fmt: skip
        began = time.perf_counter()
        progress, done, _ = panel.transfers_live(path, flows, rtt_ms=rtt)
        ran = time.perf_counter() - began
        to_svg(panel.progress_chart(progress, done))
        drawn = time.perf_counter() - began - ran
        print(f"panel {path:>7} {flows:>3} flows: run {ran:5.2f} s + SVG {drawn:5.2f} s "
              f"= {ran + drawn:5.2f} s")  # fmt: skip


def main() -> None:
    assert one_core
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--panel", action="store_true", help="time the live panel only")
    if not parser.parse_args().panel:
        grid()
    redraws()


if __name__ == "__main__":
    main()
