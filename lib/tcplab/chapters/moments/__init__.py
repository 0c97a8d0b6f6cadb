"""Second moments are not insensitive (Altman et al. 2006, Sections III-IV).

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.moments.experiments"

EXPERIMENTS = (
    Experiment(
        "moments-table",
        f"{_HERE}:second_moments",
        "TableParams",
        "E[X_i^2]/c^2 per policy for N = 2, 3, 4",
    ),
    Experiment(
        "moments-distributions",
        f"{_HERE}:distributions",
        "DistributionParams",
        "Exact rate histograms, N = 2",
    ),
    Experiment(
        "moments-largest-rate",
        f"{_HERE}:largest_rate",
        "LargestRateParams",
        "Largest-rate fixed point, eq. (9)",
    ),
    Experiment(
        "moments-beatdown-path",
        f"{_HERE}:beatdown_path",
        "BeatdownParams",
        "Beatdown sample path (Fig. 5)",
    ),
    Experiment(
        "moments-beatdown-tags",
        f"{_HERE}:beatdown_tags",
        "BeatdownParams",
        "Beatdown rates at tagging times",
    ),
    Experiment(
        "moments-theorem3",
        f"{_HERE}:theorem3",
        "BeatdownParams",
        "Beatdown mean aggregate vs Theorem 1",
    ),
    Experiment(
        "moments-beatdown-held",
        "tcplab.chapters.moments.held:held_beatdown",
        "HeldParams",
        "What-if: beatdown with the aggregate held at c (the paper's 1/3)",
    ),
)
