"""Live panel of the microscope: drop any packets, pick a sender, watch every event.

Type the packets to drop (a packet listed twice also loses its first retransmission), pick
Tahoe, Reno, NewReno or weighted AIMD (with its increase ``a`` and decrease factor ``beta``),
the receiver window and the transfer's length; the panel runs ``tcplab trace``'s model and
redraws the sequence-number and window traces side by side, titled with the run's totals and
whether the rules replayed by hand (:mod:`.replay`) give the same trace. Like every panel of
the book (:mod:`tcplab.widgets`) it needs a kernel and shows a note on the static page.
"""

from __future__ import annotations

import re

import altair as alt
import ipywidgets as w

from tcplab.checks import check_int
from tcplab.packet.trace import run_trace
from tcplab.widgets import LivePanel, live_panel

from .charts import trace_chart
from .experiments import case_label
from .replay import first_difference, replay

__all__ = ["microscope_panel", "parse_drops", "traced"]


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


def microscope_panel(tcp: str = "reno", drops: str = "14, 26, 28", window: int = 28) -> LivePanel:
    """A drop list, a sender menu, the window, the transfer's length, and AIMD's a and beta."""
    style = {"description_width": "initial"}
    drops_box = w.Text(drops, description="drop packets", style=style, continuous_update=False)
    sender = w.Dropdown(
        options=["tahoe", "reno", "newreno", "aimd"], value=tcp, description="sender",
        style=style,
    )  # fmt: skip
    window_slider = w.IntSlider(window, min=1, max=64, description="window", style=style)
    packets_slider = w.IntSlider(100, min=10, max=300, description="packets", style=style)
    a_slider = w.FloatSlider(1.0, min=0.25, max=4.0, step=0.25, description="a", style=style)
    beta_slider = w.FloatSlider(0.5, min=0.1, max=0.9, step=0.05, description="β", style=style)

    def aimd_only(_: object = None) -> None:
        a_slider.disabled = beta_slider.disabled = sender.value != "aimd"

    sender.observe(aimd_only, names="value")
    aimd_only()

    def redraw() -> alt.HConcatChart:
        packets = packets_slider.value
        aimd = sender.value == "aimd"
        chart, _ = traced(
            sender.value,
            parse_drops(drops_box.value, packets),
            window_slider.value,
            packets,
            a=a_slider.value if aimd else 1.0,
            beta=beta_slider.value if aimd else 0.5,
        )
        return chart

    controls = [drops_box, sender, window_slider, packets_slider, a_slider, beta_slider]
    return live_panel(
        controls,
        redraw,
        "Type the packets to drop, pick a sender and a window; the model reruns the transfer.",
    )
