"""Weighted AIMD and BMC's proportion manager: Honda (2009), on the book's models.

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_PARAMS = "tcplab.chapters.bmc.params:BmcParams"
_AIMD = "tcplab.chapters.bmc.experiments"
_PM = "tcplab.chapters.bmc.proportion"

EXPERIMENTS = (
    Experiment(
        "bmc-response",
        f"{_AIMD}:response",
        _PARAMS,
        "One AIMD(a, b) flow under random loss vs eq. (3.2) and the random-loss closed form",
    ),
    Experiment(
        "bmc-competition",
        f"{_AIMD}:competition",
        _PARAMS,
        "AIMD(a, b) flows against TCP flows on Fig. 5.1's RED bottleneck, grid of (a, b)",
    ),
    Experiment(
        "bmc-weighted",
        "tcplab.chapters.bmc.grid:weighted",
        "tcplab.chapters.bmc.grid:WeightedParams",
        "Figs. 5.2-5.11: N TCP flows vs N AIMD(D^2, 1/2) flows, per flow",
    ),
    Experiment(
        "bmc-mixes",
        "tcplab.chapters.bmc.mixes:mixes",
        "tcplab.chapters.bmc.mixes:MixesParams",
        "Figs. 5.12-5.18: weights summing to 1 against TCP, per flow",
    ),
    Experiment(
        "bmc-explain",
        f"{_AIMD}:explain",
        _PARAMS,
        "The thesis's explanations tested: seeds and long runs at small N, 4x the rate at large N",
    ),
    Experiment(
        "bmc-red",
        "tcplab.chapters.bmc.sensitivity:red",
        "tcplab.chapters.bmc.sensitivity:RedParams",
        "Fig. 5.10's ratio under other bottleneck queues (RED's parameters are not given)",
    ),
    Experiment(
        "bmc-examples",
        f"{_PM}:examples",
        _PARAMS,
        "Figs. 3.1, 3.2, 4.1 at fixed weights: fluid and packet",
    ),
    Experiment(
        "bmc-worked",
        "tcplab.chapters.bmc.worked:worked",
        "tcplab.chapters.bmc.worked:WorkedParams",
        "Figs. 3.1, 3.2 and 4.1 at fixed weights, packet model over several seeds",
    ),
    Experiment(
        "bmc-manager",
        f"{_PM}:manager",
        _PARAMS,
        "The proportion manager over time: weights and Twr, fluid and packet",
    ),
    Experiment(
        "bmc-jk",
        f"{_PM}:jk",
        _PARAMS,
        "The proportion manager's convergence and stability against J and K, fluid and packet",
    ),
    Experiment(
        "bmc-order",
        f"{_PM}:order",
        _PARAMS,
        "How often one J-second measurement orders two subflows' Twr wrongly, against J",
    ),
    Experiment(
        "bmc-compare",
        "tcplab.chapters.bmc.compare:compare",
        "tcplab.chapters.bmc.compare:CompareParams",
        "BMC vs uncoupled subflows vs MPTCP LIA (RFC 6356) on both scenarios",
    ),
    Experiment(
        "bmc-fluid-grid",
        f"{_PM}:fluid_grid",
        _PARAMS,
        "The fluid proportion manager over a grid of K and link rates (static sliders)",
    ),
    Experiment(
        "bmc-weighted-35",
        "tcplab.chapters.bmc.grid35:weighted35",
        "tcplab.chapters.bmc.grid35:Fig55Params",
        "Fig. 5.5 (D = 3/5), the weight the thesis's text leaves out, on the thesis's N",
    ),
    Experiment(
        "bmc-wide",
        "tcplab.chapters.bmc.wide:wide",
        "tcplab.chapters.bmc.wide:WideParams",
        "Fig. 3.2's point with disjoint links of 4/12 and 8/24 Mb/s: per-subflow Mb/s and drops",
    ),
    Experiment(
        "bmc-pair",
        "tcplab.chapters.bmc.pair:pair",
        "tcplab.chapters.bmc.pair:PairParams",
        "Fig. 4.1's s2 excess: the pooling case, the same pair alone, over a long run, many pairs",
    ),
    Experiment(
        "bmc-law",
        "tcplab.chapters.bmc.law:law",
        "tcplab.chapters.bmc.law:LawParams",
        "When the weight law holds: RED, DropTail and random loss, equal and unequal RTTs",
    ),
    Experiment(
        "bmc-compare-seeds",
        "tcplab.chapters.bmc.seeds:compare_seeds",
        "tcplab.chapters.bmc.seeds:CompareSeedsParams",
        "bmc-compare's packet runs with three more seeds",
    ),
    Experiment(
        "bmc-red-seeds",
        "tcplab.chapters.bmc.seeds:red_seeds",
        "tcplab.chapters.bmc.seeds:RedSeedsParams",
        "bmc-red with two more seeds",
    ),
    Experiment(
        "bmc-red-seeds-more",
        "tcplab.chapters.bmc.moreseeds:red_seeds_more",
        "tcplab.chapters.bmc.moreseeds:RedMoreParams",
        "bmc-red's DropTail cells at N = 2 with 17 more seeds (D against D^2)",
    ),
    Experiment(
        "bmc-mix-seeds",
        "tcplab.chapters.bmc.moreseeds:mix_seeds",
        "tcplab.chapters.bmc.moreseeds:MixSeedsParams",
        "Fig. 5.18's 2/3 + 1/3 at N = 4 with 19 more seeds (the thesis's +25% against 1)",
    ),
)
