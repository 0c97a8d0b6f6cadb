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
        "lu-n50",
        "tcplab.chapters.lu.beyond:beyond",
        "tcplab.chapters.lu.beyond:BeyondParams",
        "Fig. 13 to n = 50: scenario 6, 15 cross flows, 40 and 50 parallel flows",
    ),
    Experiment(
        "lu-s5-alone",
        "tcplab.chapters.lu.alone:alone",
        "tcplab.chapters.lu.alone:AloneParams",
        "Fig. 7a's level: scenario 5 without cross traffic, 1 and 31 parallel flows",
    ),
    Experiment(
        "lu-s4-alone",
        "tcplab.chapters.lu.gigalone:s4_alone",
        "tcplab.chapters.lu.gigalone:S4AloneParams",
        "Fig. 6a's level: scenario 4 without cross traffic, 1 and 31 parallel flows",
    ),
    Experiment(
        "lu-rtt",
        "tcplab.chapters.lu.rtts:two_rtts",
        "tcplab.chapters.lu.rtts:RttParams",
        "Sec. V.B's different RTTs: scenario 1, DropTail, cross traffic's RTT x2 and x1/2",
    ),
    Experiment(
        "lu-phase",
        "tcplab.chapters.lu.phase:phase",
        "tcplab.chapters.lu.phase:PhaseParams",
        "What-if: scenario 1's DropTail shares under sub-millisecond delay offsets (phase)",
    ),
    Experiment(
        "lu-variants",
        "tcplab.chapters.lu.whatif:variants",
        "tcplab.chapters.lu.whatif:VariantsParams",
        "What-if: Tahoe (s1), RED (s2, s6), NewReno alone (s2, s3), seeded as lu-scenarios",
    ),
    Experiment(
        "lu-transient",
        "tcplab.chapters.lu.whatif:transient",
        "tcplab.chapters.lu.whatif:TransientParams",
        "What-if: scenarios 2 and 3 alone, measured after the start-up transient",
    ),
    Experiment(
        "lu-trace",
        "tcplab.chapters.lu.cwnd:trace",
        "tcplab.chapters.lu.cwnd:TraceParams",
        "The one connection's cwnd and ssthresh, scenarios 2 and 3 alone (Reno, NewReno)",
    ),
    Experiment(
        "lu-paths-more",
        "tcplab.chapters.lu.morepaths:more_paths",
        "tcplab.chapters.lu.morepaths:MorePathsParams",
        "25 more emulated paths (numbers 16-40), to the paper's 41",
    ),
    Experiment(
        "lu-paths",
        f"{_HERE}:paths",
        "PathsParams",
        "Seeded emulated paths in place of PlanetLab: probes and measured curves",
    ),
)
