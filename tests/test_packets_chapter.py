"""The packet-level validation chapter: every item of its ledger is judged by the book's rules
(lib/tcplab/chapters/packets/ledger.toml; the statuses on the shipped data are held in
tests/test_ledger.py), each check on the rule its sides call for, and each check can fail."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from tcplab import cache, ledger, registry
from tcplab.chapters.packets import charts
from tcplab.chapters.packets import claims as pclaims
from tcplab.chapters.packets import experiments as packets
from tcplab.chapters.packets import signals as psignals
from tcplab.charts import to_svg
from tcplab.ledger import tolerance

from stat_tools import proportion_bound

NAMES = ("validation", "droptail", "red", "events", "threshold", "loss", "signalled")


@pytest.fixture(scope="module")
def quick() -> dict[str, pd.DataFrame]:
    tables = {name: registry.run(f"packets-{name}", scale="quick") for name in NAMES}
    tables["windows"] = registry.run("packets-windows", scale="quick")
    tables["hold"] = registry.run("packets-hold", scale="quick")
    tables["replicas"] = registry.run("packets-replicas", scale="quick")
    return tables


@pytest.fixture(scope="module")
def chapter_quick() -> dict[str, pd.DataFrame]:
    return registry.run_all(pclaims.TABLES, scale="quick")


def _shipped(name: str) -> pd.DataFrame:
    found = cache.load(cache.Entry(f"packets-{name}"))
    assert found is not None, f"data/packets-{name}.csv is missing"
    return found[0]


def _judged(tables: dict[str, pd.DataFrame]) -> dict[str, ledger.Judged]:
    return {j.entry.key: j for j in ledger.judge("packets", pclaims.chapter_claims(tables))}


def test_the_checks_use_the_rules(chapter_quick) -> None:
    """By hand: Figs. 7, 10 and 11 read to half a tick of 0.05 (0.025): a margin; '75%' is
    printed to half a point; Fig. 7's statements are thresholds at 0, point by point; the
    dropper's one signal per event is an exact 1 against the events' interval."""
    found = _judged(chapter_quick)
    rules = {k: {c.verdict.rule for c in j.checks} for k, j in found.items()}
    for key in ("red-theorem1", "threshold-1", "threshold-2", "threshold-3"):
        assert {c.paper.margin for c in found[key].checks} == {0.025}, key
        assert rules[key] <= {"margin", "one run"}, key
    assert found["one-flow"].checks[0].paper.margin == pytest.approx(0.005)
    for key in ("droptail-small", "droptail-large", "droptail-monotone", "signalled-droptail"):
        assert rules[key] <= {"threshold", "one run"}, key
    assert rules["threshold-one"] == {"interval"}
    assert rules["setup"] == {"yes/no"} and found["setup"].status == "partly"


def test_a_fig7_point_on_theorem1_is_not_below_it(chapter_quick) -> None:
    flat = chapter_quick["packets-droptail"]
    flat = flat.assign(utilisation=flat["theorem1"])
    found = _judged({**chapter_quick, "packets-droptail": flat})
    assert found["droptail-small"].status in ("differs", "undecided")
    assert {c.status for c in found["droptail-small"].checks} <= {"differs", "undecided"}


def _replicas(utilisation: dict[tuple[int, str], list[float]]) -> pd.DataFrame:
    rows = []
    for (n, select), values in utilisation.items():
        for r, u in enumerate(values):
            t1 = 1 - 1 / (1 + 3 * n)
            rows.append({"flows": n, "select": select, "replica": r, "utilisation": u,
                         "theorem1": t1})  # fmt: skip
    return pd.DataFrame(rows)


def test_threshold_checks_by_hand() -> None:
    """Fig. 11 on six hand-made seeds at N = 2: rate-independent at Theorem 1 (6/7) +- 0.001
    lies inside the plot's +-0.025; largest-rate 0.05 below lies outside; their difference,
    Welch's interval, too."""
    t1 = 6 / 7
    near = [t1 - 0.001, t1, t1 + 0.001, t1 - 0.0005, t1 + 0.0005, t1]
    far = [u - 0.05 for u in near]
    found = pclaims.threshold_claims(_replicas({(2, "random"): near, (2, "largest"): far}))
    items = {e.key: e for e in ledger.chapter_entries("packets")}
    judged = {key: ledger.judge_with(items[key], {k: c for k, c in found.items()
                                                  if items[key].covers(k)})
              for key in ("threshold-1", "threshold-2", "threshold-3")}  # fmt: skip
    assert [judged[k].status for k in judged] == ["reproduced", "differs", "differs"]
    assert judged["threshold-3"].checks[0].book.value == pytest.approx(-0.05)


def test_the_events_interval_by_hand() -> None:
    """M = 1 at 3 of 4 events, 2 at one: mean 1.25, variance 3/16, over 400 events the 95%
    half-width is 1.96 sqrt(3/16 / 400) = 0.04244."""
    events = pd.DataFrame(
        {"queue": "threshold", "buffer": 100, "m": [1, 2], "ccdf": [1.0, 0.25], "events": 400}
    )
    found = pclaims.events_claim(events, "threshold", "by hand").book
    assert found.value == pytest.approx(1.25)
    assert found.half_width == pytest.approx(1.96 * math.sqrt(3 / 16 / 400))
    one = tolerance.paper_side(1.0, "exact")
    assert tolerance.judge(one, found).status == "differs"  # 1 is outside [1.208, 1.292]


def test_the_rank_correlations_interval_is_fishers() -> None:
    """rho = 0.5 over 19 bins: atanh(0.5) = 0.5493, se sqrt(1.06 / 16) = 0.2574, so the
    95% interval is tanh(0.5493 -+ 0.5045) = [0.0448, 0.7833]."""
    rows = [{"queue": "droptail", "buffer": 5, "window": w, "samples": 40, "rho": 0.5}
            for w in range(19)]  # fmt: skip
    found = pclaims.signalled_claims(pd.DataFrame(rows), 30)["signalled-droptail-5"].book
    assert (found.low, found.high) == pytest.approx((0.0448, 0.7833), abs=1e-4)


def test_red_signalled_check_fails_when_no_buffer_rises(quick) -> None:
    table = quick["signalled"]
    assert set(table["queue"]) == {"droptail", "red"}
    items = {e.key: e for e in ledger.chapter_entries("packets")}

    def status(t: pd.DataFrame) -> str:
        found = pclaims.signalled_claims(t, packets.PacketsParams.quick().signal_min_samples)
        return ledger.judge_with(
            items["signalled-red"], {"signalled-red": found["signalled-red"]}
        ).status

    assert status(table) == "reproduced"
    assert status(table.assign(rho=-table["rho"].abs())) == "differs"


def test_a_hold_of_one_rtt_double_signals_under_largest_rate(quick) -> None:
    """The selected connection slows down one RTT after its drop: a hold of one RTT lets the
    dropper hit it again (lost retransmission, time-out); the chapter's hold does not."""
    table = quick["hold"].set_index(["flows", "select", "hold_rtts"])
    n = int(quick["hold"]["flows"].min())
    chosen = packets.PacketsParams.quick().hold_rtts
    short, long = table.loc[(n, "largest", 1.0)], table.loc[(n, "largest", chosen)]
    assert short["timeouts"] > 5 * max(long["timeouts"], 1)
    assert short["utilisation"] < long["utilisation"]


def test_the_drop_log_shows_the_dropper_hitting_one_connection_per_event(quick) -> None:
    first = quick["events"][quick["events"]["m"] == 1].set_index("queue")
    assert first.loc["threshold", "mean_m_drops"] < 1.2  # ONE, seen at the queue itself
    assert first.loc["droptail", "mean_m_drops"] > 2.0  # DropTail b = 5 drops several
    assert (first["events_drops"] > 0).all()


def test_policy_gap_is_welch_t_on_the_replicas() -> None:
    table = pd.DataFrame(
        {
            "flows": 4,
            "select": ["random"] * 3 + ["largest"] * 3,
            "utilisation": [0.90, 0.91, 0.92, 0.88, 0.89, 0.90],
            "theorem1": 0.923,
        }
    )
    gap = packets.policy_gap(table).iloc[0]
    assert gap["difference"] == pytest.approx(-0.02)
    # equal variances 1e-4 and 3 replicas each: se = sqrt(2e-4 / 3), 4 degrees of freedom
    assert gap["half_width"] == pytest.approx(2.776 * (2e-4 / 3) ** 0.5)
    assert gap["replicas"] == 3


def test_loss_checks_fail_when_the_rate_is_off() -> None:
    table = _shipped("loss")
    item = next(e for e in ledger.chapter_entries("packets") if e.key == "loss-formula")
    good = ledger.judge_with(item, pclaims.loss_claims(table))
    assert len(good.checks) == 2 and good.status == "reproduced"
    # a flow 30% faster than the square-root law is outside the ratio's 95% interval
    fast = table.assign(vs_mathis=table["vs_mathis"] * 1.3, vs_padhye=table["vs_padhye"] * 1.3)
    assert {c.status for c in ledger.judge_with(item, pclaims.loss_claims(fast)).checks} == {
        "differs"
    }


def test_loss_rates_follow_the_formulas_in_the_shipped_data() -> None:
    table = _shipped("loss")
    assert table["p"].is_monotonic_increasing and table["rate_pps"].is_monotonic_decreasing
    # each arrival is dropped independently with probability p: the drop rate after the
    # warm-up is a binomial proportion (arrivals: the run's share of them after the warm-up);
    # every row within its band at 0.1% / rows false alarms
    params = packets.PacketsParams()
    measured = table["packets"] * params.loss_duration / (params.warmup + params.loss_duration)
    for p, n, rate in zip(table["p"], measured, table["drop_rate"], strict=True):
        assert abs(rate - p) <= proportion_bound(int(n), p, 1e-3 / len(table)), (p, rate)
    small = table[table["p"] <= pclaims.MATHIS_MAX_P]
    assert (small["vs_mathis"] - 1).abs().max() <= pclaims.LOSS_TOLERANCE
    assert (table["vs_padhye"] - 1).abs().max() <= pclaims.LOSS_TOLERANCE


def test_signal_samples_take_the_window_just_before_each_event() -> None:
    # flow 0 halves at t = 1.0 and t = 5.0; flow 1 halves at t = 1.02 (same event) only
    cwnd = pd.DataFrame(
        {
            "time": [0.0, 0.5, 1.0, 0.0, 0.9, 1.02, 4.0, 5.0],
            "flow": [0, 0, 0, 1, 1, 1, 0, 0],
            "cwnd": [4.0, 12.0, 6.0, 2.0, 3.0, 1.5, 9.0, 4.5],
        }
    ).sort_values(["flow", "time"], kind="stable")
    samples = psignals.signal_samples(cwnd, start=0.0, gap=0.06, merge=0.24)
    columns = ["event", "flow", "window", "signalled"]
    rows = sorted(samples[columns].itertuples(index=False, name=None))
    assert rows == [(0, 0, 12.0, True), (0, 1, 3.0, True), (1, 0, 9.0, True), (1, 1, 1.5, False)]


def test_spearman_rank_correlation() -> None:
    assert psignals.spearman([1, 2, 3, 4], [10, 20, 25, 100]) == pytest.approx(1.0)
    assert psignals.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert psignals.spearman([1, 2, 3], [1, 1, 1]) != psignals.spearman([1, 2, 3], [1, 1, 1])  # nan
    assert psignals.spearman([1, 2], [1, 2]) != psignals.spearman([1, 2], [1, 2])


def test_signalled_check_fails_when_z_falls_with_the_window(quick) -> None:
    table = quick["signalled"]
    item = next(e for e in ledger.chapter_entries("packets") if e.key == "signalled-droptail")
    minimum = packets.PacketsParams.quick().signal_min_samples

    def droptail(t: pd.DataFrame) -> dict:
        found = pclaims.signalled_claims(t, minimum)
        return {k: c for k, c in found.items() if item.covers(k)}

    assert ledger.judge_with(item, droptail(table)).status in ("reproduced", "undecided")
    assert (table.groupby("buffer")["rho"].first() > 0).all()
    assert ledger.judge_with(item, droptail(table.assign(rho=-table["rho"]))).status == "differs"
    assert table["z"].between(0, 1).all() and (table["hits"] <= table["samples"]).all()


def test_congestion_events_are_clumped_by_the_gap() -> None:
    signals = pd.DataFrame({"time": [0.0, 0.01, 0.02, 1.0, 2.0, 2.01], "flow": [0, 1, 0, 3, 4, 4]})
    assert psignals.congestion_events(signals, gap=0.06).tolist() == [2, 1, 1]
    assert psignals.congestion_events(signals, gap=5.0).tolist() == [4]


def test_loss_signals_merge_one_recovery() -> None:
    cwnd = pd.DataFrame(
        {"time": [0.0, 1.0, 1.1, 1.2, 3.0], "flow": 0, "cwnd": [10.0, 8.0, 6.0, 5.0, 2.0]}
    )
    assert psignals.loss_signals(cwnd, merge=0.24)["time"].tolist() == [1.0, 3.0]


def test_quick_params_are_smaller_than_full() -> None:
    full, small = packets.PacketsParams(), packets.PacketsParams.quick()
    assert small.duration < full.duration and len(small.flows) < len(full.flows)


def test_charts_render_and_stay_small(quick) -> None:
    built = [
        charts.throughput_chart(quick["droptail"], title="DropTail"),
        charts.threshold_chart(quick["threshold"]),
        charts.hold_chart(quick["hold"]),
        charts.sum_windows_chart(quick["windows"]),
        charts.windows_chart(quick["windows"], "droptail", 5, 10),
        charts.events_chart(quick["events"]),
        charts.loss_chart(quick["loss"]),
        charts.signalled_chart(quick["signalled"]),
    ]
    for chart in built:
        assert "<svg" in to_svg(chart)


def test_shipped_window_charts_stay_under_500_kb() -> None:
    windows = _shipped("windows")
    total = len(charts.sum_windows_chart(windows).to_json())
    total += len(charts.windows_chart(windows, "droptail", 5, 10).to_json())
    total += len(charts.windows_chart(windows, "threshold", 100, 10).to_json())
    assert total < 500_000


def test_the_live_panel_runs_the_dumbbell_and_explains_itself_on_a_static_page() -> None:
    from tcplab.chapters.packets import panel as wp

    frame, numbers = wp.dumbbell_live(4, "threshold", 100, "largest", seconds=5.0)
    assert set(frame["flow"]) == {-1, 0, 1, 2, 3}
    total = frame[frame["flow"] == -1].set_index("time")["cwnd"]
    each = frame[frame["flow"] >= 0].groupby("time")["cwnd"].sum()
    pd.testing.assert_series_equal(total, each, check_names=False)
    assert frame["time"].max() == pytest.approx(5.0)
    assert 0.5 < numbers["utilisation"] <= 1.001
    assert numbers["theorem1"] == pytest.approx(1 - 1 / 13)
    assert 1.0 <= numbers["mean_signalled"] < 1.5  # the dropper signals about one per event
    panel = wp.packets_panel()
    assert "tcplab-live-note" in panel._repr_mimebundle_()["text/html"]
    with pytest.raises(ValueError, match="select='fastest'"):
        wp.dumbbell_live(select="fastest")
    with pytest.raises(ValueError, match="seconds=0"):
        wp.dumbbell_live(seconds=0)
    with pytest.raises(ValueError, match="flows=0"):
        wp.dumbbell_live(flows=0)


def test_run_setup_refuses_dropper_options_for_other_queues() -> None:
    with pytest.raises(ValueError, match="only apply to queue='threshold'"):
        packets.run_setup(
            packets.PacketsParams(), 2, "droptail", 10, duration=2.0, warmup=1.0, select="largest"
        )


class _RecordingExecutor:
    """An executor (tcplab.tasks.Executor) that runs in this process and records the sweeps."""

    def __init__(self) -> None:
        self.sent: list[int] = []

    def run(self, function, tasks, done):
        self.sent.append(len(tasks))
        results = []
        for task in tasks:
            results.append(function(task))
            done()
        return results


def test_the_chapters_sweeps_go_through_run_tasks() -> None:
    """``run_all`` hands its seeded jobs to tcplab.tasks.run_tasks, so an executor set by
    ``--cluster``/``--scheduler`` (here one that records) runs them; same rows as locally."""
    from tcplab.tasks import executing_on

    params = dataclasses.replace(
        packets.PacketsParams.quick(), loss_rates=(0.02, 0.05), loss_duration=30.0, warmup=5.0
    )
    local = packets.loss(params, 3)
    executor = _RecordingExecutor()
    with executing_on(executor):
        remote = packets.loss(params, 3)
    assert executor.sent == [2]
    pd.testing.assert_frame_equal(remote, local)
