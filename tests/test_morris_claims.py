"""The Morris chapter's test of "the steady upward trend": a fall must be beyond the noise.

Hand-made sweeps with known means and spreads: the verdict follows from the 95% intervals
(Student's t with 2 degrees of freedom: 4.303 x s / sqrt(3)), computed here by hand.
"""

from __future__ import annotations

import pandas as pd

from tcplab.chapters.morris.claims import falls, timeout_shares


def _sweep(points: dict[int, tuple[float, float, float]]) -> pd.DataFrame:
    rows = [{"flows": n, "loss_rate": v} for n, runs in points.items() for v in runs]
    return pd.DataFrame(rows)


def test_a_clear_fall_is_found() -> None:
    # N = 200: mean 0.20, s = 0.01, half = 4.303 * 0.01 / sqrt(3) = 0.0248 -> [0.175, 0.225]
    # N = 300: mean 0.10, s = 0.01 -> [0.075, 0.125]: below, no overlap
    table = _sweep({100: (0.09, 0.10, 0.11), 200: (0.19, 0.20, 0.21), 300: (0.09, 0.10, 0.11)})
    assert falls(table, "loss_rate") == [300]


def test_a_dip_within_the_noise_is_not_a_fall() -> None:
    # N = 300: mean 0.19 with s = 0.01 -> [0.165, 0.215] overlaps N = 200's [0.175, 0.225]
    table = _sweep({100: (0.09, 0.10, 0.11), 200: (0.19, 0.20, 0.21), 300: (0.18, 0.19, 0.20)})
    assert falls(table, "loss_rate") == []


def test_a_rising_sweep_has_no_fall() -> None:
    table = _sweep({100: (0.05, 0.06, 0.07), 200: (0.09, 0.10, 0.11), 300: (0.11, 0.12, 0.13)})
    assert falls(table, "loss_rate") == []


def test_timeout_share_pools_the_runs_of_one_sender_at_one_n() -> None:
    # sack at N = 700: (30 + 10) time-outs of (30 + 10) + (10 + 50) responses = 0.4; the
    # DropTail run and the N = 300 run are not counted; a sender not run gives NaN
    table = pd.DataFrame(
        [
            {
                "sender": "sack",
                "queue": "red",
                "flows": 700,
                "timeouts": 30,
                "fast_retransmits": 10,
            },
            {
                "sender": "sack",
                "queue": "red",
                "flows": 700,
                "timeouts": 10,
                "fast_retransmits": 50,
            },
            {
                "sender": "sack",
                "queue": "droptail",
                "flows": 700,
                "timeouts": 99,
                "fast_retransmits": 0,
            },
            {"sender": "sack", "queue": "red", "flows": 300, "timeouts": 99, "fast_retransmits": 0},
        ]
    )
    shares = timeout_shares(table, ("sack", "newreno"), 700)
    assert shares["sack_timeout_share"] == 0.4
    assert shares["newreno_timeout_share"] != shares["newreno_timeout_share"]  # NaN
