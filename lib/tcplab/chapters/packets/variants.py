"""NewReno beside SACK on the same points: the shipped NewReno rows of the chapter's DropTail,
RED and threshold-dropper sweeps, cut to the points ``packets-sack`` reran with TCP-SACK
(same set-up, same seed: :mod:`.sack`), side by side, as tables and a chart.

The claims on these sub-grids are in :func:`.claims.variant_claims`; this module only shapes
the tables and draws them, so that it reads no model and sits in no data's fingerprint.
"""

from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from tcplab.charts import FORMULA, PALETTE, ROLE_COLOURS, describe

__all__ = [
    "RERUNS",
    "SACK_EVENTS_TABLE",
    "SACK_LOSS_TABLE",
    "SACK_SIGNALLED_TABLE",
    "SACK_TABLE",
    "SWEEPS",
    "VARIANT_NAMES",
    "both",
    "loss_pairs",
    "paired",
    "points",
    "signalled_pairs",
    "variant_table",
    "variant_chart",
]

SACK_TABLE = "packets-sack"
SACK_EVENTS_TABLE = "packets-sack-events"
SACK_SIGNALLED_TABLE = "packets-sack-signalled"
SACK_LOSS_TABLE = "packets-sack-loss"
#: the SACK rerun of each whole chapter table it pairs with, by NewReno table
RERUNS = {
    "packets-events": SACK_EVENTS_TABLE,
    "packets-signalled": SACK_SIGNALLED_TABLE,
    "packets-loss": SACK_LOSS_TABLE,
}
SWEEPS = ("droptail", "red", "threshold")
VARIANT_NAMES = {"newreno": "NewReno", "sack": "SACK"}
_KEYS = {
    "droptail": ["buffer", "flows"],
    "red": ["buffer", "flows"],
    "threshold": ["threshold", "buffer", "select", "flows"],
}


def points(tables: Mapping[str, pd.DataFrame], variant: str) -> dict[str, pd.DataFrame]:
    """Per sweep, the rows of ``variant`` (``newreno``: the chapter's shipped tables;
    ``sack``: ``packets-sack``) at the points SACK was run at, in the chapter's columns."""
    sack = tables[SACK_TABLE]
    out = {}
    for sweep in SWEEPS:
        mine = sack[sack["queue"] == sweep].copy()
        keys = _KEYS[sweep]
        if sweep == "threshold":
            mine["threshold"] = mine["threshold"].astype(int)
        if variant == "sack":
            out[sweep] = mine.drop(columns=["tcp"]).reset_index(drop=True)
            continue
        chapter = tables[f"packets-{sweep}"]
        out[sweep] = chapter.merge(mine[keys], on=keys, how="inner").reset_index(drop=True)
    return out


#: the columns that name a run in each whole table
_RUN_KEYS = {
    "packets-events": ["queue", "buffer"],
    "packets-signalled": ["queue", "buffer"],
    "packets-loss": ["p"],
}


def variant_table(tables: Mapping[str, pd.DataFrame], name: str, variant: str) -> pd.DataFrame:
    """The chapter's whole table ``name`` (``packets-events``, ``-signalled`` or ``-loss``)
    with ``variant``, at the runs SACK reran (all of them at full scale): the chapter's own
    rows for ``newreno``, else its rerun without the ``tcp`` column."""
    rerun = tables[RERUNS[name]].drop(columns=["tcp"])
    if variant != "newreno":
        return rerun
    keys = _RUN_KEYS[name]
    ran = rerun[keys].drop_duplicates()
    return tables[name].merge(ran, on=keys, how="inner")


def both(tables: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """The chapter's table ``name`` (``packets-signalled`` or ``-loss``) with NewReno and
    its rerun with SACK, one below the other, with a first column ``tcp`` (NewReno, SACK)."""
    frames = [
        variant_table(tables, name, variant).assign(tcp=label)
        for variant, label in VARIANT_NAMES.items()
    ]
    table = pd.concat(frames, ignore_index=True)
    return table[["tcp", *(c for c in table.columns if c != "tcp")]]


def loss_pairs(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One flow under random loss, per p: the two formulas, and each variant's goodput, its
    ratios to the formulas and its time-outs (columns ``<quantity>_<variant>``)."""
    newreno, sack = (variant_table(tables, "packets-loss", v) for v in VARIANT_NAMES)
    values = ["rate_pps", "vs_mathis", "vs_padhye", "timeouts"]
    return newreno[["p", "mathis_pps", "padhye_pps", *values]].merge(
        sack[["p", *values]], on="p", suffixes=("_newreno", "_sack")
    )


def signalled_pairs(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Figs. 13-14, per (queue, buffer): each variant's rank correlation of z(w) with w, its
    overall fraction signalled and its number of congestion events."""
    out = []
    for variant in VARIANT_NAMES:
        table = variant_table(tables, "packets-signalled", variant)
        per_run = table.groupby(["queue", "buffer"], sort=False)[["rho", "mean_z", "events"]]
        out.append(per_run.first().add_suffix(f"_{variant}"))
    return pd.concat(out, axis=1).reset_index()


def paired(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per point: (queue, buffer, threshold, select, flows, theorem1) and, for each
    variant, utilisation, time-outs and drop rate (columns ``<quantity>_<variant>``)."""
    newreno, sack = points(tables, "newreno"), points(tables, "sack")
    frames = []
    for sweep in SWEEPS:
        keys = _KEYS[sweep]
        values = ["utilisation", "timeouts", "drop_rate"]
        both = newreno[sweep][[*keys, "theorem1", *values]].merge(
            sack[sweep][[*keys, *values]], on=keys, suffixes=("_newreno", "_sack")
        )
        frames.append(both.assign(queue=sweep))
    table = pd.concat(frames, ignore_index=True)
    table["gain"] = table["utilisation_sack"] - table["utilisation_newreno"]
    columns = ["queue", "buffer", "threshold", "select", "flows", "theorem1"]
    rest = [c for c in table.columns if c not in columns]
    return table[[*columns, *rest]]


def _panel(row: pd.Series) -> str:
    if row["queue"] == "threshold":
        policy = "rate-independent" if row["select"] == "random" else "largest-rate"
        return f"threshold Th = {int(row['threshold'])}, {policy}"
    return f"{'DropTail' if row['queue'] == 'droptail' else 'RED'} b = {int(row['buffer'])}"


def variant_chart(table: pd.DataFrame) -> alt.FacetChart:
    """Throughput over capacity against N with NewReno and with SACK (same set-up and seed),
    one panel per queue and buffer (threshold-dropper: per policy), Theorem 1 dashed;
    ``table`` is :func:`paired`'s."""
    data = table.copy()
    data["panel"] = data.apply(_panel, axis=1)
    long = data.melt(
        id_vars=["panel", "flows", "theorem1"],
        value_vars=["utilisation_newreno", "utilisation_sack"],
        var_name="tcp",
        value_name="utilisation",
    )
    long["tcp"] = long["tcp"].str.removeprefix("utilisation_").map(VARIANT_NAMES)
    long = long.round(5)
    order = list(dict.fromkeys(data["panel"]))
    x = alt.X("flows:Q", title="number of connections N")
    y = alt.Y("utilisation:Q", title="throughput / capacity", scale=alt.Scale(domain=[0.6, 1.01]))
    lines = (
        alt.Chart()
        .mark_line(point=True, strokeWidth=1.8)
        .encode(
            x=x,
            y=y,
            color=alt.Color("tcp:N", title="TCP", scale=alt.Scale(range=PALETTE[:2])),
            strokeDash=alt.StrokeDash("tcp:N", legend=None),
            tooltip=["panel:N", "tcp:N", "flows:Q", "utilisation:Q", "theorem1:Q"],
        )
    )
    theory = (
        alt.Chart()
        .mark_line(strokeDash=[6, 3], strokeWidth=2, color=ROLE_COLOURS[FORMULA])
        .encode(x=x, y=alt.Y("theorem1:Q"))
    )
    chart = (
        alt.layer(theory, lines, data=long)
        .properties(width=170, height=150)
        .facet(alt.Facet("panel:N", title=None, sort=order), columns=4)
    )
    gain = table["gain"]
    return describe(
        chart,
        "Panels, one per queue and buffer (and per threshold-dropper policy): throughput over "
        "capacity against the number of connections N with NewReno and with SACK, run with "
        "the same set-up and seeds, and Theorem 1 dashed. SACK minus NewReno, over the "
        f"{len(gain)} points: from {gain.min():+.3f} to {gain.max():+.3f}, median "
        f"{gain.median():+.3f}.",
    )
