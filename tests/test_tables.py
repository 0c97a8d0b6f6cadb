"""The book's table style: what a reader sees in every table, checked on its HTML."""

from __future__ import annotations

import re
import tomllib

import numpy as np
import pandas as pd
import pytest

from tcplab import ledger, tables
from tcplab.claims import Claim, claim_decimals, claims_html, holds
from tcplab.ledger import tolerance, verdicts


def _cells(page: str) -> list[str]:
    return re.findall(r"<t[dh](?:\s[^>]*)?>(.*?)</t[dh]>", page)


def test_numbers_never_print_negative_zero_or_e_notation() -> None:
    assert tables.fixed(-0.0001, 2) == "0.00"
    assert tables.number(-0.00004, "2%") == "0.00%"
    assert tables.fixed(-1.5, 1) == "−1.5"  # a real minus sign
    assert tables.significant(2.2e-5, 2) == "2.2 × 10⁻⁵"
    assert tables.significant(-3e-9, 1) == "−3 × 10⁻⁹"
    assert tables.power_of_ten(1e-6) == "10⁻⁶"
    assert tables.significant(9.996, 3) == "10.0"  # rounds up a digit, stays 3 significant
    assert tables.significant(0.25227, 3) == "0.252"
    for value in (1e-7, -2.5e-12, 3.3e8):
        assert "e" not in tables.significant(value, 2)


def test_formats_by_name() -> None:
    assert tables.number(0.75, "1%") == "75.0%"
    assert tables.number(5 / 24, "fraction") == "5/24"
    assert tables.number(0.123456789, "fraction") == "0.123457"  # not a short fraction
    assert tables.number(12345.0, "int") == "12 345"
    assert tables.number(True, 3) == "yes" and tables.number(np.bool_(False), 3) == "no"
    assert tables.number(float("nan"), 3) == tables.DASH
    with pytest.raises(ValueError, match="precision='3 digits'"):
        tables.number(1.0, "3 digits")


def test_show_prints_words_not_code_names_and_no_index() -> None:
    frame = pd.DataFrame(
        {"rate_pps": [101.234, 5.0], "vs_mathis": [1.0456, -0.00001], "timeouts": [3, 0]},
        index=[7, 8],
    )
    page = tables.show(
        frame,
        {
            "rate_pps": "goodput (packets/s)",
            "vs_mathis": "goodput / Mathis",
            "timeouts": "time-outs",
        },
        precision={"rate_pps": 1, "vs_mathis": 2},
    ).html
    assert "rate_pps" not in page and "goodput (packets/s)" in page
    assert _cells(page) == [
        "goodput (packets/s)", "goodput / Mathis", "time-outs",
        "101.2", "1.05", "3",
        "5.0", "0.00", "0",
    ]  # fmt: skip
    assert ">7<" not in page and ">8<" not in page  # no index
    assert "<th></th>" not in page and "<th " in page  # every header has words


def test_show_rejects_a_column_it_does_not_have() -> None:
    with pytest.raises(ValueError, match=r"columns=\['nope'\]"):
        tables.show(pd.DataFrame({"a": [1.0]}), {"nope": "x"})
    with pytest.raises(ValueError, match=r"precision=\['b'\]"):
        tables.show(pd.DataFrame({"a": [1.0], "b": [2.0]}), {"a": "x"}, precision={"b": 2})


def test_show_escapes_text() -> None:
    page = tables.show(pd.DataFrame({"a": ["<script>"]}), {"a": "<b>"}).html
    assert "<script>" not in page and "<b>" not in page


def _judged(*claims: Claim, value: float = 0.75, precision: str = "exact"):  # noqa: ANN202
    """One item of hand-made checks, judged (the paper's value and its precision)."""
    body = (
        'paper = "altman"\npage = "sawtooth"\n[[item]]\nkey = "a"\nref = "Sec. I"\n'
        f'kind = "number"\nwords = "w"\npaper_value = {value!r}\nprecision = "{precision}"\n'
        f"checks = {[f'c{i}' for i in range(len(claims))]!r}\n"
    )
    entry = ledger.parse("sawtooth", tomllib.loads(body))[0]
    return verdicts.judge_with(entry, {f"c{i}": c for i, c in enumerate(claims)})


def test_claim_precision_follows_the_tolerance() -> None:
    assert claim_decimals(0.03) == 3 and claim_decimals(1e-6) == 7 and claim_decimals(0.5) == 2
    page = claims_html([_judged(Claim("one flow", tolerance.computed(0.7500000021)))])
    cells = _cells(page)
    assert "0.75" in cells and "0.7500000" in cells  # the paper as printed, ours to 7 decimals
    assert "e+0" not in page and "agree to floating point" in page


def test_claims_table_reads_yes_no_statements_as_words_and_explains_differs() -> None:
    holds_ = holds("DropTail: the throughput grows with the buffer", True, "the runs")
    fails = holds("Every buffer shows it", False, "the runs")
    page = claims_html([_judged(holds_), _judged(fails)])
    cells = _cells(page)
    assert cells.count("yes") >= 3 and "no" in cells
    assert "1 = " not in page and ">1<" not in page and ">0<" not in page
    caption = re.search(r"<caption>(.*?)</caption>", page).group(1)
    assert "“differs”" in caption and "why" in caption  # a "differs" is explained


def test_a_disagreeing_row_says_outside_what() -> None:
    beatdown = Claim("beatdown", tolerance.mean(0.25227, 2.2e-5, "64 replicas"))
    page = claims_html([_judged(beatdown, value=1 / 3)])
    assert "the paper&#x27;s 0.3333 lies outside the book&#x27;s range [0.2522, 0.2523]" in page
    assert re.search(r'class="tcplab-off"[^>]*>differs<', page)
