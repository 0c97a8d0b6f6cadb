"""The ns-3 appendix: ns-3's shipped results, their provenance, and the driver that makes them.

ns-3 is not installed with the book, so nothing here runs it: the shipped table
(data/ns3-dumbbell.csv) must cover the whole grid with every seed, come from the script that
is in the repository now (its hash), and obey what any simulation of the dumbbell obeys
(drops within arrivals, goodput within the link's payload rate, Jain's index in [1/N, 1]).
The driver's batching and its retry after a fatal ns-3 error are checked with a stand-in for
ns-3's Python. The comparison's claims are checked by ``test_chapter_claims.py`` at both
scales, as every chapter's.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tcplab import registry
from tcplab.chapters.ns3 import claims, experiments, grid

ROOT = Path(__file__).resolve().parents[1]


def _load_driver():  # noqa: ANN202 (the driver is a script in tools/, loaded from its file)
    spec = importlib.util.spec_from_file_location("ns3_driver", ROOT / "tools/ns3/run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


driver = _load_driver()


@pytest.fixture(scope="module")
def shipped():
    return experiments.ns3_table()


def test_the_shipped_ns3_table_covers_the_grid(shipped):
    """Every scenario of the grid with every seed, but those the metadata says are missing
    (``tools/ns3/run.py --write-partial``), which must be scenarios of the grid."""
    table, meta = shipped
    every = {grid.scenario_key(s) for s in grid.SCENARIOS}
    missing = {tuple(m) for m in meta.get("missing", [])}
    assert missing <= every and len(missing) <= 2
    keys = {(*grid.scenario_key(row), int(row.seed)) for row in table.itertuples()}
    wanted = {(*key, seed) for key in every - missing for seed in grid.SEEDS}
    assert keys == wanted and len(table) == len(wanted) == meta["rows"]
    assert len(grid.SEEDS) >= 3


def test_the_shipped_ns3_table_says_how_it_was_made(shipped):
    _, meta = shipped
    assert meta["ns3_version"].startswith("3.44")
    assert meta["script"] == "tools/ns3/dumbbell.py"
    script = (ROOT / meta["script"]).read_bytes()
    assert meta["script_sha256"] == hashlib.sha256(script).hexdigest(), (
        "tools/ns3/dumbbell.py changed since data/ns3-dumbbell.csv was made: rerun tools/ns3/run.py"
    )
    assert meta["matched"] == grid.MATCHED


def test_the_shipped_ns3_numbers_obey_the_dumbbell(shipped):
    table, _ = shipped
    payload = 10.0 * 1460 / 1500  # the bottleneck's rate, in payload
    span = table["duration"] - table["warmup"]
    assert (table["drops_after_warmup"] <= table["arrivals_after_warmup"]).all()
    # every payload byte received crossed the bottleneck (a little slack: packets queued at
    # the warm-up's end are received in the measured time)
    assert (table["goodput_mbps"] <= payload * (1 + 200 * 1500 * 8 / 10e6 / span)).all()
    # every packet received crossed the bottleneck: at most the packets carried after the
    # warm-up plus those queued or in flight at its end (a buffer and a window's worth)
    received = table["goodput_mbps"] * 1e6 * span / (8 * 1460)
    carried = table["arrivals_after_warmup"] - table["drops_after_warmup"]
    assert (received <= carried + 2 * table["buffer"] + 40).all()
    assert (received > 0).all()
    assert (table["jain_index"] <= 1 + 1e-12).all()
    assert (table["jain_index"] >= 1 / table["flows"] - 1e-12).all()
    per_flow = [json.loads(x) for x in table["per_flow_mbps"]]
    assert [len(x) for x in per_flow] == list(table["flows"])
    assert np.allclose([sum(x) for x in per_flow], table["goodput_mbps"])
    assert (table["mean_queue"] <= table["buffer"]).all()
    red = table[table["queue"] == "red"]
    # ns-3 counts RED's drops as early, forced (average above max_th) or of a full buffer
    assert (red["red_forced_drops"] + red["red_early_drops"] <= red["drops_after_warmup"]).all()


def test_the_comparison_pairs_every_tcplab_row_with_ns3():
    quick = registry.run("ns3-tcplab", scale="quick")
    ns3, meta = experiments.ns3_table()
    table = claims.comparison(quick, ns3)
    done = len(grid.SCENARIOS) - len(meta.get("missing", []))
    assert len(table) == done * len(experiments.TIMERS)
    assert (table["runs_ns3"] == len(grid.SEEDS)).all() and (table["runs_tcplab"] == 1).all()
    for metric in claims.METRICS:
        assert (table[f"{metric}_tolerance"] >= 0).all(), metric


def test_the_two_simulator_rule_combines_the_half_widths():
    """sqrt(h1^2 + h2^2) by hand (3, 4 -> 5), said in the rule's sentence; with three runs on
    each side it is Welch's interval with 2 degrees of freedom (t = 4.303)."""
    made = claims.difference_estimate(10.0, 3.0, 4.0, (3, 3))
    assert made.half_width == pytest.approx(5.0) and made.basis == "interval"
    assert "ns-3's 3 runs ±3" in made.words and "tcplab's 3 runs ±4" in made.words
    assert "one run" in claims.difference_estimate(10.0, 3.0, 4.0, (3, 1)).words
    ours = np.array([1.0, 2.0, 3.0])  # s = 1
    theirs = np.array([2.0, 4.0, 6.0])  # s = 2
    welch = 4.303 * np.sqrt(1.0 / 3 + 4.0 / 3)
    combined = np.hypot(4.303 * 1.0 / np.sqrt(3), 4.303 * 2.0 / np.sqrt(3))
    assert combined == pytest.approx(welch)
    assert claims._half_width(float(ours.var(ddof=1)), 3, 2) == pytest.approx(4.303 / np.sqrt(3))
    assert claims._half_width(float(theirs.var(ddof=1)), 3, 2) == pytest.approx(
        2 * 4.303 / np.sqrt(3)
    )


# -- the driver, with a stand-in for ns-3 -----------------------------------------------------
def stand_in(tmp_path: Path, fail_on_seed: int | None) -> str:
    """A 'python' that runs a fake dumbbell.py: echoes each run, or dies on one seed."""
    fake = tmp_path / "fake_ns3.py"
    fake.write_text(
        textwrap.dedent(f"""
        import json, sys
        runs = json.loads(sys.argv[2])
        for p in runs if isinstance(runs, list) else [runs]:
            if p["seed"] == {fail_on_seed!r}:
                sys.exit("fatal ns-3 error")
            print(json.dumps({{**p, "ok": True}}), flush=True)
    """)
    )
    launcher = tmp_path / "python"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} {fake} "$@"\n')
    launcher.chmod(0o755)
    return str(launcher)


def test_the_driver_runs_a_scenario_s_seeds_in_one_process(tmp_path):
    batch = [grid.SCENARIOS[0].params(seed) for seed in (1, 2, 3)]
    rows = driver.run_batch(stand_in(tmp_path, None), batch, timeout=60)
    assert [r["seed"] for r in rows] == [1, 2, 3] and all(r["ok"] for r in rows)


def test_a_fatal_ns3_error_costs_one_run_and_names_it(tmp_path):
    batch = [grid.SCENARIOS[0].params(seed) for seed in (1, 2, 3)]
    with pytest.raises(RuntimeError, match="'seed': 2"):
        driver.run_batch(stand_in(tmp_path, 2), batch, timeout=60)
    rows = driver.run_batch(stand_in(tmp_path, 2), batch[:1], timeout=60)
    assert [r["seed"] for r in rows] == [1]


# -- what the appendix's prose says of the shipped tables (full scale, both simulators) --------
@pytest.fixture(scope="module")
def full_comparison(shipped):
    from tcplab import cache

    found = cache.load(cache.Entry("ns3-tcplab"))
    assert found is not None, "data/ns3-tcplab.csv is missing: run `tcplab data --only ns3-tcplab`"
    return claims.comparison(found[0], shipped[0]).set_index([*claims.KEYS, "timer"])


def _row(  # noqa: ANN202
    table, queue: str, flows: int, tcp: str, delack: float, timer: str, floor: float = 200.0
):
    return table.loc[(queue, grid.LARGE, flows, tcp, delack, floor, timer)]


def test_ns3_restarts_no_timer_at_a_fast_retransmit_and_times_out_more(full_comparison):
    """The timer section: at 30 SACK flows ns-3 times out more than tcplab with its BSD timer,
    and tcplab with RFC 6298's timer comes closer to ns-3 in time-outs and drops."""
    bsd = _row(full_comparison, "droptail", 30, "sack", 0.0, "bsd")
    rfc = _row(full_comparison, "droptail", 30, "sack", 0.0, "rfc6298")
    assert bsd["timeouts_per_s_ns3"] > 2 * bsd["timeouts_per_s_tcplab"]

    def gap(row, metric: str) -> float:
        return abs(np.log(row[f"{metric}_tcplab"] / row[f"{metric}_ns3"]))

    assert gap(rfc, "timeouts_per_s") < gap(bsd, "timeouts_per_s")
    assert gap(rfc, "drop_rate") < gap(bsd, "drop_rate")


def test_delayed_acks_part_the_simulators_as_the_appendix_says(full_comparison):
    for timer in experiments.TIMERS:
        row = _row(full_comparison, "droptail", 30, "sack", grid.DELAYED_ACK_MS, timer)
        assert row["timeouts_per_s_ns3"] > 2 * row["timeouts_per_s_tcplab"]
        assert row["drop_rate_tcplab"] > row["drop_rate_ns3"]
        assert row["jain_index_ns3"] < row["jain_index_tcplab"] - 0.1


def test_ns3_newreno_without_sack_resends_what_arrived(full_comparison):
    newreno = _row(full_comparison, "droptail", 1, "newreno", 0.0, "bsd")
    sack = _row(full_comparison, "droptail", 1, "sack", 0.0, "bsd")
    assert newreno["duplicate_share_ns3"] > 10 * max(sack["duplicate_share_ns3"], 1e-3)
    assert newreno["goodput_mbps_ns3"] < 0.8 * sack["goodput_mbps_ns3"]
    assert newreno["duplicate_share_tcplab"] < 0.01  # tcplab's NewReno does not


def test_the_heavy_loss_table_has_every_case_tcp_and_timer(full_comparison):
    heavy = claims.heavy_cases(full_comparison.reset_index())
    assert len(heavy) == len(claims.HEAVY) * 2 * len(experiments.TIMERS)
    assert heavy["case"].nunique() == len(claims.HEAVY)
    assert heavy["forced drops tcplab/ns-3"].notna().sum() == 2 * len(experiments.TIMERS)
    measured = heavy.drop(columns=["case", "tcp", "tcplab timer", "forced drops tcplab/ns-3"])
    assert (measured > 0).all().all()


def test_red_s_forced_drops_are_counted_alike_in_both(shipped):
    """tcplab counts a full buffer's drops as forced, ns-3 apart: once normalised, early and
    forced drops make up every drop after the warm-up in both simulators."""
    from tcplab import cache

    ours = cache.load(cache.Entry("ns3-tcplab"))
    assert ours is not None
    for table, simulator in ((shipped[0], "ns-3"), (ours[0], "tcplab")):
        red = claims.normalise(table[table["queue"] == "red"], simulator)
        forced = red["red_forced_per_s"] * red["span"]
        assert np.allclose(forced + red["red_early_drops"], red["drops_after_warmup"]), simulator


def test_a_higher_rto_floor_ends_ns3_s_spurious_time_outs_with_delayed_acks(shipped):
    """The delayed-ACK probe, on ns-3's own runs. A time-out that answers a loss needs a
    dropped packet; one that fires while the ACK is on its way needs none. At the matched
    200 ms floor ns-3's 30 SACK connections time out more often than the bottleneck drops
    packets (so most time-outs are spurious); at 400 ms, above a round trip with a full queue
    plus the receiver's 200 ms delayed-ACK wait (40 + 120 + 200 ms), far less often."""
    table, _ = shipped
    runs = table[(table["delayed_ack_ms"] == grid.DELAYED_ACK_MS) & (table["tcp"] == "sack")]
    low = runs[runs["min_rto_ms"] == 200.0]
    high = runs[runs["min_rto_ms"] == grid.PROBE_MIN_RTO_MS]
    assert len(low) == len(high) == len(grid.SEEDS)
    assert 40 + 120 + grid.DELAYED_ACK_MS < grid.PROBE_MIN_RTO_MS
    assert (low["rto_doublings"] > low["drops_after_warmup"]).all()
    assert (high["rto_doublings"] < high["drops_after_warmup"]).all()


def test_at_the_higher_floor_the_simulators_drop_alike(full_comparison):
    """The probe beside tcplab: at the 400 ms floor tcplab's drop rate is within the 95%
    interval of the difference from ns-3's (at 200 ms it is not), with either of its timers."""
    for timer in experiments.TIMERS:
        low = _row(full_comparison, "droptail", 30, "sack", grid.DELAYED_ACK_MS, timer)
        high = _row(
            full_comparison, "droptail", 30, "sack", grid.DELAYED_ACK_MS, timer,
            floor=grid.PROBE_MIN_RTO_MS,
        )  # fmt: skip
        for row, agree in ((low, False), (high, True)):
            gap = abs(row["drop_rate_tcplab"] - row["drop_rate_ns3"])
            assert (gap <= row["drop_rate_tolerance"]) == agree, (timer, agree)


def test_the_driver_counts_the_shipped_runs_as_done(monkeypatch, tmp_path):
    """Resuming from data/: every shipped run is keyed as the driver keys a scenario of the
    grid, so that only scenarios added to the grid run; a changed script voids them."""
    runs, meta = driver.shipped_runs()
    assert meta is not None and len(runs) == meta["rows"]
    every = {driver.key_of(s.params(seed)) for s in grid.SCENARIOS for seed in grid.SEEDS}
    assert set(runs) == every
    assert all(isinstance(row["per_flow_mbps"], list) for row in runs.values())
    changed = tmp_path / "dumbbell.py"
    changed.write_text("# another script\n")
    monkeypatch.setattr(driver, "SCRIPT", changed)
    assert driver.shipped_runs() == ({}, None)


# -- tcplab's RTO during a run (rto.py) ------------------------------------------------------
def test_the_rto_profile_counts_samples_on_the_floor_by_hand():
    from tcplab.chapters.ns3.rto import RtoProfile

    profile = RtoProfile(np.array([0.2, 0.3, 0.2, 0.41]), np.array([0.1, 0.15, 0.12, 0.2]), 0.2)
    assert profile.at_floor == 0.5
    assert profile.median_rto == 0.25 and profile.median_srtt == 0.135


def test_the_rto_profile_reads_every_sender_s_rto_within_its_clamp():
    """RFC 6298 (2.4) clamps the RTO to its floor; the profile reads the RTO (not the RTT) of
    every sender at every tick once the senders have an RTT sample."""
    from tcplab.chapters.ns3.rto import rto_profile

    scenario = grid.Scenario("droptail", grid.LARGE, 10, "sack", grid.DELAYED_ACK_MS, 400.0)
    profile = rto_profile(scenario, 1, warmup=5.0, duration=10.0, every=0.05)
    assert len(profile.rto) == 10 * 100  # 10 senders, 5 s / 0.05 s ticks
    assert (profile.rto >= 0.4 - 1e-12).all() and (profile.srtt < profile.rto).all()
    assert (profile.srtt > 2 * grid.MATCHED["delay_ms"] / 1e3).all()  # at least the path
    with pytest.raises(ValueError, match="every"):
        rto_profile(scenario, 1, warmup=5.0, duration=10.0, every=0.0)


def test_the_shipped_ns3_rto_runs_are_the_grid_s_delayed_ack_runs_unchanged(shipped):
    """data/ns3-rto.csv: every delayed-ACK run of the grid with 30 SACK flows, made by the
    scripts in the repository now, and (its sampler only reads) with the very counts the
    grid's own runs of dumbbell.py gave; every sampled RTO is at least its floor (RFC 6298,
    2.4), so the share on the floor is that of the samples equal to it."""
    from tcplab.chapters.ns3.rto import ns3_rto_table

    table, meta = ns3_rto_table()
    probe = ROOT / meta["script"]
    assert meta["script_sha256"] == hashlib.sha256(probe.read_bytes()).hexdigest()
    dumbbell = (ROOT / "tools/ns3/dumbbell.py").read_bytes()
    assert meta["dumbbell_sha256"] == hashlib.sha256(dumbbell).hexdigest()
    assert meta["ns3_version"].startswith("3.44")
    wanted = {
        (*grid.scenario_key(s), seed)
        for s in grid.SCENARIOS
        if s.delayed_ack_ms is not None and s.tcp == "sack" and s.flows == 30
        for seed in grid.SEEDS
    }
    assert {(*grid.scenario_key(r), int(r["seed"])) for r in table.to_dict("records")} == wanted
    keys = ["min_rto_ms", "seed"]
    runs = shipped[0][(shipped[0]["delayed_ack_ms"] == grid.DELAYED_ACK_MS)
                      & (shipped[0]["tcp"] == "sack") & (shipped[0]["flows"] == 30)]  # fmt: skip
    both = table.merge(runs, on=keys, suffixes=("", "_grid"))
    assert len(both) == len(table)
    for column in ("drops_after_warmup", "arrivals_after_warmup", "rto_doublings"):
        assert (both[column] == both[f"{column}_grid"]).all(), column
    assert ((table["rto_at_floor"] >= 0) & (table["rto_at_floor"] <= 1)).all()
    assert (table["rto_median_s"] >= table["min_rto_ms"] / 1e3 - 1e-12).all()
    assert (table["rto_ticks"] == 30 * 4000).all()  # 30 senders, 40 s every 10 ms
    # the probe sees every time-out dumbbell.py counts (each doubling of an RTO)
    assert (table["timeouts_seen"] == table["rto_doublings"]).all()
    shares = ["timeouts_one_outstanding", "timeouts_window_one", "timeouts_in_open_state"]
    assert ((table[shares] >= 0) & (table[shares] <= 1)).all().all()
    assert (table["timeout_rto_median_s"] >= table["min_rto_ms"] / 1e3 - 1e-12).all()


def test_every_rto_number_the_appendix_quotes_is_finite():
    import math

    from tcplab.chapters.ns3.rto import ns3_rto_numbers, rto_numbers

    numbers = {**rto_numbers("quick"), **ns3_rto_numbers()}
    assert all(math.isfinite(v) for v in numbers.values()), numbers
    shares = [k for k in numbers if "at_floor" in k or "timeouts_" in k]
    assert shares and all(0 <= numbers[k] <= 1 for k in shares)
