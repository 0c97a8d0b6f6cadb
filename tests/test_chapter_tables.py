"""The Lu, ns-3 and microscope chapters' result tables, built from the shipped data as the
chapters build them, read as the issue asks of every book table (checked without a build):
headers in words (no code names such as ``rate_pps``), no empty header (no index column), no
``e-05`` notation, no ``-0.00``, no ``nan``, true/false as yes/no, and every row as wide as
the header."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tcplab import registry
from tcplab.tables import Table

CODE_NAME = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)+$")  # snake_case: a column's name in the code
E_NOTATION = re.compile(r"\d[eE][+-]?\d")


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, str]]] = []
        self._cell: list[str] | None = None
        self._tag = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self._cell, self._tag = [], tag

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td") and self._cell is not None:
            self.rows[-1].append((self._tag, "".join(self._cell).strip()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def problems(table: Table) -> list[str]:
    """What in ``table`` breaks the book's table style."""
    parser = _Cells()
    parser.feed(table.html)
    header, *body = parser.rows
    found = []
    for _, text in header:
        if not text or CODE_NAME.match(text):
            found.append(f"header {text!r}")
    for row in body:
        if len(row) != len(header):
            found.append(f"row {row} has {len(row)} cells for {len(header)} headers")
        for _, text in row:
            lowered = text.lower()
            if E_NOTATION.search(text) or lowered in ("nan", "true", "false", "none"):
                found.append(f"cell {text!r}")
            if re.fullmatch(r"[-−]0(?:\.0+)?%?", text):
                found.append(f"cell {text!r}")
    return found


def _lu() -> dict[str, Table]:
    from tcplab.chapters.lu import analysis, experiments
    from tcplab.chapters.lu import tables as lu

    table = registry.run("lu-scenarios", scale="full", seed=0)
    sensitivity = registry.run("lu-sensitivity", scale="full", seed=0)
    paths = registry.run("lu-paths", scale="full", seed=0)
    s1 = table[(table["scenario"] == 1) & (table["cross"] > 10)]
    sens = analysis.predictions(sensitivity, pairs=[(1, 10)], keys=["scenario", "variant"])
    compared = analysis.models(table)
    compared["model"] = compared["model"] + " " + compared["probes"]
    path_table = analysis.path_summary(analysis.path_predictions(paths), paths)
    return {
        "scenarios": lu.scenarios_table(),
        "grids": lu.grids_table(experiments.LuParams().grids),
        "queue throughput": lu.queue_throughput_table(s1),
        "queue loss": lu.queue_loss_table(s1),
        "sensitivity errors": lu.error_table(
            analysis.probe_pairs(sens, by=["scenario", "variant"]),
            {"scenario": "scenario", "variant": "choice"},
        ),
        "models": lu.error_table(
            analysis.probe_pairs(compared, by=["model"]), {"model": "model, probes"}
        ),
        "c1": lu.c1_table(analysis.model_check(table)),
        "pairs": lu.error_table(
            analysis.probe_pairs(analysis.predictions(table)), {"probes": "probes"}
        ),
        "within": lu.within_table(analysis.impacts(table)),
        "advisor": lu.advisor_table(analysis.advisor(table)),
        "paths": lu.paths_table(path_table),
    }


def _ns3() -> dict[str, Table]:
    from tcplab.chapters.ns3 import claims, experiments
    from tcplab.chapters.ns3 import tables as ns3

    ours = registry.run("ns3-tcplab", scale="full", seed=0)
    theirs, _ = experiments.ns3_table()
    table = claims.keyed_frame({"ns3-tcplab": ours, "ns3-dumbbell": theirs})
    return {
        "matched": ns3.matched_table(),
        "side by side": ns3.side_by_side_table(table),
        "heavy": ns3.heavy_table(table),
        "probe": ns3.probe_table(table),
        "sack trace": ns3.sack_trace_table([14, 24, 26, 28], packets=100, window=28),
    }


def test_the_ns3_provenance_reads_as_a_book_table() -> None:
    """The metadata of ns-3's results as the appendix prints it: every field in words; the
    script's hash is hexadecimal, so the e-notation check may see '4e4' in it."""
    from tcplab.chapters.ns3 import experiments
    from tcplab.chapters.ns3 import tables as ns3

    _, meta = experiments.ns3_table()
    table = ns3.provenance_table(meta)
    assert [found for found in problems(table) if meta["script_sha256"] not in found] == []
    assert meta["script_sha256"] in table.html and meta["ns3_version"] in table.html


def _microscope() -> dict[str, Table]:
    from tcplab.chapters.microscope import claims
    from tcplab.chapters.microscope import tables as microscope

    cases = registry.run("microscope-cases", scale="full", seed=0)
    frame = claims.departures_frame(claims.params_of(cases))
    return {"departures": microscope.departures_table(frame)}


def _bmc() -> dict[str, Table]:
    from tcplab.chapters.bmc import claims, compare, sensitivity
    from tcplab.chapters.bmc import tables as bmc

    def data(name: str):  # noqa: ANN202
        return registry.run(name, scale="full", seed=0)

    return {
        "red": bmc.red_table(sensitivity.red_table(data("bmc-red"))),
        "explain": bmc.explain_table(claims.explain_table(data("bmc-explain"))),
        "examples": bmc.examples_table(claims.examples_table(data("bmc-examples"))),
        "compare": bmc.compare_table(compare.compare_table(data("bmc-compare"))),
        "order": bmc.order_table(data("bmc-order")),
        "jk": bmc.jk_table(data("bmc-jk")),
    }


@pytest.mark.parametrize(
    "chapter", [_lu, _ns3, _microscope, _bmc], ids=["lu", "ns3", "microscope", "bmc"]
)
def test_the_chapters_tables_read_as_book_tables(chapter) -> None:
    found = {name: problems(table) for name, table in chapter().items()}
    assert {name: found for name, found in found.items() if found} == {}


def test_the_style_check_can_fail() -> None:
    import pandas as pd

    from tcplab.tables import show

    raw = Table(pd.DataFrame({"rate_pps": [2.2e-05, -0.0]}).to_html())
    assert problems(raw)  # code name, index column, e-notation
    assert problems(show(pd.DataFrame({"rate_pps": [1.0]}))) == ["header 'rate_pps'"]
    assert problems(show(pd.DataFrame({"rate": [2.2e-05, -1e-9]}), {"rate": "rate"}, 2)) == []
