"""The paper-vs-book table (tcplab.claims.claims_html) of judged items, by hand."""

import re

from tcplab import ledger
from tcplab.claims import Claim, claims_html, holds
from tcplab.ledger import tolerance, verdicts

ITEM = (
    'paper = "altman"\npage = "sawtooth"\n[[item]]\nkey = "a"\nref = "Sec. I"\n'
    'kind = "number"\nwords = "75%"\npaper_value = 0.75\nprecision = "75%"\n'
)


def _judged(checks: dict, extra: str = "") -> verdicts.Judged:
    import tomllib

    entry = ledger.parse("sawtooth", tomllib.loads(ITEM + f"checks = {list(checks)!r}\n" + extra))
    found = verdicts.judge_with(entry[0], checks)
    assert found is not None
    return found


def test_an_item_shows_its_status_and_folds_its_checks() -> None:
    inside = Claim("N = 1", tolerance.mean(0.751, 0.001, "3 runs"))
    outside = Claim("N = 2", tolerance.mean(0.760, 0.001, "3 runs"))
    page = claims_html([_judged({"x": inside, "y": outside})])
    assert page.count('class="tcplab-off" data-label="Status">differs<') == 1
    assert "All 2 checks of this item" in page and "<details>" in page
    assert "N = 2 (the check that decides, of 2)" in page  # the row shows the deciding check
    one = claims_html([_judged({"x": inside})])
    assert 'class="tcplab-ok" data-label="Status">reproduced<' in one and "<details>" not in one


def test_the_check_column_names_the_rule() -> None:
    page = claims_html([_judged({"x": Claim("N = 1", tolerance.mean(0.7525, 0.004, "3 runs"))})])
    assert "margin: the book&#x27;s range" in page and "undecided" in page
    assert re.search(r'class="tcplab-undecided"[^>]*>undecided<', page)


def test_a_statement_reads_as_words() -> None:
    page = claims_html([_judged({"x": holds("it rises", True, "the runs")})])
    cells = re.findall(r'data-label="(?:Paper|Book)">([^<]*)<', page)
    assert cells == ["yes", "yes"]


def test_claim_text_is_escaped() -> None:
    page = claims_html([_judged({"x": holds("<script>", True, "the runs")})])
    assert "<script>" not in page
