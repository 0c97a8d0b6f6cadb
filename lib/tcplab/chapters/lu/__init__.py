"""Predicting and taming parallel TCP: Lu, Qiao, Dinda and Bustamante (2005), on the packet
model.

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.lu.experiments"

EXPERIMENTS = (
    Experiment(
        "lu-scenarios",
        f"{_HERE}:scenarios",
        "LuParams",
        "Figs. 2-8: parallel and cross-traffic throughput vs parallel flows, six scenarios",
    ),
    Experiment(
        "lu-sensitivity",
        f"{_HERE}:sensitivity",
        "SensitivityParams",
        "Scenarios 1-2 under the choices the paper leaves open, and run-to-run noise",
    ),
    Experiment(
        "lu-gigabit",
        "tcplab.chapters.lu.gigabit:gigabit",
        "tcplab.chapters.lu.gigabit:GigabitParams",
        "Figs. 6-7: the 1 Gb/s scenarios 4 and 5 at the probe levels, 10 cross flows",
    ),
    Experiment(
        "lu-paths",
        f"{_HERE}:paths",
        "PathsParams",
        "Seeded emulated paths in place of PlanetLab: probes and measured curves",
    ),
)
