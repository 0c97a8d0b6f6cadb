"""The chapter's parameters: the thesis's values where it gives them, ours where it does not.

One frozen :class:`BmcParams` serves every experiment of the chapter (the registry builds it
at full scale, or :meth:`BmcParams.quick` for seconds-long runs). Where the thesis gives a
number (Sec. 5.1: 60 Mb/s, 20 ms, 100 Mb/s and 2 ms, n/3 ms, Reno, 100 s; the weights and N of
Figs. 5.2-5.18) it is the default; everything else is the book's choice, said so in the
chapter.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BmcParams", "THESIS_WEIGHTS", "THESIS_FLOWS"]

#: Figs. 5.2-5.9: the weights D (AIMD(D^2, 1/2)) and the numbers N of flows of each kind
THESIS_WEIGHTS = (4 / 5, 3 / 4, 2 / 3, 1 / 2, 1 / 3, 1 / 4, 1 / 5)
THESIS_FLOWS = (1, 2, 4, 8, 16, 32, 48, 64)


@dataclass(frozen=True)
class BmcParams:
    """Every experiment's grid, run length and seeds (full scale)."""

    # Part 1: one AIMD(a, b) flow under random loss, the thesis's pairs and AIMD(D^2, 1/2)
    response_pairs: tuple[tuple[float, float], ...] = (
        (1.0, 0.5), (0.5, 0.8), (0.75, 8 / 13), (0.25, 0.5), (0.04, 0.5),
    )  # fmt: skip
    response_losses: tuple[float, ...] = (1e-3, 3e-3, 1e-2)
    response_duration: float = 400.0  # after the warm-up
    response_warmup: float = 50.0
    response_rate_mbps: float = 100.0  # bottleneck and access: only the loss limits the window
    # Part 1: N AIMD(a, b) flows against N TCP flows on Fig. 5.1's bottleneck
    competition_a: tuple[float, ...] = (1 / 4, 1 / 2, 1.0)
    competition_b: tuple[float, ...] = (0.5, 8 / 13, 0.8)
    competition_flows: int = 4
    # Part 2: Figs. 5.2-5.11 (Sec. 5.1)
    # the thesis's N go to 64 and D has seven values (THESIS_FLOWS, THESIS_WEIGHTS): the book
    # ships the grid that computes in minutes on 2 cores; pass those to compute all of it
    flows: tuple[int, ...] = (1, 2, 4, 8, 16)
    weights: tuple[float, ...] = (4 / 5, 2 / 3, 1 / 2, 1 / 3, 1 / 5)
    rate_mbps: float = 60.0  # Fig. 5.1's bottleneck
    duration: float = 100.0  # the thesis: "throughput of each flow during 100 second simulation"
    steady_from: float = 20.0  # the steady_* columns count from here (slow start is over)
    queue: str = "ns2"  # ns-2's automatic RED of the time (the thesis gives no parameters)
    # Figs. 5.12-5.18 (Sec. 5.2): N TCP flows against N weighted flows of a mix
    pairs: tuple[tuple[float, ...], ...] = (
        (3 / 5, 2 / 5),
        (2 / 3, 1 / 3),
        (3 / 4, 1 / 4),
        (4 / 5, 1 / 5),
    )
    pair_flows: tuple[int, ...] = (2, 4, 8, 16, 32, 48, 64)
    quads: tuple[tuple[float, ...], ...] = (
        (3 / 18, 4 / 18, 5 / 18, 6 / 18), (1 / 10, 3 / 10, 3 / 10, 3 / 10),
    )  # fmt: skip
    quad_flows: tuple[int, ...] = (4, 8, 16, 32, 48, 64)
    # RED's parameters are not given: Fig. 5.10's ratio under other queues
    red_variants: tuple[str, ...] = ("ns2", "classic", "deep", "droptail")
    red_flows: tuple[int, ...] = (1, 4, 16, 64)
    red_weights: tuple[float, ...] = (1 / 2, 1 / 5)
    # the thesis's explanations: low loss-event rate at small N, time-outs at large N
    small_flows: tuple[int, ...] = (1, 2, 4)
    small_weights: tuple[float, ...] = (1 / 2, 1 / 5)
    small_replicas: int = 6
    large_flows: tuple[int, ...] = (32, 64)
    large_weights: tuple[float, ...] = (1 / 2, 1 / 5)
    large_rates_mbps: tuple[float, ...] = (60.0, 240.0)
    long_flows: tuple[int, ...] = (1, 2)  # ... and small N over a longer run
    long_weights: tuple[float, ...] = (1 / 2, 1 / 5)
    long_duration: float = 1000.0
    long_from: float = 200.0
    # Part 3: the proportion manager (the thesis gives no J or K: ours)
    j_s: float = 10.0
    k: float = 0.5
    seeds: int = 1  # packet runs per case
    example_cases: tuple[int, ...] = tuple(range(7))  # indices into proportion.CASES
    examples_duration: float = 200.0  # fixed weights: measured over the second half
    manager_duration: float = 400.0
    jk_j: tuple[float, ...] = (2.5, 5.0, 10.0, 20.0)  # at k
    jk_k: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0)  # at j_s
    jk_duration: float = 400.0
    jk_seeds: int = 2
    fluid_k: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(1, 21))
    fluid_periods: int = 60
    order_duration: float = 2000.0  # one run at fixed weights, cut into periods of each J
    order_j: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
    order_weights: tuple[tuple[float, float], ...] = ((0.5, 0.5), (0.4, 0.6))
    compared: tuple[str, ...] = ("uncoupled", "fixed", "bmc", "lia")
    grid_spare: tuple[float, ...] = (2.0, 3.0, 4.0, 6.0, 8.0, 10.0, 12.0)  # shared: 1st link
    grid_capacity: tuple[float, ...] = (5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0)  # pooling: 1st
    grid_k: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
    workers: int = 2

    @classmethod
    def quick(cls) -> BmcParams:
        """Seconds, not minutes: a few points of each grid, short runs, one process."""
        return cls(
            response_pairs=((1.0, 0.5), (0.25, 0.5)),
            response_losses=(3e-3,),
            response_duration=150.0,
            response_warmup=10.0,
            competition_a=(0.25,),
            competition_b=(0.5, 0.8),
            competition_flows=2,
            flows=(2, 8),
            weights=(1 / 2, 1 / 5),
            rate_mbps=10.0,
            duration=40.0,
            steady_from=10.0,
            pairs=((2 / 3, 1 / 3),),
            pair_flows=(4,),
            quads=((3 / 18, 4 / 18, 5 / 18, 6 / 18),),
            quad_flows=(4,),
            red_variants=("ns2", "deep"),
            red_flows=(4,),
            red_weights=(1 / 2,),
            small_flows=(1,),
            small_weights=(1 / 2,),
            small_replicas=2,
            large_flows=(8,),
            large_weights=(1 / 5,),
            large_rates_mbps=(10.0, 20.0),
            long_flows=(),
            seeds=1,
            example_cases=(1, 2, 5),
            examples_duration=30.0,
            manager_duration=40.0,
            jk_j=(10.0,),
            jk_k=(0.5,),
            jk_duration=40.0,
            jk_seeds=1,
            fluid_k=(0.1, 0.5, 1.0),
            fluid_periods=30,
            order_duration=40.0,
            order_j=(0.5, 5.0),
            order_weights=((0.5, 0.5),),
            compared=("uncoupled", "lia"),
            grid_spare=(2.0, 4.0, 8.0),
            grid_capacity=(6.0, 8.0, 12.0),
            grid_k=(0.25, 0.5, 1.0),
            workers=1,
        )
