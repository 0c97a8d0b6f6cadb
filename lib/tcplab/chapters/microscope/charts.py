"""Charts of the microscope: a sender's trace as sequence numbers and as its window.

:func:`trace_chart` puts the two views of one trace side by side: on the left every packet
sent, resent and acknowledged against time (the time-sequence diagram of the TCP
literature), on the right cwnd and ssthresh and, under them, the retransmission time-out.
Given the twelve traces of Fall and Floyd's cases it adds two drop-downs (Vega-Lite params
over the precomputed traces, so they work on a static page); given one trace (the live
panel, the time-out) it draws that one. :func:`cases_overview` shows all twelve at a glance.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from tcplab.charts import PALETTE

__all__ = ["EVENT_COLOURS", "cases_overview", "chart_data", "trace_chart"]

#: how each event is drawn in the sequence plot, in legend order (the house palette)
EVENT_COLOURS = {
    "send": PALETTE[0],
    "retransmit": PALETTE[3],
    "ack": PALETTE[2],
    "dupack": "#767676",  # grey, 4.5:1 on white
    "partial_ack": PALETTE[4],
    "recovery_exit": PALETTE[1],
}
_LABELS = {
    "send": "sent",
    "retransmit": "resent",
    "ack": "ACK",
    "dupack": "duplicate ACK",
    "partial_ack": "partial ACK",
    "recovery_exit": "ACK ending recovery",
}
_RESPONSES = {"fast_retransmit": "fast retransmit", "timeout": "time-out"}
_KEYS = ["tcp", "losses", "drops"]
_TIME = alt.Scale(domainMin=0, nice=False)


def chart_data(events: pd.DataFrame) -> pd.DataFrame:
    """The columns the charts draw, rounded; an infinite ssthresh (before the first loss)
    becomes missing, which JSON can carry."""
    keys = [k for k in _KEYS if k in events.columns]
    data = events[[*keys, "time", "event", "seq", "cwnd", "ssthresh", "rto"]].copy()
    data["ssthresh"] = data["ssthresh"].where(data["ssthresh"] != float("inf"))
    data["label"] = data["event"].map({**_LABELS, **_RESPONSES})
    return data.round({"time": 6, "cwnd": 4, "ssthresh": 4, "rto": 4})


def _pickers(data: pd.DataFrame, tcp: str, losses: int) -> list[alt.Parameter]:
    senders = list(dict.fromkeys(data["tcp"]))
    cases = data[["losses", "drops"]].drop_duplicates().sort_values("losses")
    return [
        alt.param(
            name="pick_tcp", value=tcp,
            bind=alt.binding_select(options=senders, name="sender "),
        ),
        alt.param(
            name="pick_losses", value=losses,
            bind=alt.binding_select(
                options=cases["losses"].tolist(),
                labels=[f"{n}: packets {d}" for n, d in zip(cases["losses"], cases["drops"],
                                                          strict=True)],
                name="drops ",
            ),
        ),
    ]  # fmt: skip


#: the views' titles are set smaller than the chart's (15 px, the house style) and the chart's
#: title, when it has one, keeps this gap (px) above them, so that its last line never reads
#: as one with the first view's title
VIEW_TITLE_SIZE = 13
TITLE_GAP = 14


def _view_title(text: str) -> alt.TitleParams:
    return alt.TitleParams(text, fontSize=VIEW_TITLE_SIZE)


def trace_chart(
    events: pd.DataFrame,
    tcp: str = "reno",
    losses: int = 3,
    title: str | list[str] = "",
    width: int = 300,
) -> alt.HConcatChart:
    """Sequence numbers (left) and cwnd, ssthresh and the RTO (right) against time.

    ``events`` is a trace's event table; with the columns tcp and losses of several traces
    (the ``microscope-traces`` experiment), drop-downs pick the sender and the case, starting
    at ``tcp`` and ``losses``."""
    data = chart_data(events)
    several = "tcp" in data.columns and data[["tcp", "losses"]].drop_duplicates().shape[0] > 1
    base = alt.Chart(data)
    params: list[alt.Parameter] = []
    if several:
        params = _pickers(data, tcp, losses)
        base = base.transform_filter("datum.tcp == pick_tcp && datum.losses == pick_losses")
    x = alt.X("time:Q", title="time (s)", scale=_TIME, axis=alt.Axis(labelFlush=False))
    tips = ["time:Q", "label:N", "seq:Q", "cwnd:Q", "ssthresh:Q", "rto:Q"]
    shown = list(EVENT_COLOURS)
    colour = alt.Color(
        "event:N", title=None,
        scale=alt.Scale(domain=shown, range=list(EVENT_COLOURS.values())),
        legend=alt.Legend(labelExpr=_label_expr(), columns=3, orient="bottom"),
    )  # fmt: skip
    points = (
        base.transform_filter(alt.FieldOneOfPredicate("event", shown))
        .transform_calculate(z="datum.event == 'retransmit' ? 2 : datum.event == 'send' ? 1 : 0")
        .mark_point(filled=True, opacity=0.85)
        .encode(
            order=alt.Order("z:Q"),  # resends on top, then sends, then ACKs
            x=x,
            y=alt.Y("seq:Q", title="packet (sent) or cumulative ACK (received)"),
            color=colour,
            shape=alt.Shape("event:N", scale=alt.Scale(domain=shown, range=_shapes()), legend=None),
            size=alt.Size("event:O", scale=alt.Scale(domain=shown, range=_sizes()), legend=None),
            tooltip=tips,
        )
    )
    responses = (
        base.transform_filter(alt.FieldOneOfPredicate("event", list(_RESPONSES)))
        .mark_rule(strokeDash=[4, 3], color=PALETTE[3], strokeWidth=1.2)
        .encode(x=x, tooltip=tips)
    )
    sequence = alt.layer(responses, points).properties(
        width=width, height=300, title=_view_title("packets against time")
    )
    window = _window_view(base, x, tips, width)
    timer = (
        base.mark_line(interpolate="step-after", color=PALETTE[4], strokeWidth=1.5)
        .encode(x=x, y=alt.Y("rto:Q", title="RTO (s)"), tooltip=tips)
        .properties(width=width, height=80, title=_view_title("retransmission time-out"))
    )
    right = alt.vconcat(window, timer, spacing=8)
    chart = alt.hconcat(sequence, right, spacing=24).resolve_scale(color="independent")
    if title:  # set apart from the views' own titles: a gap below it, and they are smaller
        chart = chart.properties(title=alt.TitleParams(title, anchor="start", offset=TITLE_GAP))
    return chart.add_params(*params) if params else chart


def _window_view(base: alt.Chart, x: alt.X, tips: list[str], width: int) -> alt.Chart:
    folded = base.transform_fold(["cwnd", "ssthresh"], as_=["variable", "packets"])
    lines = folded.mark_line(interpolate="step-after", strokeWidth=1.6).encode(
        x=x,
        y=alt.Y("packets:Q", title="window (packets)"),
        color=alt.Color(
            "variable:N", title=None,
            scale=alt.Scale(domain=["cwnd", "ssthresh"], range=[PALETTE[0], PALETTE[2]]),
            legend=None,
        ),
        strokeDash=alt.StrokeDash(
            "variable:N", scale=alt.Scale(domain=["cwnd", "ssthresh"], range=[[1, 0], [5, 3]]),
            legend=None,
        ),
        tooltip=tips,
    )  # fmt: skip
    title = "cwnd (solid), ssthresh (dashed)"
    return lines.properties(width=width, height=190, title=_view_title(title))


def _shapes() -> list[str]:
    # sends and resends as circles (resends bigger), ACKs as small left-pointing triangles
    return ["circle", "circle", "triangle-left", "triangle-left", "diamond", "diamond"]


def _sizes() -> list[int]:
    return [14, 70, 30, 30, 70, 70]


def _label_expr() -> str:
    cases = " : ".join(f"datum.label == '{k}' ? '{v}'" for k, v in _LABELS.items())
    return f"{cases} : datum.label"


def cases_overview(traces: pd.DataFrame) -> alt.FacetChart:
    """Every case at a glance: the sequence plot of each sender (rows) and drop list
    (columns), sends in blue and retransmissions in vermillion."""
    data = chart_data(traces)
    data = data[data["event"].isin(["send", "retransmit"])]
    return (
        alt.Chart(data)
        .mark_point(filled=True, size=10, opacity=0.9)
        .encode(
            x=alt.X("time:Q", title="time (s)", scale=_TIME),
            y=alt.Y("seq:Q", title="packet"),
            color=alt.Color(
                "event:N",
                title=None,
                scale=alt.Scale(
                    domain=["send", "retransmit"],
                    range=[EVENT_COLOURS["send"], EVENT_COLOURS["retransmit"]],
                ),
                legend=alt.Legend(labelExpr=_label_expr()),
            ),
            tooltip=["tcp:N", "drops:N", "time:Q", "seq:Q"],
        )  # fmt: skip
        .properties(width=130, height=110)
        .facet(
            row=alt.Row("tcp:N", title=None, sort=list(dict.fromkeys(data["tcp"]))),
            column=alt.Column(
                "drops:N", title="packets dropped", sort=list(dict.fromkeys(data["drops"]))
            ),
        )  # fmt: skip
    )
