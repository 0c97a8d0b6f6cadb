"""The what-if queues and senders of the many-flows chapter, each against its definition.

Morris's RED choices (``tcplab.chapters.morris.runs.morris_queue`` and ``CHOICES``), the capped
RED of the no-forced-drops what-if (``tcplab.chapters.morris.queue``) and the remedies as the
chapter names them (``tcplab.packet.remedies.REMEDIES``), on tiny deterministic scenarios. The
expectations come from the definitions: Floyd and Jacobson (1993) for RED's average and drop
probability, ns-2's ``wait_`` for the spacing of drops, Morris (1997) Figure 2 for the
thresholds and Sections 7.1-7.2 for the remedies. Nothing here is random (the drop decisions
read a stand-in for the random stream that returns one chosen number), so no check can raise
a false alarm.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import simpy
from test_morris_senders import BASE, Logged, _waits, one_flow

from tcplab.chapters.morris import topology
from tcplab.chapters.morris.experiments import CHOICES
from tcplab.chapters.morris.queue import CappedRED, capped
from tcplab.chapters.morris.runs import (
    RED_DEFAULTS,
    SENDERS,
    morris_queue,
    morris_setup,
    morris_tcp,
)
from tcplab.packet import DropTail, Link, Receiver
from tcplab.packet.queues import RED
from tcplab.packet.remedies import REMEDIES, RemedySender, remedy_config
from tcplab.packet.sack import SackSender

BUFFER = 217  # Morris's Figure 2: router A's buffer (packets)
MIN_TH, MAX_TH, MAX_P = 54.0, 108.0, 0.002  # buffer/4, buffer/2, and Figure 2's max_p


class Constant:
    """A stand-in for RED's random stream: every uniform it draws is ``u``."""

    def __init__(self, u: float) -> None:
        self.u = u

    def random(self, n: int) -> np.ndarray:
        return np.full(n, self.u)


def _red(**choice: Any) -> RED:
    """Router A's RED as the chapter builds it, with ``choice`` (a CHOICES ``red`` entry)."""
    discipline = morris_queue("red", BUFFER, **choice).build(
        np.random.default_rng(0), np.random.default_rng(1), 1e-3
    )
    assert isinstance(discipline, RED)
    return discipline


def _first_drop(red: RED, avg: float, u: float, waiting: int = 60, limit: int = 5000) -> int:
    """With the average held at ``avg`` and every uniform ``u``: the arrival (1, 2, ...) at
    which RED first drops, ``waiting`` packets queued at each; 0 if none within ``limit``."""
    red.rng = Constant(u)  # type: ignore[assignment]
    red.count, red._next = 0, 0
    red._uniforms = np.empty(0)
    for arrival in range(1, limit + 1):
        red.avg = avg
        if red._decide(waiting):
            return arrival
    return 0


def _floyd_jacobson_first_drop(p_b: float, u: float, wait: bool) -> int:
    """The first arrival k at which u < p_a(k), solved from the definitions (not the code):
    without wait, p_a = p_b / (1 - k p_b) (Floyd and Jacobson 1993, Section 7), so k > 1/p_b
    - 1/u; with ns-2's wait, nothing until k p_b >= 1, then p_a = p_b / (2 - k p_b), so
    k > 2/p_b - 1/u and k >= 1/p_b."""
    bound = (2.0 if wait else 1.0) / p_b - 1.0 / u
    first = math.floor(bound) + 1
    return max(first, math.ceil(1.0 / p_b - 1e-9) if wait else 1, 1)


# --- Morris's RED and the choices the paper leaves open --------------------------------------


def test_router_a_is_figure_2s_red_with_ns2s_defaults() -> None:
    red = _red()
    assert (red.buffer, red.min_th, red.max_th, red.max_p) == (BUFFER, MIN_TH, MAX_TH, MAX_P)
    assert (red.w_q, red.wait, red.gentle) == (0.002, True, False)  # ns-2's defaults
    assert RED_DEFAULTS == {"max_p": MAX_P, "w_q": 0.002, "wait": True}
    other = morris_queue("red", 1000).build(np.random.default_rng(0), None, 1e-3)
    assert (other.min_th, other.max_th) == (250.0, 500.0)  # a quarter and half of any buffer
    droptail = morris_queue("droptail", BUFFER).build(np.random.default_rng(0), None, 1e-3)
    assert isinstance(droptail, DropTail) and droptail.buffer == BUFFER


@pytest.mark.parametrize("name", [name for name, options in CHOICES.items() if "red" in options])
def test_each_red_choice_changes_only_what_it_names(name: str) -> None:
    choice = CHOICES[name]["red"]
    red, base = _red(**choice), _red()
    for field in ("buffer", "min_th", "max_th", "max_p", "w_q", "wait", "gentle"):
        expected = choice.get(field, getattr(base, field))
        assert getattr(red, field) == expected, (name, field)


@pytest.mark.parametrize("w_q", [0.001, 0.002, 0.004])  # the chapter's choices and its own
def test_the_average_is_floyd_and_jacobsons_moving_average(w_q: float) -> None:
    """avg <- (1 - w_q) avg + w_q q at each arrival: from 0, n arrivals that each find q
    packets leave avg = q (1 - (1 - w_q)^n) (q = 50 < min_th: no drop disturbs it)."""
    red = _red(w_q=w_q)
    for _ in range(500):
        assert red.admit(50, 0.0, -1.0)
    assert red.avg == pytest.approx(50 * (1 - (1 - w_q) ** 500), rel=1e-12)


@pytest.mark.parametrize("wait", [True, False])  # ns-2's wait_ (the chapter's), and without
@pytest.mark.parametrize(("avg", "u"), [(81.0, 0.3), (67.5, 0.3), (100.0, 0.7), (81.0, 1e-4)])
def test_the_first_drop_follows_floyd_and_jacobsons_rule(avg: float, u: float, wait: bool) -> None:
    """At average queue ``avg`` between the thresholds, p_b = max_p (avg - min_th) /
    (max_th - min_th) (0.001 at 81, midway); the arrival RED drops first, with every uniform
    u, is the one the count-based p_a gives (at 81 and u = 0.3: the 997th without wait,
    the 1997th with it, its drops spaced between 1/p_b and 2/p_b arrivals)."""
    p_b = MAX_P * (avg - MIN_TH) / (MAX_TH - MIN_TH)
    red = _red(wait=wait)
    assert _first_drop(red, avg, u) == _floyd_jacobson_first_drop(p_b, u, wait)
    assert red.early_drops == 1 and red.forced_drops == 0


def test_below_min_th_nothing_drops_and_above_max_th_every_arrival_does() -> None:
    red = _red()
    assert _first_drop(red, MIN_TH - 0.01, 0.0) == 0  # p_b = 0: never, whatever the uniform
    assert _first_drop(red, MAX_TH, 0.999) == 1  # forced (ns-2's RED, the chapter's runs)
    assert red.forced_drops == 1 and red.early_drops == 0


# --- the what-if: RED without forced drops above max_th --------------------------------------


def test_capped_red_keeps_reds_parameters_and_random_stream() -> None:
    red = _red()
    twin = capped(red)
    assert isinstance(twin, CappedRED) and twin.rng is red.rng
    for field in ("buffer", "min_th", "max_th", "max_p", "w_q", "wait", "gentle", "mean_pkt_time"):
        assert getattr(twin, field) == getattr(red, field), field


@pytest.mark.parametrize("avg", [MAX_TH, 150.0, 2 * MAX_TH])
def test_capped_red_drops_with_max_p_above_max_th_instead_of_forcing(avg: float) -> None:
    """Above max_th the base probability stays max_p: the first drop is an early one, at
    the arrival Floyd and Jacobson's p_a gives with p_b = max_p (the 997th at u = 0.3)."""
    twin = capped(_red())
    assert _first_drop(twin, avg, 0.3) == _floyd_jacobson_first_drop(MAX_P, 0.3, True) == 997
    assert twin.forced_drops == 0 and twin.early_drops == 1


@pytest.mark.parametrize(("avg", "u"), [(81.0, 0.3), (67.5, 0.3), (100.0, 0.7)])
def test_capped_red_between_the_thresholds_is_red(avg: float, u: float) -> None:
    p_b = MAX_P * (avg - MIN_TH) / (MAX_TH - MIN_TH)
    assert _first_drop(capped(_red()), avg, u) == _floyd_jacobson_first_drop(p_b, u, True)
    assert _first_drop(capped(_red()), MIN_TH - 0.01, 0.0) == 0


def test_capped_red_forces_a_drop_only_at_a_full_buffer() -> None:
    twin = capped(_red())
    assert _first_drop(twin, 150.0, 0.999, waiting=BUFFER) == 1
    assert twin.forced_drops == 1 and twin.early_drops == 0
    # one packet short of full: no forced drop, an early one where p_a passes u (k = 999)
    expected = _floyd_jacobson_first_drop(MAX_P, 0.999, True)
    assert _first_drop(twin, 150.0, 0.999, waiting=BUFFER - 1) == expected == 999
    assert twin.forced_drops == 1 and twin.early_drops == 1


def test_the_choice_runs_router_as_red_capped_and_needs_red(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert CHOICES["RED: no forced drops above max_th"] == {"red_forced": False}
    made: list[CappedRED] = []

    def recorded(red: RED) -> CappedRED:
        made.append(capped(red))
        return made[-1]

    monkeypatch.setattr(topology, "capped", recorded)
    for forced in (True, False):
        setup = morris_setup(2, seconds=2.0, warmup=1.0, telnet=0, red_forced=forced)
        setup.topology.run(setup)
    assert len(made) == 1  # only the what-if's run
    assert (made[0].min_th, made[0].max_th, made[0].max_p) == (MIN_TH, MAX_TH, MAX_P)
    setup = morris_setup(2, queue="droptail", seconds=2.0, warmup=1.0, red_forced=False)
    with pytest.raises(ValueError, match="red_forced=False needs a RED queue"):
        setup.topology.run(setup)


# --- Morris's remedies, as the chapter names them --------------------------------------------


def test_backoff4_multiplies_each_repeated_timeout_by_four() -> None:
    """Section 7.1's larger back-off constant, the chapter's 4: the first packet lost five
    times gives time-outs of 1, 4, 16, 64 and 64 s (1 s: the minimum; 64 s: max_rto)."""
    config = remedy_config("backoff4", BASE)
    assert config.backoff_factor == REMEDIES["backoff4"]["backoff_factor"] == 4.0
    sender, _, _ = one_flow(Logged, config, [0] * 5, 1 + 4 + 16 + 64 + 64 + 2.0)
    assert _waits(sender) == pytest.approx([1.0, 4.0, 16.0, 64.0, 64.0])


class Watched(RemedySender):
    """A remedy sender that records (packets acknowledged, cwnd) after each ACK."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log: list[tuple[int, float]] = []

    def on_ack(self, event: Any) -> None:
        super().on_ack(event)
        self.log.append((self.snd_una, self.cwnd))


def _slow_growth_log(ssthresh: float) -> list[tuple[int, float]]:
    """One loss-free flow with the chapter's slow growth (D = 100) and ``ssthresh``."""
    config = remedy_config("slowgrowth", replace(BASE, initial_ssthresh=ssthresh))
    assert config.doubling_packets == REMEDIES["slowgrowth"]["doubling_packets"] == 100.0
    env = simpy.Environment()
    back = Link(env, None, 0.05, name="ack")
    path = Link(env, 10e6, 0.05, DropTail(1000), name="path")
    sender = Watched(env, 0, config, path.send)
    receiver = Receiver(env, 0, back.send)
    path.dst, back.dst = receiver.on_packet, sender.on_ack
    sender.start()
    env.run(until=20.0)
    return sender.log


def test_slow_growth_binds_only_while_the_window_is_small() -> None:
    """Section 7.2: the window doubles at most every D = 100 packets, standard TCP's increase
    kept where it is smaller. In congestion avoidance (ssthresh 6) an ACK allows at most a
    factor 2^(1/100), i.e. + W (2^(1/100) - 1), against TCP's + 1/W: the cap binds below
    W* = (2^(1/100) - 1)^(-1/2) = 11.99 packets, where cwnd = 2^(A/100) after A packets
    acknowledged (it did from the first packet on: slow start is capped too), and above W*
    the window grows as TCP's, + 1/W per ACK."""
    w_star = (2.0 ** (1 / 100) - 1) ** -0.5
    assert w_star == pytest.approx(11.99, abs=0.01)
    log = _slow_growth_log(6.0)
    small = [(acked, w) for acked, w in log if w < w_star - 0.1]
    large = [(a, b) for a, b in zip(log, log[1:], strict=False) if a[1] > w_star + 0.1]
    assert len(small) > 300 and len(large) > 300
    assert all(w == pytest.approx(2.0 ** (acked / 100), rel=1e-9) for acked, w in small)
    assert all(b[1] - a[1] == pytest.approx(1.0 / a[1], rel=1e-9) for a, b in large)
    # and never, small or large, more than doubled per 100 packets acknowledged
    assert all(
        b[1] <= a[1] * 2 ** ((b[0] - a[0]) / 100) * (1 + 1e-12)
        for a, b in zip(log, log[1:], strict=False)
    )


@pytest.mark.parametrize("name", SENDERS)
def test_each_sender_of_the_chapter_is_built_with_its_rule(name: str) -> None:
    """Figure 2's Tahoe (and the other variants the chapter compares) with Morris's timers,
    and Tahoe with each remedy: the remedy's sender, whose settings are REMEDIES'."""
    config = morris_tcp(name)
    variant, _, remedy = name.partition("-")
    assert config.variant == variant and (config.granularity, config.min_rto) == (0.5, 1.0)
    assert (config.packet_bytes, config.max_window) == (576, 65536 // 576)
    built = topology.sender_class(config)
    if remedy:
        assert issubclass(built, RemedySender) and config.remedies
        for field, value in REMEDIES[remedy].items():
            assert getattr(config, field) == value
    else:
        assert not issubclass(built, RemedySender)
        assert issubclass(built, SackSender) == (variant == "sack")
