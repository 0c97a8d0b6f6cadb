from tcplab.claims import Claim, claims_frame, claims_html


def test_a_claim_outside_its_tolerance_is_reported_as_such() -> None:
    good = Claim("a", "paper", paper=0.75, book=0.7500001, tolerance=1e-6)
    bad = Claim("b", "paper", paper=0.75, book=0.76, tolerance=1e-3)
    assert good.within and not bad.within
    frame = claims_frame([good, bad])
    assert frame["within"].tolist() == [True, False]
    page = claims_html([good, bad])
    assert page.count('class="tcplab-ok"') == 1 and page.count('class="tcplab-off"') == 1


def test_claim_text_is_escaped() -> None:
    assert "<script>" not in claims_html([Claim("<script>", "s", 1, 1, 0)])
