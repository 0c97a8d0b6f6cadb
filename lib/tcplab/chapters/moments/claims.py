"""The second-moments chapter's paper-vs-book claims, its tables, and the numbers its prose quotes.

The paper's side of every item (Theorem 2's fractions, the closed forms of eq. (9), Section
IV-B and Theorem 3) is in the chapter's ledger.toml; :func:`paper_claims` computes the book's
side from the experiments' tables: an exact computation where the model's path is
deterministic and periodic, the sample-path identity's bound for a mean, the 95% interval of
the replicas for a random policy's second moment.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.charts import fraction
from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance
from tcplab.theory import moments as theory_moments

from .experiments import POLICIES, with_exact
from .held import VARIANTS as HELD_VARIANTS

__all__ = [
    "TABLES",
    "THEOREM2_TOLERANCE",
    "theorem2_frame",
    "beyond_frame",
    "held_frame",
    "paper_claims",
    "chapter_claims",
    "chapter_numbers",
]

#: the experiments the claims and the prose read
TABLES = (
    "moments-table",
    "moments-largest-rate",
    "moments-beatdown-tags",
    "moments-theorem3",
    "moments-distributions",
    "moments-beatdown-path",
    "moments-beatdown-held",
)
#: the relative gap to Theorem 2's values the prose compares with (a display threshold; the
#: claims' tolerances come from the rules of tcplab.ledger.tolerance)
THEOREM2_TOLERANCE = 0.005


def theorem2_frame(exact: pd.DataFrame) -> pd.DataFrame:
    """The Theorem 2 table for display: paper, ours with 95% CI, closed form, errors."""
    two = exact[(exact["flows"] == 2) & exact["identical"] & (exact["flow"] == 1)]
    two = two.set_index("policy").loc[list(POLICIES)]
    return pd.DataFrame(
        {
            "paper": two["paper"],
            "ours (fluid model)": two["second_moment"],
            "95% CI ±": two["second_moment_ci"],
            "ours / paper − 1": two["second_moment"] / two["paper"] - 1.0,
            "closed form": two["exact"],
            "as a fraction": [fraction(v) for v in two["exact"]],
            "ours / closed form − 1": two["second_moment"] / two["exact"] - 1.0,
        }
    )


def beyond_frame(exact: pd.DataFrame) -> pd.DataFrame:
    """E[X_i^2]/c^2 for every case beyond Theorem 2, one row per (case, connection, policy)."""
    rows = exact[~((exact["flows"] == 2) & exact["identical"])]
    rows = rows[~rows["identical"] | (rows["flow"] == 1)]
    return pd.DataFrame(
        {
            "case": rows["case"],
            "connection": rows["flow"],
            "policy": rows["policy"],
            "ours": rows["second_moment"],
            "95% CI ±": rows["second_moment_ci"],
            "closed form": rows["exact"],
            "as a fraction": [fraction(v) for v in rows["exact"]],
            "mean rate / c": rows["mean"],
        }
    ).reset_index(drop=True)


def held_frame(held: pd.DataFrame) -> pd.DataFrame:
    """The what-if table for display: per N, E[X^2]/c^2 and the mean aggregate of the real
    beatdown (fluid model) and of the beatdown that holds the aggregate at c, each with its
    closed form."""
    real = held[held["variant"] == HELD_VARIANTS[0]].set_index("flows")
    what_if = held[held["variant"] == HELD_VARIANTS[1]].set_index("flows")
    return pd.DataFrame(
        {
            "AIMD beatdown": real["second_moment"],
            "closed form": [fraction(v) for v in real["closed_form"]],
            "held at c (what-if)": what_if["second_moment"],
            "4/(3N²)": [fraction(v) for v in what_if["closed_form"]],
            "paper": real["paper"],
            "aggregate / c, AIMD": real["aggregate"],
            "aggregate / c, held": what_if["aggregate"],
            "Theorem 1": real["theorem1"],
        }
    ).reset_index()


def lemma1_map(x: np.ndarray, beta: float) -> np.ndarray:
    """The paper's map g of Lemma 1 (eq. 8) for N identical connections, c = 1, on a vector
    sorted in decreasing order, with a = beta + (1 - beta)/N and b = (1 - beta)/N (the
    paper's eta_i read as the share eta_i/eta-bar, as in the line above its eq. (7))."""
    n = len(x)
    a, b = beta + (1 - beta) / n, (1 - beta) / n
    g = np.empty(n)
    g[0] = max(a * x[0], x[1] + b * x[0])
    for i in range(1, n - 1):
        g[i] = min(max(a * x[0], x[i + 1] + b * x[0]), x[i] + b * x[0])
    g[n - 1] = min(a * x[0], x[n - 1] + b * x[0])
    return g


def _accumulates(path: pd.DataFrame, beta: float = 0.5) -> bool:
    """Fig. 5: within each beatdown the time between successive cuts shrinks by the constant
    factor r = beta + (1 - beta)/N (3/4 for two connections), so the events accumulate in
    finite time. A beatdown starts after a gap longer than the one before it (the release
    and the climb back); its first ratio compares it with that gap and is left out."""
    n = int(path["flow"].nunique())
    r = beta + (1 - beta) / n
    cuts = path[path.duplicated(["time", "flow"], keep="first")]
    gaps = np.diff(cuts["time"].to_numpy())
    gaps = gaps[gaps >= 1e-4]  # times are printed to 6 decimals: shorter gaps are rounding
    ratios = gaps[1:] / gaps[:-1]
    within = []
    for i, q in enumerate(ratios):
        if q > 1 or (i > 0 and ratios[i - 1] > 1):
            continue  # a new beatdown begins here
        within.append(q)
    return len(within) >= 10 and bool(np.allclose(within, r, rtol=0, atol=1e-3))


def _second_moment(row: pd.Series) -> tolerance.Estimate:
    """A second moment: exact where the replicas agree to floating point (a periodic path,
    largest-rate), else the 95% interval of the replicas."""
    half = float(row["second_moment_ci"])
    if half <= tolerance.EXACT * 1e-6:
        return tolerance.computed(float(row["second_moment"]))
    return tolerance.mean(float(row["second_moment"]), half, "the replicas")


def paper_claims(
    table: pd.DataFrame,
    largest: pd.DataFrame,
    tags: pd.DataFrame,
    thm3: pd.DataFrame,
    distributions: pd.DataFrame | None = None,
    path: pd.DataFrame | None = None,
    held: pd.DataFrame | None = None,
) -> dict[str, claims.Claim]:
    """Every check of Sections III-IV, keyed (the ledger's checks, ledger.toml)."""
    out: dict[str, claims.Claim] = {}
    two = table[(table["flows"] == 2) & table["identical"] & (table["flow"] == 1)]
    for name in POLICIES:
        row = two[two["policy"] == name].iloc[0]
        out[f"theorem2-{name}"] = Claim(
            f"Two identical connections, β = 1/2, {name}: E[X₁²]/c²", _second_moment(row)
        )
    moment = two.set_index("policy")
    order = ["largest-rate", "rate-proportional", "rate-independent", "beatdown"]
    for i, (low, high) in enumerate(zip(order[:-1], order[1:], strict=True), start=1):
        a, b = moment.loc[low], moment.loc[high]
        out[f"order-{i}"] = Claim(
            f"E[X₁²]/c², {high} minus {low}",
            tolerance.mean(
                float(b["second_moment"] - a["second_moment"]),
                tolerance.difference(float(a["second_moment_ci"]), float(b["second_moment_ci"])),
                "the difference of two means",
            ),
        )
    top, bottom = moment.loc["beatdown"], moment.loc["largest-rate"]
    out["not-insensitive"] = Claim(
        "E[X₁²]/c²: the largest over the policies minus the smallest (the mean is the same)",
        tolerance.mean(
            float(top["second_moment"] - bottom["second_moment"]),
            tolerance.difference(float(top["second_moment_ci"]), float(bottom["second_moment_ci"])),
            "the difference of two means",
        ),
    )
    for n, group in largest.groupby("flows"):
        gap = (group["simulated"] - group["formula"]).abs()
        far = group.loc[gap.idxmax()]
        out[f"largest-rate-n{n}"] = Claim(
            f"Largest-rate, N = {n}: sorted rate before congestion x̃_k/c against eq. (9), "
            f"the farthest rank (k = {int(far['rank'])})",
            tolerance.computed(float(far["simulated"])),
            paper=float(far["formula"]),
        )
    out["round-robin"] = holds(
        f"Largest-rate, N = 2…{int(largest['flows'].max())}: at the stationary point every "
        "window of N consecutive congestion events signals each connection once",
        bool(largest["round_robin"].all()),
        "the fluid model's exact stationary runs",
    )
    mapped = []
    for _, group in largest.groupby("flows"):
        x = group.sort_values("rank")["simulated"].to_numpy(dtype=float)
        mapped.append(float(np.max(np.abs(lemma1_map(x, 0.5) - x))))
    out["lemma1"] = holds(
        "Lemma 1: the map g of eq. (8), applied to the simulated sorted rates at the "
        "largest-rate stationary point, gives them back (to floating point) for "
        f"N = 2…{int(largest['flows'].max())}",
        bool(max(mapped) <= tolerance.EXACT),
        "the fluid model's exact stationary points",
    )
    for n, group in tags.groupby("flows"):
        top_tag = group[group["rank"] == 1].iloc[0]
        out[f"beatdown-tag-1-n{n}"] = Claim(
            f"Beatdown, N = {n}: largest rate at a tagging time ỹ₁/c",
            tolerance.computed(float(top_tag["simulated"])),
            paper=float(top_tag["printed"]),
        )
        if n == 4:
            second = group[group["rank"] == 2].iloc[0]
            out["beatdown-tag-2-n4"] = Claim(
                "Beatdown, N = 4: second rate at a tagging time ỹ₂/c (the printed summary)",
                tolerance.computed(float(second["simulated"])),
                paper=float(second["printed"]),
            )
    gap = (tags["simulated"] - tags["corrected"]).abs()
    far = tags.loc[gap.idxmax()]
    out["beatdown-tags-k"] = Claim(
        f"Beatdown, N = 2…{int(tags['flows'].max())}: sorted rates at tagging times against "
        f"ỹ_k = (N − k)/(N − 1) ỹ₁, the farthest (N = {int(far['flows'])}, k = {int(far['rank'])})",
        tolerance.computed(float(far["simulated"])),
        paper=float(far["corrected"]),
    )
    for row in thm3.itertuples():
        out[f"theorem3-n{row.flows}-{row.pick}"] = Claim(
            f"Beatdown (new tag: {row.pick}), N = {row.flows}: mean aggregate / c",
            tolerance.identity_bound(float(row.aggregate), float(row.bound)),
            paper=float(row.theorem1),
        )
    if path is not None and len(path):
        out["fig5"] = holds(
            "Fig. 5: within every beatdown on the exact sample path the time between "
            "successive congestion events shrinks (geometrically), so events accumulate",
            _accumulates(path),
            "the exact beatdown sample path",
        )
    if distributions is not None and len(distributions):
        beat = distributions[distributions["policy"] == "beatdown"]
        width = (beat["upper"] - beat["lower"]).to_numpy()
        mass_top = float((beat["density"] * width)[beat["lower"].to_numpy() >= 0.75 - 1e-12].sum())
        bd = float(beat["second_moment"].iloc[0])
        exact = theory_moments.beatdown_second_moment(2)
        ci = float(moment.loc["beatdown", "second_moment_ci"])
        out["beatdown-distribution"] = holds(
            "Beatdown's time-stationary rate distribution is not uniform on [0, c]: its mass "
            "above 3c/4 is off a quarter by more than 0.05, and its second moment is 28/111 "
            "within the replicas' 95% interval",
            bool(abs(mass_top - 0.25) > 0.05 and abs(bd - exact) <= max(ci, tolerance.EXACT)),
            "the exact beatdown path's rate distribution",
        )
    if held is not None and len(held):
        what_if = held[(held["variant"] == HELD_VARIANTS[1]) & (held["flows"] == 2)].iloc[0]
        out["beatdown-why"] = Claim(
            "What-if: beatdown with the aggregate held at c (the tagged rate is c minus the "
            "other's, no geometric sawtooth), two connections: E[X₁²]/c², exact path",
            tolerance.computed(float(what_if["second_moment"])),
        )
    return out


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """:func:`paper_claims` of the tables of :data:`TABLES` (the uniform entry the ledger uses)."""
    return paper_claims(
        with_exact(tables["moments-table"]),
        tables["moments-largest-rate"],
        tables["moments-beatdown-tags"],
        tables["moments-theorem3"],
        tables.get("moments-distributions"),
        tables.get("moments-beatdown-path"),
        tables.get("moments-beatdown-held"),
    )


def _held_numbers(held: pd.DataFrame) -> dict[str, float | int]:
    """The numbers the prose quotes from the held-aggregate what-if."""
    what_if = held[held["variant"] == HELD_VARIANTS[1]].set_index("flows")
    real = held[held["variant"] == HELD_VARIANTS[0]].set_index("flows")
    return {
        "held_n2": float(what_if.loc[2, "second_moment"]),
        "held_real_n2": float(real.loc[2, "second_moment"]),
        "held_gap": float((what_if["second_moment"] - what_if["closed_form"]).abs().max()),
        "held_nmax": int(what_if.index.max()),
        "held_agg": float(what_if["aggregate"].min()),
    }


def chapter_numbers(
    tables: Mapping[str, pd.DataFrame], scale: str = "full"
) -> dict[str, float | int | str]:
    """Every number the chapter's text quotes, computed from the tables of :data:`TABLES`."""
    t2 = theorem2_frame(with_exact(tables["moments-table"]))
    ours, error = t2["ours (fluid model)"], t2["ours / paper − 1"]
    largest, tags, thm3 = (tables[name] for name in TABLES[1:4])
    n3 = thm3[thm3["flows"] == 3].set_index("pick")["second_moment"]
    return {
        "t2_ri": float(ours["rate-independent"]),
        "t2_rp": float(ours["rate-proportional"]),
        "t2_lr": float(ours["largest-rate"]),
        "t2_bd": float(ours["beatdown"]),
        "t2_bd_err": float(-error["beatdown"]),
        "t2_worst": float(error.drop("beatdown").abs().max()),
        "t2_ci": float(t2["95% CI ±"].max()),
        "tol": THEOREM2_TOLERANCE,
        "bd_exact": theory_moments.beatdown_second_moment(2),
        "bd_pinned": theory_moments.beatdown_pinned_second_moment(2),
        "lr_worst": float((largest["simulated"] - largest["formula"]).abs().max()),
        "lr_robin": "every" if bool(largest["round_robin"].all()) else "not every",
        "lr_nmax": int(largest["flows"].max()),
        "tag_worst": float((tags["simulated"] - tags["corrected"]).abs().max()),
        "thm3_worst": float((thm3["aggregate"] - thm3["theorem1"]).abs().max()),
        "thm3_bound": float(thm3["bound"].max()),
        "bd_random_n3": float(n3["random"]),
        **_held_numbers(tables["moments-beatdown-held"]),
        "bd_largest_n3": float(n3["largest"]),
    }
