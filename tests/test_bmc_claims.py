"""The weighted-AIMD chapter's claims about J, K and the thesis's explanations decide as their
docstrings say, on tables made by hand (the verdicts on the model's own runs are in
tests/test_chapter_claims.py)."""

from __future__ import annotations

import pandas as pd

from tcplab import ledger
from tcplab.chapters.bmc import claims


def _ok(found) -> dict[str, bool]:  # noqa: ANN001
    """Each check's verdict by the ledger's rules, as agrees or not."""
    return {k: v == "reproduced" for k, v in ledger.check_statuses("bmc", found).items()}


def _order(misordered: list[float], periods: list[int], epoch_s: float = 3.0) -> pd.DataFrame:
    js = [0.5, 5.0, 20.0, 50.0][: len(misordered)]
    return pd.DataFrame(
        {"weights": "1/2 , 1/2", "d1": 0.5, "j_s": js, "periods": periods,
         "misordered": misordered, "fluid_twr_gap": 0.2, "epoch_s": epoch_s}
    )  # fmt: skip


def test_larger_j_is_more_exact_only_beyond_the_binomial_noise() -> None:
    # 0.32 of 4000 periods against 0.025 of 40: far apart (3 SE is about 0.08)
    found = claims._order(_order([0.32, 0.25, 0.14, 0.025], [4000, 400, 100, 40]))
    assert _ok(found)["order_larger_j_1/2"]
    # 0.32 against 0.25 over 40 periods: 3 SE of the latter alone is 0.2, not enough
    found = claims._order(_order([0.32, 0.30, 0.28, 0.25], [4000, 400, 100, 40]))
    assert not _ok(found)["order_larger_j_1/2"]


def test_one_epoch_is_enough_when_most_measurements_order_right() -> None:
    # the first J holding the 3 s epoch is 5 s
    assert _ok(claims._order(_order([0.6, 0.45, 0.1], [4000, 400, 100])))["order_one_epoch"]
    assert not _ok(claims._order(_order([0.6, 0.55, 0.1], [4000, 400, 100])))["order_one_epoch"]


def _jk(reach: list[float], sd: list[float]) -> pd.DataFrame:
    k = [0.1, 0.5, 1.0]
    frames = [
        pd.DataFrame({"model": "fluid", "scenario": name, "k": k, "reach_s": reach, "sd_d1": sd})
        for name in ("shared", "pooling")
    ]
    return pd.concat(frames, ignore_index=True)


def test_k_claims_read_the_fluid_rows() -> None:
    found = claims._jk(_jk([9.0, 3.0, 2.0], [0.01, 0.06, 0.12]))
    assert _ok(found)["jk_larger_k_faster"] and _ok(found)["jk_larger_k_less_stable"]
    found = claims._jk(_jk([3.0, 9.0, 2.0], [0.12, 0.06, 0.01]))
    assert not _ok(found)["jk_larger_k_faster"]
    assert not _ok(found)["jk_larger_k_less_stable"]


def test_doubling_j_doubles_the_fluid_convergence_time() -> None:
    """The thesis: "when we double J, it doubles the convergence speed" (time); in the fluid
    model J only sets the time scale, so the ratio is exactly 2."""
    found = claims._jk(_jk([9.0, 3.0, 2.0], [0.01, 0.06, 0.12]))
    assert found["jk_double_j"].value == 2.0 and _ok(found)["jk_double_j"]


def _explain(fast_share: float, fast_ratio: float) -> pd.DataFrame:
    rows = []
    for rate, share, ratio in ((60.0, 0.8, 0.31), (240.0, fast_share, fast_ratio)):
        rows.append(
            {"case": "large", "D": 0.2, "flows": 64, "rate_mbps": rate, "duration": 100.0,
             "replica": 0, "ratio": ratio, "steady_ratio": ratio, "aimd_loss_events": 10.0,
             "tcp_loss_events": 50.0, "aimd_timeouts": 10.0 * share, "tcp_timeouts": 2.0,
             "aimd_window": 1.0}
        )  # fmt: skip
    return pd.DataFrame(rows)


def test_the_time_out_explanation_needs_fewer_time_outs_and_no_ratio_above_d() -> None:
    found = claims._explain(_explain(0.3, 0.22))
    assert _ok(found)["explain_large_timeouts"] and _ok(found)["explain_large_not_above"]
    found = claims._explain(_explain(0.3, 0.35))
    assert _ok(found)["explain_large_timeouts"] and not _ok(found)["explain_large_not_above"]
    found = claims._explain(_explain(0.9, 0.22))
    assert not _ok(found)["explain_large_timeouts"]


def test_worked_examples_compare_shares_of_the_cases_total() -> None:
    """Fig. 4.1, uncoupled: the thesis's 4, 9 and 5 Mb/s are shares 4/18, 9/18, 5/18 of their
    sum; runs whose links are 10% idle but split in those proportions agree."""
    rows = []
    for replica, noise in ((0, 0.01), (1, -0.01)):
        for source, mbps in (("s1", 4.0), ("s2", 9.0), ("s3", 5.0)):
            wobble = 1 + (noise if source == "s1" else -noise)  # the runs differ a little
            rows.append({"model": "packet", "scenario": "pooling", "case": "uncoupled",
                         "replica": replica, "source": source, "subflow": 0,
                         "mbps": 0.9 * mbps * wobble})  # fmt: skip
    found = claims._worked(pd.DataFrame(rows))
    assert set(found) == {f"worked_pooling_uncoupled_{s}" for s in ("s1", "s2", "s3")}
    assert abs(found["worked_pooling_uncoupled_s2"].paper - 0.5) < 1e-12
    assert all(_ok(found).values())
    skewed = pd.DataFrame(rows).assign(
        mbps=lambda f: f["mbps"] * f["source"].map({"s1": 1.0, "s2": 0.8, "s3": 1.0})
    )
    assert not _ok(claims._worked(skewed))["worked_pooling_uncoupled_s2"]
