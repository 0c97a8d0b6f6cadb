"""Parallel AIMD throughput and its insensitivity to the loss policy (Altman et al. 2006, II).

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.insensitivity.experiments"

EXPERIMENTS = (
    Experiment(
        "insensitivity-throughput",
        f"{_HERE}:throughput",
        "ThroughputParams",
        "Fig. 2: mean aggregate vs N on a beta grid, under ONE and under ALL",
    ),
    Experiment(
        "insensitivity-example1",
        f"{_HERE}:example1",
        "Example1Params",
        "Fig. 3: per-class and aggregate throughput of Example 1 vs sigma",
    ),
    Experiment(
        "insensitivity-paths",
        f"{_HERE}:sample_paths",
        "PathsParams",
        "Fig. 4: exact sample paths of Example 1 for sigma = 1/2 and 1/8",
    ),
    Experiment(
        "insensitivity-multtcp",
        f"{_HERE}:multtcp",
        "MultTCPParams",
        "MultTCP vs N TCP-like connections under ONE, N = 1..20",
    ),
    Experiment(
        "insensitivity-rtt",
        f"{_HERE}:rtt",
        "RTTParams",
        "Aggregate of 4 identical connections for several common eta (RTT) and policies",
    ),
    Experiment(
        "insensitivity-heterogeneous",
        f"{_HERE}:heterogeneous",
        "HeterogeneousParams",
        "Beyond the paper: connections with unequal beta or eta under four ONE policies",
    ),
    Experiment(
        "insensitivity-policies",
        "tcplab.chapters.insensitivity.longruns:policy_runs",
        "PoliciesParams",
        "Four identical connections, four ONE policies, five common eta: long runs, with the "
        "identity's bound",
    ),
    Experiment(
        "insensitivity-gain",
        "tcplab.chapters.insensitivity.longruns:gain_runs",
        "GainParams",
        "ONE against ALL at N = 1000, ONE run long: the gain's limit 2/(1 + beta)",
    ),
)
