"""The microscope chapter's rules: the hand derivations, the replay of the RFCs, the table.

Two routes from the rules to Fall and Floyd's cases, neither reading the model: the counting
arguments of ``tcplab.chapters.microscope.rules`` (checked here against numbers worked out
by hand in the comments) and the replay (``replay.py``), a sender written from the RFCs'
text. They must agree with each other, and the model (``tcplab.packet``) with both: event
by event on the cases and on any loss script Hypothesis draws. The replay's switches to the
RFCs' own choices are checked against what the RFCs say they do.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcplab import ledger, registry
from tcplab.chapters.microscope import claims, panel, rules
from tcplab.chapters.microscope.replay import LETTER, MODEL, first_difference, replay
from tcplab.chapters.microscope.rules import CASES, expected_counts, go_back_n
from tcplab.packet import run_trace

FALL_FLOYD = {"packets": 100, "window": rules.RWND}


def of(ev: pd.DataFrame, *events: str) -> pd.DataFrame:
    return ev[ev["event"].isin(events)]


# -- the hand derivations ------------------------------------------------------------------
def test_the_derivations_give_what_was_worked_out_by_hand() -> None:
    # Tahoe, four drops: the retransmission of 14 brings ACK 24 (15..23 arrived), cwnd 2
    # resends 24 and 25; 24 brings ACK 26, cwnd 3 resends 26, 27, 28; 26 brings ACK 28 and
    # cwnd 4 goes on with new data from 29. 25 and 27 had arrived: resent for nothing.
    assert expected_counts("tahoe", 4).resent == (14, 24, 25, 26, 27, 28)
    assert expected_counts("tahoe", 3).resent == (14, 26, 27, 28)
    assert expected_counts("tahoe", 2).resent == (14, 28)
    # NewReno: each hole once, one per partial ACK
    assert [expected_counts("newreno", k).partial_acks for k in CASES] == [0, 1, 2, 3]
    # Reno: 15 + 7.5 - k inflated window against 15 outstanding: 7 - k new packets
    assert [rules.new_in_first_recovery(k) for k in CASES] == [6, 5, 4, 3]
    three, four = expected_counts("reno", 3), expected_counts("reno", 4)
    assert (three.fast_retransmits, three.timeouts, three.resent) == (2, 1, (14, 26, 28))
    # four drops: the time-out goes back to 26 with 26..31 outstanding and 26, 28 missing:
    # cwnd 1 resends 26; ACK 28, cwnd 2 resends 28 and 29 (29 had arrived)
    assert (four.fast_retransmits, four.timeouts, four.resent) == (2, 1, (14, 24, 26, 28, 29))
    assert go_back_n([26, 27, 28, 29, 30, 31], [26, 28], 2.0) == [26, 28, 29]
    # holes 0, 3, 6, 9 of 0..9: cwnd 1 resends 0; ACK 3, cwnd 2: 3, 4; ACK 6, then in
    # congestion avoidance from ssthresh 2 (cwnd 2.5): 6, 7; ACK 9 (cwnd 2.9): 9. In slow
    # start throughout, ACK 6 opens cwnd to 3 and 8 is resent too.
    assert go_back_n(list(range(10)), [0, 3, 6, 9], 2.0) == [0, 3, 4, 6, 7, 9]
    assert go_back_n(list(range(10)), [0, 3, 6, 9], 8.0) == [0, 3, 4, 6, 7, 8, 9]


def test_the_derivations_refuse_a_case_they_do_not_cover() -> None:
    with pytest.raises(ValueError, match="k=5 is not one of the cases"):
        expected_counts("reno", 5)
    with pytest.raises(ValueError, match="tcp='vegas'"):
        expected_counts("vegas", 1)


@pytest.mark.parametrize("tcp", rules.SENDERS)
@pytest.mark.parametrize("k", sorted(CASES))
def test_the_replay_agrees_with_the_derivations(tcp: str, k: int) -> None:
    """Two routes from the same rules: the counting argument and the replay."""
    expected = expected_counts(tcp, k)
    run = replay(tcp, CASES[k], **FALL_FLOYD)
    ev = run.events
    assert tuple(of(ev, "retransmit")["seq"]) == expected.resent
    assert len(of(ev, "partial_ack")) == expected.partial_acks
    assert (run.fast_retransmits, run.timeouts) == (expected.fast_retransmits, expected.timeouts)
    assert run.retransmits == expected.retransmits


# -- the replay against the model ------------------------------------------------------------
@pytest.mark.parametrize("tcp", ["tahoe", "reno", "newreno", "aimd"])
@pytest.mark.parametrize("k", sorted(CASES))
def test_the_model_follows_the_replay_event_by_event(tcp: str, k: int) -> None:
    model = run_trace(tcp, CASES[k], **FALL_FLOYD)
    rules_run = replay(tcp, CASES[k], **FALL_FLOYD)
    assert first_difference(model.events, rules_run.events) is None
    assert model.completion_s == pytest.approx(rules_run.completion_s, abs=1e-9)


@settings(max_examples=60)
@given(
    tcp=st.sampled_from(["tahoe", "reno", "newreno", "aimd"]),
    packets=st.integers(5, 120),
    window=st.integers(1, 64),
    data=st.data(),
    granularity=st.sampled_from([0.001, 0.01, 0.5]),
    min_rto=st.sampled_from([0.05, 0.2, 1.0]),
    rate_mbps=st.sampled_from([0.5, 1.0, 10.0]),
    buffer=st.sampled_from([2, 5, 1000]),
    aimd=st.sampled_from([(1.0, 0.5), (2.0, 0.75), (0.5, 0.875)]),
)
def test_the_model_follows_the_replay_on_any_script(
    tcp, packets, window, data, granularity, min_rto, rate_mbps, buffer, aimd
) -> None:
    """Any loss script (repeats lose retransmissions too), any window, timer and path, small
    buffers that drop on their own: the same events, the same windows, the same times."""
    drops = data.draw(st.lists(st.integers(0, packets - 1), max_size=8), label="drops")
    options = {
        "packets": packets, "window": window, "granularity": granularity,
        "min_rto": min_rto, "rate_mbps": rate_mbps, "buffer": buffer,
        "a": aimd[0], "beta": aimd[1],
    }  # fmt: skip
    model = run_trace(tcp, drops, **options)
    rules_run = replay(tcp, drops, **options)
    assert first_difference(model.events, rules_run.events) is None
    assert (model.fast_retransmits, model.timeouts, model.retransmits) == (
        rules_run.fast_retransmits, rules_run.timeouts, rules_run.retransmits,
    )  # fmt: skip


def test_a_difference_is_reported_where_it_is() -> None:
    model = run_trace("reno", CASES[3], **FALL_FLOYD).events
    assert first_difference(model, model.copy()) is None
    nudged = model.copy()
    nudged.loc[40, "cwnd"] += 1e-9
    assert first_difference(model, nudged).startswith("row 40:")
    assert "logs" in first_difference(model, model.iloc[:-1])
    other = replay("newreno", CASES[3], **FALL_FLOYD).events
    assert first_difference(model, other) is not None


# -- the RFCs' own choices ---------------------------------------------------------------------
def test_to_the_letter_the_cut_uses_flightsize_holds_ssthresh_and_leaves_the_timer() -> None:
    """Packet 14 lost four times. RFC 5681 eq. (4): at the first time-out 14..41 are sent and
    not acknowledged, FlightSize 28, ssthresh 14; 3.1: the timer resending 14 again keeps
    it. RFC 6298 5.1: the fast retransmit does not restart the running timer, so the first
    expiry is one RTO (the 1 s floor, 2.4) after the last new ACK (5.3)."""
    params = {"packets": 60, "window": rules.RWND}
    run = replay("newreno", (14,) * 4, **params, choices=LETTER, min_rto=1.0).events
    timeouts = of(run, "timeout")
    assert list(timeouts["ssthresh"]) == [14.0, 14.0, 14.0]
    last_new = of(run[run["time"] < timeouts["time"].iloc[0]], "ack").iloc[-1]
    assert timeouts["time"].iloc[0] == pytest.approx(last_new["time"] + 1.0, abs=1e-9)
    assert list(timeouts["rto"]) == [2.0, 4.0, 8.0]
    model = replay("newreno", (14,) * 4, **params, choices=MODEL).events
    fast = of(model, "fast_retransmit").iloc[0]
    # the model's choices: the timer restarts at the fast retransmit; in recovery the cut
    # halves the window before inflation (7.5), then the floor of 2
    assert of(model, "timeout")["time"].iloc[0] == pytest.approx(fast["time"] + fast["rto"])
    assert list(of(model, "timeout")["ssthresh"]) == [3.75, 2.0, 2.0]


@pytest.mark.parametrize("tcp", rules.SENDERS)
@pytest.mark.parametrize("k", sorted(CASES))
def test_to_the_letter_the_cases_make_the_same_decisions(tcp: str, k: int) -> None:
    """What the chapter says: undoing the departures moves times, not decisions."""
    ours = replay(tcp, CASES[k], **FALL_FLOYD)
    letter = replay(tcp, CASES[k], **FALL_FLOYD, choices=LETTER, min_rto=1.0)
    assert (letter.fast_retransmits, letter.timeouts) == (ours.fast_retransmits, ours.timeouts)
    resent = [list(of(run.events, "retransmit")["seq"]) for run in (letter, ours)]
    assert resent[0] == resent[1]


def test_to_the_letter_reno_halves_the_flightsize_at_its_second_fast_retransmit() -> None:
    # packets 28..34 sent and not acknowledged when 28 is found lost: FlightSize 7
    letter = replay("reno", CASES[2], **FALL_FLOYD, choices=LETTER, min_rto=1.0).events
    assert list(of(letter, "fast_retransmit")["ssthresh"]) == [7.5, 3.5]
    model = replay("reno", CASES[2], **FALL_FLOYD).events
    assert list(of(model, "fast_retransmit")["ssthresh"]) == [7.5, 3.75]


# -- the chapter's table ------------------------------------------------------------------------
def _ok(found: dict) -> dict[str, bool]:
    """Each check's verdict on ``found`` (the ledger's rules), as agrees or not."""
    return {k: v == "reproduced" for k, v in ledger.check_statuses("microscope", found).items()}


def test_the_table_shows_every_case_and_agrees() -> None:
    tables = registry.run_all(claims.TABLES, scale="quick")
    found = claims.chapter_claims(tables)
    frame = claims.comparison_frame(found)
    assert len(frame) == 12 and frame["agree"].all()
    assert frame.loc[("Reno", "14, 26, 28"), "time-outs"] == "1 / 1"
    assert frame.loc[("Tahoe", "14, 26, 28"), "packets resent"] == "14 26 27 28"
    # a model that resent one packet more would be caught, in the count and in the list
    cases = tables["microscope-cases"].copy()
    cases.loc[0, "retransmits"] += 1
    cases.loc[0, "resent"] += " 15"
    wrong = claims.case_claims(cases)
    assert not _ok(wrong)["tahoe-1-retransmits"] and not _ok(wrong)["tahoe-1-resent"]
    shown = claims.comparison_frame(wrong).iloc[0]
    assert not shown["agree"] and shown["retransmissions"] == "1 / 2"
    assert shown["packets resent"] == "14 / other packets"


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_the_completion_times_are_ordered_as_the_chapter_says(scale: str) -> None:
    """The prose: NewReno first everywhere; one drop, Reno is NewReno; two, Reno after Tahoe
    (halved twice); three or four, Reno after Tahoe (the time-out)."""
    table = registry.run("microscope-cases", scale=scale).set_index(["tcp", "losses"])
    done = table["completion_s"]
    for k in CASES:
        assert done[("newreno", k)] <= min(done[("reno", k)], done[("tahoe", k)])
        assert (done[("reno", k)] > done[("tahoe", k)]) == (k >= 2)
    assert done[("reno", 1)] == done[("newreno", 1)]


def test_the_rto_claims_follow_the_back_off_closed_form() -> None:
    table = registry.run("microscope-rto", scale="quick")
    found = claims.rto_claims(table)
    assert all(_ok(found).values())
    rho = found["rto-backoff-1"].paper / 2
    assert [found[f"rto-backoff-{j}"].paper for j in (1, 2, 3)] == [2 * rho, 4 * rho, 8 * rho]
    gaps = [found[f"rto-expiry-{j + 1}"].paper - found[f"rto-expiry-{j}"].paper for j in (1, 2)]
    assert gaps == pytest.approx([2 * rho, 4 * rho])
    # a model that did not back off would be caught
    flat = table.assign(rto=table["rto"].where(table["event"] != "timeout", rho))
    assert not _ok(claims.rto_claims(flat))["rto-backoff-2"]


def test_the_rto_after_each_sample_is_rfc6298_by_hand() -> None:
    """RFC 6298 2.2 and 2.3 on equal samples r: RTTVAR = r/2, then 3r/8, then 9r/32, so the RTO
    is 3r, 2.5r, 2.125r (r = 0.1012 s: 0.3036, 0.253, 0.21505 s), rounded up to the 10 ms
    clock; a floor above them all wins."""
    r = 0.1012
    assert claims.rfc6298_rtos([r, r, r]) == pytest.approx([0.31, 0.26, 0.22], abs=1e-12)
    assert claims.rfc6298_rtos([0.01, 0.01]) == pytest.approx([0.2, 0.2])
    table = registry.run("microscope-rto", scale="quick")
    found = claims.sample_claims(table)
    assert _ok(found)["rto-first"] and _ok(found)["rto-samples"]
    # a model that kept its first RTO would be caught
    firsts = table["rtt_sample"].notna().cumsum() <= 1
    frozen = table.assign(rto=table["rto"].where(firsts, found["rto-first"].value))
    assert not _ok(claims.sample_claims(frozen))["rto-samples"]


def test_a_departure_that_changed_a_decision_would_be_caught() -> None:
    cases = registry.run("microscope-cases", scale="quick")
    assert all(_ok(claims.departure_claims(cases)).values())
    wrong = cases.copy()
    wrong.loc[(wrong["tcp"] == "reno") & (wrong["losses"] == 3), "timeouts"] = 0
    assert not any(_ok(claims.departure_claims(wrong)).values())


def test_departures_change_only_what_they_should() -> None:
    frame = claims.departures_frame()
    model = frame["model's choices"]
    # NewReno and Tahoe never time out in Fall and Floyd's cases: a 1 s floor changes nothing
    for tcp in ("tahoe", "newreno"):
        for drops in CASES.values():
            key = (tcp, ", ".join(map(str, drops)))
            assert frame.loc[key, "min RTO 1 s"] == model.loc[key]
    # the repeated time-out: the RTO at the fast retransmit sits on the floor, so with a 1 s
    # floor the expiries come 1, 1 + 2 and 1 + 2 + 4 s after it
    slow = replay("newreno", (14,) * 4, packets=60, window=rules.RWND, min_rto=1.0).events
    fast = of(slow, "fast_retransmit").iloc[0]
    assert fast["rto"] == 1.0
    assert list(of(slow, "timeout")["time"] - fast["time"]) == pytest.approx([1, 3, 7])
    assert frame.loc[("newreno", "14, 14, 14, 14"), "min RTO 1 s"] > 7.0
    # Reno's time-out waits one RTO: 0.2 s by the model's floor, 1 s by RFC 6298's
    gained = frame.loc[("reno", "14, 26, 28"), "min RTO 1 s"] - model.loc[("reno", "14, 26, 28")]
    assert gained == pytest.approx(0.8, abs=1e-9)


# -- the panel -----------------------------------------------------------------------------------
def test_the_panel_reads_drop_lists_and_names_bad_entries() -> None:
    assert panel.parse_drops("14, 26 28;28", 100) == (14, 26, 28, 28)
    assert panel.parse_drops("  ", 100) == ()
    with pytest.raises(ValueError, match="drop='x' is not a packet number"):
        panel.parse_drops("14, x", 100)
    with pytest.raises(ValueError, match=r"drop=100 is outside the allowed range \[0, 99\]"):
        panel.parse_drops("100", 100)
    chart, differs = panel.traced("aimd", (30, 31), 64, 150, a=2.0, beta=0.75)
    assert differs is None and "rules replayed by hand give the same" in str(chart.title)


def test_round_trip_is_propagation_plus_one_transmission() -> None:
    assert claims.round_trip(claims.MicroscopeParams()) == pytest.approx(0.1 + 1500 * 8 / 10e6)
    assert math.isclose(claims.round_trip(claims.MicroscopeParams(rtt_ms=50.0)), 0.0512)


@pytest.mark.book
def test_the_page_has_its_charts_tables_panel_and_exercises(built_book: Path) -> None:
    page = (built_book / "chapters" / "tcp-microscope.html").read_text(encoding="utf-8")
    assert page.count('class="tcplab-chart"') == 3
    assert page.count('class="tcplab-claims') == 3 and "tcplab-off" not in page
    assert "tcplab-live-note" in page and "Traceback" not in page
    assert page.count('class="solution') >= 4 and "dropdown" in page
    assert "14 24 25 26 27 28" in page  # the rules-vs-model table, Tahoe's four drops
