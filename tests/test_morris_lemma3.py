"""Morris's Lemma 3 with one p: the what-if table's helpers on hand-made inputs, and the shipped
table's two arms against what the lemma's algebra says (expectations by hand, in comments)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tcplab import cache
from tcplab.chapters.morris import claims as morris_claims
from tcplab.chapters.morris.lemma3 import ARMS, Lemma3Params, one_p_ratios


def _stages(q: tuple[float, ...], n0: float = 100.0) -> dict[str, float]:
    """A run whose stages obey Lemma 2 with the stage losses ``q``: n_(i+1) = 2 q_i n_i."""
    row = {"n0": n0}
    for i, qi in enumerate(q):
        row[f"q{i}"] = qi
        row[f"n{i + 1}"] = 2.0 * qi * row[f"n{i}"]
    return row


def test_one_p_is_lemma3_as_printed() -> None:
    # one q = 0.25 at every stage: n3 = (2 * 0.25)^3 * 100 = 12.5, the ratio 1. Stage losses
    # 0.1, 0.2, 0.4: n3 = 100 * 0.2 * 0.4 * 0.8 = 6.4 against (0.2)^3 * 100 = 0.8: ratio 8
    table = pd.DataFrame(
        [
            {"arm": ARMS[1], **_stages((0.25, 0.25, 0.25))},
            {"arm": ARMS[0], **_stages((0.1, 0.2, 0.4))},
        ]
    )
    assert table.loc[0, "n3"] == pytest.approx(12.5)
    assert list(one_p_ratios(table, ARMS[1], 3)) == pytest.approx([1.0])
    assert list(one_p_ratios(table, ARMS[0], 3)) == pytest.approx([8.0])
    assert list(one_p_ratios(table, ARMS[0], 1)) == pytest.approx([1.0])  # Lemma 2 at stage 1
    with pytest.raises(KeyError):
        one_p_ratios(table[table["arm"] == ARMS[0]], ARMS[1], 3)
    # the rows' statistic is the log: ln 8 = 2.0794, ln 1 = 0; a run with n3 = 0 is left out
    assert list(morris_claims._log_one_p(table, ARMS[0])) == pytest.approx([2.0794415])
    assert list(morris_claims._log_one_p(table, ARMS[1])) == pytest.approx([0.0])
    empty_stage = table.assign(n3=0.0)
    assert morris_claims._log_one_p(empty_stage, ARMS[0]).size == 0


def test_the_frame_shows_both_forms_by_hand() -> None:
    # stage losses 0.1, 0.2, 0.4 (n = 100, 20, 8, 6.4; q3 = 0.5 only sets n4): stage by stage
    # every ratio is 1, with one p = 0.1 the ratios are 1, 20 / 20 = 1, 8 / 4 = 2, 6.4 / 0.8 = 8
    table = pd.DataFrame(
        [{"arm": arm, "flows": 300, **_stages((0.1, 0.2, 0.4, 0.5), 100.0)} for arm in ARMS]
    )
    frame = morris_claims.lemma3_frame(table)
    network = frame[frame["arm"] == ARMS[0]]
    assert list(network["n"]) == pytest.approx([100.0, 20.0, 8.0, 6.4])
    assert list(network["one_p"]) == pytest.approx([1.0, 1.0, 2.0, 8.0])
    assert list(network["stage_by_stage"]) == pytest.approx([1.0, 1.0, 1.0, 1.0])


def test_the_shipped_what_if_loses_alike_at_every_stage() -> None:
    """The what-if's retransmission loss is the loss it sets, at every stage: each stage's
    mean q_i within 0.05 of p. A lost retransmission is an independent draw with p = 1/4;
    stage 3 alone has some 2,500 retransmissions in 12 runs, a standard error of 0.009, so
    0.05 is over 5 standard errors (a false alarm below 1e-7 per stage)."""
    found = cache.load(cache.Entry("morris-lemma3"))
    assert found is not None, "data/morris-lemma3.csv is missing"
    table = found[0]
    params = Lemma3Params()
    assert set(table["arm"]) == set(ARMS)
    assert (table.groupby("arm").size() == params.replicas).all()
    independent = table[table["arm"] == ARMS[1]]
    assert int(independent["c3"].sum()) > 2_000
    q = [float(np.mean(independent[f"q{i}"])) for i in range(4)]
    assert q == pytest.approx([params.loss_rate] * 4, abs=0.05)
