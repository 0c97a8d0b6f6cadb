"""Live panel of the microscope: drop any packets, pick a sender, watch every event.

Type the packets to drop (a packet listed twice also loses its first retransmission), pick
Tahoe, Reno, NewReno or weighted AIMD (with its increase ``a`` and decrease factor ``beta``),
the receiver window and the transfer's length; the panel runs ``tcplab trace``'s model and
redraws the sequence-number and window traces side by side, titled with the run's totals and
whether the rules replayed by hand (:mod:`.replay`) give the same trace. Like every panel of
the book (:mod:`tcplab.widgets`) it reruns the model when a Jupyter kernel is attached; on the
static page the same :class:`~tcplab.panels.PanelSpec` runs in the reader's browser
(:mod:`tcplab.inbrowser`, Pyodide).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import altair as alt

from tcplab.checks import check_int
from tcplab.packet.trace import run_trace
from tcplab.panels import Control, PanelSpec

from .charts import trace_chart
from .experiments import case_label
from .replay import first_difference, replay

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["draw", "microscope_panel", "microscope_spec", "parse_drops", "traced"]

SENDERS = ("tahoe", "reno", "newreno", "aimd")


def parse_drops(text: str, packets: int) -> tuple[int, ...]:
    """``"14, 26, 28"`` (commas or spaces) as packet numbers in [0, packets - 1]."""
    words = [word for word in re.split(r"[,\s;]+", text.strip()) if word]
    drops = []
    for word in words:
        try:
            seq = int(word)
        except ValueError:
            raise ValueError(f"drop={word!r} is not a packet number") from None
        drops.append(check_int("drop", seq, 0, packets - 1))
    return tuple(drops)


def traced(
    tcp: str,
    drops: tuple[int, ...],
    window: int,
    packets: int,
    a: float = 1.0,
    beta: float = 0.5,
) -> tuple[alt.HConcatChart, str | None]:
    """The chart of one run of the model, and where the rules' replay parts from it (None if
    nowhere)."""  # fmt: skip
    trace = run_trace(tcp, drops, packets=packets, window=window, a=a, beta=beta)
    rules = replay(tcp, drops, packets=packets, window=window, a=a, beta=beta)
    differs = first_difference(trace.events, rules.events)
    done = trace.completion_s
    title = [
        f"{tcp}, drops {case_label(drops) or 'none'}, window {window}: "
        f"{_count(trace.fast_retransmits, 'fast retransmit')}, "
        f"{_count(trace.timeouts, 'time-out')}, {_count(trace.retransmits, 'retransmission')}",
        ("never completes" if done is None else f"done at {done:.3f} s")
        + ("; the rules replayed by hand give the same trace" if differs is None
           else f"; the rules differ at {differs}"),
    ]  # fmt: skip
    return trace_chart(trace.events, title=title), differs


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def draw(
    drops: str, tcp: str, window: int, packets: int, a: float, beta: float
) -> alt.HConcatChart:
    """The traces of one transfer of ``packets`` with the packets ``drops`` (text) lost;
    ``a`` and ``beta`` count for the ``aimd`` sender only (the others are Reno's 1 and 1/2)."""
    packets, aimd = int(packets), tcp == "aimd"
    chart, _ = traced(
        tcp,
        parse_drops(drops, packets),
        int(window),
        packets,
        a=a if aimd else 1.0,
        beta=beta if aimd else 0.5,
    )
    return chart


def microscope_spec(tcp: str = "reno", drops: str = "14, 26, 28", window: int = 28) -> PanelSpec:
    """The panel's controls (the drop list, the sender, the window, the transfer's length,
    AIMD's a and beta) and its drawing."""
    return PanelSpec(
        (
            Control.text("drops", "drop packets", drops),
            Control.choice("tcp", "sender", SENDERS, tcp),
            Control("window", "window", 1, 64, 1, window, kind="int"),
            Control("packets", "packets", 10, 300, 1, 100, kind="int"),
            Control("a", "a", 0.25, 4.0, 0.25, 1.0, when=("tcp", "aimd")),
            Control("beta", "β", 0.1, 0.9, 0.05, 0.5, when=("tcp", "aimd")),
        ),
        draw,
        "Type the packets to drop, pick a sender and a window; the model reruns the transfer.",
    )


def microscope_panel(tcp: str = "reno", drops: str = "14, 26, 28", window: int = 28) -> LivePanel:
    """A drop list, a sender menu, the window, the transfer's length, and AIMD's a and beta.
    On the static page it can run in the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(
        microscope_spec(tcp, drops, window),
        browser=microscope_spec,
    )
