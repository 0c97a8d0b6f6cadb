"""The packet chapter's sweeps rerun with TCP-SACK (``packets-sack``): the reruns are the
chapter's own runs with the variant swapped, and SACK does not move the throughput by more
than the resolution at which the chapter compares the packet model with the paper."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from tcplab import ledger, registry
from tcplab.chapters.packets import charts, reruns, variants
from tcplab.chapters.packets import claims as pclaims
from tcplab.chapters.packets import sack as psack
from tcplab.chapters.packets.experiments import PacketsParams
from tcplab.chapters.packets.runs import _one
from tcplab.charts import to_svg

from stat_tools import t_half_width


def _shipped() -> dict[str, pd.DataFrame]:
    return ledger.full_tables("packets")


@pytest.fixture(scope="module")
def quick() -> dict[str, pd.DataFrame]:
    return registry.run_all(pclaims.TABLES, scale="quick")


def test_the_rebuilt_jobs_are_the_chapters_runs_seed_for_seed(quick) -> None:
    """Run back as NewReno, a rebuilt job gives exactly the chapter's row: same set-up and
    seed (the reference is the chapter's own experiment, not this module)."""
    jobs = psack.sweep_jobs(PacketsParams.quick(), 0)
    for sweep, index in (("droptail", 3), ("red", 6), ("threshold", 5)):
        work = psack.with_variant(jobs[sweep][index], "newreno")
        row = _one(work).row
        table = quick[f"packets-{sweep}"]
        assert len(table) == len(jobs[sweep])
        assert row["utilisation"] == table.iloc[index]["utilisation"]
        assert row["timeouts"] == table.iloc[index]["timeouts"]


def test_the_whole_reruns_are_the_chapters_experiments_with_the_variant_swapped() -> None:
    """``packets-sack-events``, ``-signalled`` and ``-loss`` call the chapter's own functions
    with the chapter's parameters, only ``variant`` changed (so same jobs, same seeds)."""
    for scale, chapter in (("quick", PacketsParams.quick()), ("full", PacketsParams())):
        params = registry.REGISTRY[variants.SACK_LOSS_TABLE].parameters(scale)
        assert params.chapter() == dataclasses.replace(
            chapter, variant="sack", workers=params.workers
        )
        back = dataclasses.replace(params, variant="newreno", workers=chapter.workers)
        assert back.chapter() == chapter
    for name in variants.RERUNS.values():
        assert registry.REGISTRY[name].parameter_class() is reruns.VariantParams


def test_the_event_reruns_are_the_chapters_event_runs_seed_for_seed(quick) -> None:
    """As NewReno, the event rerun gives the chapter's ``packets-events`` table, row for row."""
    params = dataclasses.replace(reruns.VariantParams.quick(), variant="newreno")
    back = reruns.sack_events(params, 0)
    assert set(back["tcp"]) == {"newreno"}
    pd.testing.assert_frame_equal(back.drop(columns="tcp"), quick["packets-events"])


def test_the_sack_reruns_have_the_chapters_rows(quick) -> None:
    """Each SACK rerun has the rows of its NewReno table (same queues, buffers, p), SACK."""
    for name, rerun in variants.RERUNS.items():
        sack = quick[rerun]
        assert set(sack["tcp"]) == {"sack"}
        assert list(sack.columns[1:]) == list(quick[name].columns)
    # at quick scale a sub-grid: one buffer per queue, two loss rates, each run seeded as in
    # the whole sweep; so the NewReno rows they pair with are the chapter's own at those runs
    params = reruns.VariantParams.quick()
    signalled = quick[variants.SACK_SIGNALLED_TABLE].groupby(["queue", "buffer"]).size()
    assert list(signalled.index) == list(params.signal_points)
    assert list(quick[variants.SACK_LOSS_TABLE]["p"]) == list(params.loss_rates)
    for name in variants.RERUNS:
        newreno = variants.variant_table(quick, name, "newreno")
        keys = ["p"] if name == "packets-loss" else ["queue", "buffer"]
        whole = quick[name].merge(newreno[keys].drop_duplicates(), on=keys)
        pd.testing.assert_frame_equal(newreno, whole)


def test_with_variant_changes_the_variant_only() -> None:
    work = psack.sweep_jobs(PacketsParams.quick(), 0)["droptail"][0]
    swapped = psack.with_variant(work, "sack")
    assert swapped.setup.tcp.variant == "sack"
    assert dataclasses.replace(swapped.setup.tcp, variant="newreno") == work.setup.tcp
    assert swapped.setup.seed == work.setup.seed
    assert swapped.setup.topology == work.setup.topology
    assert swapped.setup.queue == work.setup.queue


def test_the_shipped_reruns_are_sack_at_the_chapters_points() -> None:
    tables = _shipped()
    sack = tables[variants.SACK_TABLE]
    assert set(sack["tcp"]) == {"sack"}
    pairs = variants.paired(tables)
    assert len(pairs) == len(sack)  # every SACK row has its NewReno row
    params = psack.SackParams()
    expected = len(params.flows) * (len(params.droptail_buffers) + len(params.red_buffers))
    expected += len(params.threshold_flows) * len(params.thresholds) * len(params.selections)
    assert len(sack) == expected


# The chapter compares the packet model with the paper's curves at UTIL_TOLERANCE (a few per
# cent: finite buffers, finite runs, the resolution of the paper's figures). Changing the
# variant must not move the mean throughput by that much: the two-sided 95% Student-t
# interval of the mean paired difference (SACK minus NewReno, same set-up and seed) lies
# inside +-UTIL_TOLERANCE. False alarm: at most 2.5% if the true mean is at the tolerance.
FALSE_ALARM = 0.05


@pytest.mark.parametrize("queue", variants.SWEEPS)
def test_sack_moves_the_throughput_less_than_the_chapters_tolerance(queue: str) -> None:
    pairs = variants.paired(_shipped())
    gain = pairs[pairs["queue"] == queue]["gain"].tolist()
    mean, half = t_half_width(gain, FALSE_ALARM)
    assert abs(mean) + half < pclaims.UTIL_TOLERANCE, (mean, half)


def test_the_gain_test_fails_when_sack_is_off_by_the_tolerance() -> None:
    tables = _shipped()
    shifted = tables[variants.SACK_TABLE].copy()
    shifted["utilisation"] -= pclaims.UTIL_TOLERANCE
    gain = variants.paired({**tables, variants.SACK_TABLE: shifted})["gain"].tolist()
    mean, half = t_half_width(gain, FALSE_ALARM)
    assert not abs(mean) + half < pclaims.UTIL_TOLERANCE


def test_the_sack_checks_read_the_sack_rows(quick) -> None:
    """The SACK reruns' checks (the sweeps' paired differences, the events, Figs. 13-14, the
    loss runs) read the SACK tables; SACK rows far below NewReno's make the book's item "SACK
    moves the throughput by less than a plot reading" differ, and leave NewReno's checks."""
    before = pclaims.chapter_claims(quick)
    low = quick[variants.SACK_TABLE].assign(utilisation=0.5)
    after = pclaims.chapter_claims({**quick, variants.SACK_TABLE: low})
    assert {k for k in after if after[k] != before[k]} == {
        "sack-droptail",
        "sack-red",
        "sack-threshold",
    }
    item = next(e for e in ledger.chapter_entries("packets") if e.key == "sack")
    checks = {k: c for k, c in after.items() if item.covers(k)}
    assert ledger.judge_with(item, checks).status == "differs"
    table = pclaims.variant_verdicts(quick)
    assert list(table.columns) == ["statement", "checks", "newreno", "sack"]


def test_the_variant_chart_renders_small(quick) -> None:
    svg = to_svg(variants.variant_chart(variants.paired(quick)))
    assert svg.startswith("<svg") and len(svg) < 300_000


def test_the_rerun_charts_and_tables_render(quick) -> None:
    loss = variants.both(quick, "packets-loss")
    assert list(dict.fromkeys(loss["tcp"])) == ["NewReno", "SACK"]
    for chart in (
        charts.loss_variants_chart(loss),
        charts.signalled_variants_chart(variants.both(quick, "packets-signalled")),
    ):
        svg = to_svg(chart)
        assert svg.startswith("<svg") and len(svg) < 300_000
    pairs = variants.loss_pairs(quick)
    assert list(pairs["p"]) == list(quick[variants.SACK_LOSS_TABLE]["p"])
    chapter = quick["packets-loss"].set_index("p")["rate_pps"]
    assert (pairs["rate_pps_newreno"] == chapter[pairs["p"]].to_numpy()).all()
    signalled = variants.signalled_pairs(quick)
    assert list(signalled.columns[:2]) == ["queue", "buffer"]
    assert len(signalled) == len(reruns.VariantParams.quick().signal_points)
    assert not signalled.isna().any().any()


def _break(tables: dict[str, pd.DataFrame], name: str, **columns) -> dict[str, pd.DataFrame]:
    """``tables`` with the SACK rerun of ``name`` changed (``columns``: name -> function)."""
    rerun = variants.RERUNS[name]
    changed = tables[rerun].copy()
    for column, change in columns.items():
        changed[column] = change(changed[column])
    return {**tables, rerun: changed}


@pytest.mark.parametrize(
    ("key", "name", "columns", "status"),
    [
        # rho = -0.9 over >= 5 window bins: tanh(atanh(-0.9) + 1.96 sqrt(1.06 / 2)) = -0.75 < 0,
        # so Figs. 13-14's "rises" (rho above 0) differs at every buffer
        ("signalled", "packets-signalled", {"rho": lambda r: r * 0 - 0.9}, "differs"),
        # the quick scale keeps one loss rate within the Mathis formula's range: one run,
        # undecided by the one-run rule whatever its value
        ("mathis", "packets-loss", {"vs_mathis": lambda r: r * 1.4}, "undecided"),
        # two loss rates at 0.6 of the formula: their interval lies below the paper's 1
        ("padhye", "packets-loss", {"vs_padhye": lambda r: r * 0.6}, "differs"),
    ],
)
def test_each_rerun_claim_fails_once_broken(quick, key, name, columns, status) -> None:
    """Each check on Figs. 13-14 and on the random-loss runs reads the SACK rerun: broken
    there its SACK checks move (to the status the rules give by hand), while NewReno's
    checks are unchanged."""
    before = pclaims.chapter_claims(quick)
    after = pclaims.chapter_claims(_break(quick, name, **columns))
    moved = {k for k in after if after[k] != before[k]}
    assert moved and all(k.startswith(f"sack-{key}") for k in moved)
    statuses = ledger.check_statuses("packets", after)
    assert {statuses[k] for k in moved} == {status}


def test_the_sweeps_statements_on_the_sack_points_are_one_run_each() -> None:
    """On the points SACK reran, each variant has one run a point: by the book's rules each
    sweep statement is then undecided (or differs where a point is beyond doubt), with both."""
    table = pclaims.variant_verdicts(_shipped())
    assert list(table["statement"]) == [
        e.ref for k in pclaims.VARIANT_KEYS for e in ledger.chapter_entries("packets") if e.key == k
    ]
    assert set(table["newreno"]) | set(table["sack"]) <= {"undecided", "differs"}


def test_sack_does_not_slow_a_lone_connection_under_red() -> None:
    """Fall and Floyd (1996): with several losses in one window SACK recovers in one round
    trip, NewReno in one per hole, so a lone connection (no one else to fill the link) is not
    slower with SACK; up to the chapter's tolerance for one seeded run."""
    pairs = variants.paired(_shipped())
    lone = pairs[(pairs["queue"] == "red") & (pairs["flows"] == 1)]
    assert len(lone) == len(psack.SackParams().red_buffers)
    assert (lone["gain"] > -pclaims.UTIL_TOLERANCE).all(), lone


def test_sack_signals_larger_windows_at_least_as_clearly_on_the_shipped_data() -> None:
    """The chapter: with SACK the rank correlation of z(w) with w is higher than NewReno's in
    most of the (queue, buffer) runs (a statement about these seeded runs, not a test of a
    rate: each run is one sample), and the share signalled per event moves little."""
    pairs = variants.signalled_pairs(_shipped())
    assert (pairs["rho_sack"] > pairs["rho_newreno"]).sum() > len(pairs) / 2, pairs
    assert (pairs["mean_z_sack"] - pairs["mean_z_newreno"]).abs().max() < 0.05, pairs


# One flow, 2000 s: about 450 (p = 0.0005) to 3800 (p = 0.1) loss cycles per run, whose
# lengths vary by about their mean, so one run's goodput has a relative standard error of at
# most about 5% and the difference of two independent runs about 7%. The chapter says SACK's
# goodput "is NewReno's": within the chapter's 15% loss tolerance of it at every p, two such
# standard errors, a false alarm of at most about 4% per p for independent runs; the two runs
# share their seed (the same drops while they send alike), so it is much smaller here.
def test_sack_goodput_under_random_loss_is_newrenos_on_the_shipped_data() -> None:
    pairs = variants.loss_pairs(_shipped())
    ratio = pairs["rate_pps_sack"] / pairs["rate_pps_newreno"]
    assert ((ratio - 1.0).abs() < pclaims.LOSS_TOLERANCE).all(), pairs
    broken = ratio * (1.0 + 2 * pclaims.LOSS_TOLERANCE)
    assert not ((broken - 1.0).abs() < pclaims.LOSS_TOLERANCE).all()


def test_sack_times_out_more_than_newreno_under_random_loss_on_the_shipped_data() -> None:
    """The chapter: under random loss SACK times out more often than NewReno (in all, and at
    most loss rates), as in the sweeps; a statement about these seeded runs. And the model
    gets less than Padhye et al.'s formula at the largest p, with either variant."""
    pairs = variants.loss_pairs(_shipped())
    assert pairs["timeouts_sack"].sum() > pairs["timeouts_newreno"].sum(), pairs
    assert (pairs["timeouts_sack"] > pairs["timeouts_newreno"]).sum() > len(pairs) / 2, pairs
    last = pairs.iloc[-1]
    assert last["vs_padhye_newreno"] < 1 and last["vs_padhye_sack"] < 1, last
