"""The further emulated paths (tcplab.chapters.lu.morepaths) continue lu-paths' numbering:
path i is the same draw and the same runs whichever table holds it (a SeedSequence's children
are numbered, so spawn(41)'s first 16 are spawn(16)'s)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tcplab.chapters.lu import claims
from tcplab.chapters.lu.experiments import PathsParams, paths
from tcplab.chapters.lu.morepaths import path_jobs
from tcplab.chapters.lu.runs import run_jobs

DATA = Path(__file__).resolve().parents[1] / "data"
DRAW = ["rate_mbps", "delay_ms", "buffer", "path_cross", "path_queue", "window"]


def test_path_jobs_number_on_from_lu_paths() -> None:
    params = PathsParams.quick()
    whole = paths(PathsParams(**{**params.__dict__, "paths": 2, "flows": (1, 2)}), seed=3)
    jobs = path_jobs(PathsParams(**{**params.__dict__, "flows": (1, 2)}), 1, 2, seed=3)
    labels = pd.DataFrame([dict(j.labels) for j in jobs])
    second = whole[whole["path"] == 1].reset_index(drop=True)
    assert (labels["path"] == 1).all()
    for name in DRAW:
        assert (labels[name] == second[name]).all(), name
    assert list(labels["role"]) == list(second["role"])
    # the same run: the first job gives the number paths() gave path 1 at one connection
    row = run_jobs(jobs[:1], 1, "test")[0]
    assert row["parallel_bytes_per_s"] == second.loc[0, "parallel_bytes_per_s"]


def test_a_bad_range_is_refused() -> None:
    with pytest.raises(ValueError, match="first=3, last=3"):
        path_jobs(PathsParams(), 3, 3)


def test_the_shipped_paths_are_the_papers_41_without_repeats() -> None:
    tables = {name: pd.read_csv(DATA / f"{name}.csv") for name in ("lu-paths", "lu-paths-more")}
    both = claims.all_paths(tables)
    assert sorted(both["path"].unique()) == list(range(41))
    draws = both.groupby("path")[DRAW].nunique()
    assert (draws == 1).all().all()  # one draw per path
