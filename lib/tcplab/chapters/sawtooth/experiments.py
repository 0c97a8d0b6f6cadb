"""The AIMD sawtooth: one connection alone on a link (Altman et al. 2006, Section I).

The rate climbs linearly at ``eta`` until it reaches the capacity ``c``, then drops to
``beta * c``; its time average is ``(1 + beta) c / 2``, 75% for TCP's beta = 1/2. The sample
paths are the fluid model's exact breakpoints on a grid of (beta, eta), so that the book's
sliders can pick one without a kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab import fluid, policies
from tcplab.theory import altman

__all__ = ["SawtoothParams", "paths", "utilisation"]


@dataclass(frozen=True)
class SawtoothParams:
    """The slider grid and run lengths; rates are in units of the capacity c."""

    betas: tuple[float, ...] = tuple(round(b, 2) for b in np.arange(0.1, 0.91, 0.05))
    etas: tuple[float, ...] = (0.5, 1.0, 2.0)  # rate increase per unit time, in c per time
    capacity: float = 1.0
    window: float = 2.0  # time shown in the path chart
    events: int = 2_000  # congestion events averaged for the utilisation

    @classmethod
    def quick(cls) -> SawtoothParams:
        return cls(betas=(0.25, 0.5, 0.75), etas=(1.0, 2.0), events=50)


def _clip(frame: pd.DataFrame, window: float) -> pd.DataFrame:
    """Cut a breakpoint path at ``window``, interpolating the last point exactly."""
    inside = frame[frame["time"] <= window]
    after = frame[frame["time"] > window]
    if after.empty:
        return inside
    last, first_after = inside.iloc[-1], after.iloc[0]
    share = (window - last["time"]) / (first_after["time"] - last["time"])
    end = last.copy()
    end["time"] = window
    end["rate"] = last["rate"] + share * (first_after["rate"] - last["rate"])
    return pd.concat([inside, end.to_frame().T], ignore_index=True)


def paths(params: SawtoothParams, seed: int = 0) -> pd.DataFrame:
    """Exact sawtooth paths for each (beta, eta): columns beta, eta, time, rate (rate / c)."""
    frames = []
    for beta in params.betas:
        for eta in params.etas:
            period = altman.sawtooth_period(beta, eta, params.capacity)
            path = fluid.sample_path(
                1,
                policies.AllFlows(),
                capacity=params.capacity,
                beta=beta,
                eta=eta,
                events=int(np.ceil(params.window / period)) + 1,
                seed=seed,
                start=[beta * params.capacity],
            )
            frame = _clip(path.to_frame()[["time", "rate"]], params.window)
            frames.append(frame.assign(beta=beta, eta=eta))
    table = pd.concat(frames, ignore_index=True)
    return table[["beta", "eta", "time", "rate"]].astype(float)


def utilisation(params: SawtoothParams, seed: int = 0) -> pd.DataFrame:
    """Simulated mean rate / c for each (beta, eta), beside the formula (1 + beta)/2."""
    rows = []
    for beta in params.betas:
        for eta in params.etas:
            result = fluid.simulate(
                1,
                policies.AllFlows(),
                capacity=params.capacity,
                beta=beta,
                eta=eta,
                events=params.events,
                replicas=1,
                seed=seed,
            )
            rows.append(
                {
                    "beta": beta,
                    "eta": eta,
                    "simulated": result.aggregate,
                    "formula": altman.sawtooth_utilisation(beta),
                    "events": result.events,
                }
            )
    return pd.DataFrame(rows)
