"""The reproduction ledger (tcplab.ledger): its format, its rules, its computed statuses.

Each rule's interval is checked on a small sample computed here by hand; a ledger that breaks
the format (a key declared twice, a declared status beside checks) is refused; every check's
rule label is the one its two sides call for; every computed status is the one the book ships
(lib/tcplab/ledger/shipped.toml), so a table that moves a verdict fails here; a table made by
older code is refused; and a tampered table flips what `tcplab claims` prints.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import math
import shutil
import tomllib
from functools import cache as memo
from pathlib import Path

import pandas as pd
import pytest

from tcplab import cache, ledger
from tcplab.claims import Claim
from tcplab.ledger import shipped, tolerance, verdicts

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ledger.entries()
IDS = [f"{e.chapter}:{e.key}" for e in ENTRIES]


@memo
def _judged(chapter: str) -> tuple[ledger.Judged, ...]:
    return tuple(ledger.evaluate(chapter))


def _toml(body: str) -> dict:
    return tomllib.loads('paper = "altman"\npage = "sawtooth"\n' + body)


ITEM = '[[item]]\nkey = "a"\nref = "Sec. I"\nkind = "number"\nwords = "75%"\n'


# -- the format ---------------------------------------------------------------------------------


def test_every_chapter_has_items_and_every_paper_a_count() -> None:
    for chapter in ledger.CHAPTERS:
        assert ledger.chapter_entries(chapter), f"{chapter}: empty ledger"
    assert {e.paper for e in ENTRIES} == set(ledger.PAPERS)


def test_a_key_declared_twice_is_refused() -> None:
    body = ITEM + 'checks = ["x"]\n' + ITEM + 'checks = ["y"]\n'
    with pytest.raises(ledger.LedgerError, match=r"keys \['a'\] are declared more than once"):
        ledger.parse("sawtooth", _toml(body))


def test_a_check_in_two_items_is_refused() -> None:
    body = ITEM + 'checks = ["x"]\n' + ITEM.replace('"a"', '"b"') + 'checks = ["x"]\n'
    with pytest.raises(ledger.LedgerError, match=r"checks \['x'\] belong to more than one item"):
        ledger.parse("sawtooth", _toml(body))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('checks = ["x"]\nstatus = "reproduced"\n', "is computed from the checks"),
        ('status = "reproduced"\n', "without checks must be one of"),
        ("", "without checks must be one of"),
        ('checks = ["x"]\nbook_value = 1.0\n', "unknown fields"),
        ('checks = ["x"]\nat = { y = { paper_value = 1.0 } }\n', "not one of the item's checks"),
        ('checks = ["x"]\nrelation = "near"\n', "relation='near'"),
        ('checks = ["x"]\npaper_value = true\n', "paper_value=True"),
    ],
)
def test_a_broken_item_is_refused_naming_the_field(extra: str, message: str) -> None:
    with pytest.raises(ledger.LedgerError, match=message):
        ledger.parse("sawtooth", _toml(ITEM + extra))


def test_a_statement_may_declare_its_status_and_a_number_may_not() -> None:
    item = ITEM.replace('"number"', '"statement"') + 'status = "differs"\nreason = "a slip"\n'
    (entry,) = ledger.parse("sawtooth", _toml(item))
    assert entry.status == "differs" and entry.origin == "paper"
    (book,) = ledger.parse(
        "sawtooth", _toml(ITEM.replace('"number"', '"book"') + 'checks = ["x"]\n')
    )
    assert book.origin == "book" and book.covers("x") and not book.covers("y")


def test_a_family_of_checks_is_a_pattern() -> None:
    (entry,) = ledger.parse("sawtooth", _toml(ITEM + 'checks = ["tahoe-*-resent"]\n'))
    assert entry.covers("tahoe-1-resent") and entry.covers("tahoe-4-resent")
    assert not entry.covers("reno-1-resent") and not entry.covers("tahoe-1-timeouts")


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_item_says_why_and_where(entry: ledger.Entry) -> None:
    where = f"{entry.chapter}/ledger.toml, {entry.key}"
    assert "TODO" not in entry.reason, f"{where}: the reason is still to be written"
    if entry.status == "not attempted":
        assert entry.reason, f"{where}: not attempted without a reason"
        return
    if entry.kind == "statement" and not entry.checks:
        assert entry.reason, f"{where}: a statement says how it was checked"
        return
    assert entry.shown_in, f"{where}: says nowhere where the chapter shows it"
    if entry.whatif_table:
        shipped_table = cache.Entry(entry.whatif_table)
        assert shipped_table.table.is_file() and shipped_table.meta.is_file(), (
            f"{where}: data/{entry.whatif_table}.csv (and its .meta.json) is missing"
        )
    if entry.kind == "mechanism" and entry.checks:
        assert entry.whatif_table, f"{where}: a mechanism without its what-if table"


@pytest.mark.parametrize("chapter", ledger.CHAPTERS)
def test_every_item_is_computed_and_explained(chapter: str) -> None:
    """Every check of every item is computed from the shipped tables, and an item that differs
    or is partly reproduced says why."""
    for j in _judged(chapter):
        where = f"{chapter}/ledger.toml, {j.entry.key}"
        assert not j.missing, f"{where}: no claim computes {j.missing}"
        if j.status in ("differs", "partly") and j.computed:
            assert j.entry.reason or j.entry.part, f"{where}: {j.status} without saying why"


# -- the rules, by hand -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.7%", 0.0005),  # [0.65%, 0.75%)
        ("97%", 0.005),
        ("17%", 0.005),
        ("about 5%", 0.01),  # approximate: a full unit of the last digit
        ("almost 95%", 0.01),
        ("just over 30%", 0.01),
        ("19033.7", 0.05),
        ("0.13%", 0.00005),
        ("2,170", 0.5),
        ("0.126-0.133", 0.004),  # a range: half its width (0.0035) plus half a unit (0.0005)
    ],
)
def test_printed_precision_is_half_a_unit_of_the_last_digit(text: str, expected: float) -> None:
    assert tolerance.printed(text) == pytest.approx(expected, rel=1e-9)


def test_printed_needs_one_number() -> None:
    with pytest.raises(ValueError, match="exactly one number"):
        tolerance.printed("12/13")
    with pytest.raises(ValueError, match="exactly one number"):
        tolerance.printed("many")


def test_the_interval_of_runs_is_students_t_by_hand() -> None:
    # 1, 2, 3: mean 2, s = 1, t(2) = 4.303 -> 4.303 / sqrt(3) = 2.4844
    assert tolerance.interval([1.0, 2.0, 3.0]) == pytest.approx(4.303 / 3**0.5, rel=1e-12)
    made = tolerance.runs([1.0, 2.0, 3.0])
    assert (made.value, made.basis, made.runs) == (2.0, "interval", 3)
    assert made.low == pytest.approx(2 - 2.4844, abs=1e-4)
    assert made.high == pytest.approx(2 + 2.4844, abs=1e-4)
    assert tolerance.runs([5.0]).basis == "one run"  # one run: no interval


def test_bonferroni_widening_by_hand() -> None:
    # 39 checks: z(1 - 0.025/39) = 3.2199 (normal table: between z(0.999) = 3.090 and
    # z(0.9995) = 3.291) over z(0.975) = 1.96
    assert tolerance.widen(1) == 1.0
    assert tolerance.widen(39) == pytest.approx(3.2199 / 1.95996, rel=1e-3)


ABOVE = "above"


def _paper(value: float, margin: float = 0.0, relation: str = "equal") -> tolerance.Paper:
    basis = "printed" if margin else "exact"
    return tolerance.Paper(value, margin, basis, "by hand", relation)


@pytest.mark.parametrize(
    ("paper", "book", "status", "rule"),
    [
        # a printed 0.90 +- 0.005: the book's range inside, outside, across the edge
        (_paper(0.90, 0.005), tolerance.mean(0.901, 0.002, "x"), "reproduced", "margin"),
        (_paper(0.90, 0.005), tolerance.mean(0.910, 0.002, "x"), "differs", "margin"),
        (_paper(0.90, 0.005), tolerance.mean(0.904, 0.002, "x"), "undecided", "margin"),
        (_paper(0.90, 0.005), tolerance.computed(0.9049), "reproduced", "margin"),
        # an exact value: inside or outside the book's interval, bound, floating point
        (_paper(5 / 24), tolerance.mean(0.20830, 7e-5, "x"), "reproduced", "interval"),
        (_paper(1 / 5), tolerance.mean(0.20830, 7e-5, "x"), "differs", "interval"),
        (_paper(12 / 13), tolerance.bounded(0.92307, 6e-5, "x"), "reproduced", "bound"),
        (_paper(12 / 13), tolerance.bounded(0.92300, 6e-5, "x"), "differs", "bound"),
        (_paper(0.75), tolerance.computed(0.75 + 5e-7), "reproduced", "exact"),
        (_paper(0.75), tolerance.computed(0.75 + 5e-6), "differs", "exact"),
        # a threshold: the whole range above 0, all below, straddling
        (
            _paper(0.0, relation="above"),
            tolerance.mean(0.01, 0.005, "x"),
            "reproduced",
            "threshold",
        ),
        (_paper(0.0, relation=ABOVE), tolerance.mean(-0.01, 0.005, "x"), "differs", "threshold"),
        (
            _paper(0.0, relation="above"),
            tolerance.mean(0.002, 0.005, "x"),
            "undecided",
            "threshold",
        ),
        (_paper(1.025, relation="below"), tolerance.computed(1.0208), "reproduced", "threshold"),
        # one run, and a statement
        (_paper(0.90, 0.005), tolerance.single(0.9), "undecided", "one run"),
        (None, tolerance.holds(True, "x"), "reproduced", "yes/no"),
        (None, tolerance.holds(False, "x"), "differs", "yes/no"),
    ],
)
def test_each_rule_by_hand(paper, book, status: str, rule: str) -> None:  # noqa: ANN001
    found = tolerance.judge(paper, book)
    assert (found.status, found.rule) == (status, rule)
    assert found.words.startswith(f"{rule}:")


def test_an_item_of_many_checks_widens_each_interval() -> None:
    # 0.909 +- 0.003 against 0.90 +- 0.005 lies outside; widened for 39 checks (x 1.643) its
    # range [0.9041, 0.9139] still lies outside, for 2 checks ([0.9057, ...]) too
    book, paper = tolerance.mean(0.909, 0.003, "x"), _paper(0.90, 0.005)
    assert tolerance.judge(paper, book).status == "differs"
    wide = tolerance.judge(paper, tolerance.mean(0.9062, 0.003, "x"), checks=39)
    assert wide.status == "undecided" and wide.low == pytest.approx(
        0.9062 - 0.003 * 1.643, abs=1e-3
    )


def test_an_estimate_must_hold_its_value() -> None:
    with pytest.raises(ValueError, match="must lie in"):
        tolerance.Estimate(1.0, 2.0, 3.0, "interval", "x")
    with pytest.raises(ValueError, match="basis="):
        tolerance.Estimate(1.0, 1.0, 1.0, "guess", "x")
    with pytest.raises(ValueError, match="margin"):
        tolerance.Paper(1.0, 0.1, "exact", "x")
    with pytest.raises(ValueError, match="half_width="):
        tolerance.mean(1.0, -0.1, "x")


def test_the_difference_of_two_means_by_hand() -> None:
    # half-widths 0.03 and 0.04: the difference's is 0.05 (independent means)
    assert tolerance.difference(0.03, 0.04) == pytest.approx(0.05, rel=1e-12)
    with pytest.raises(ValueError, match="theirs="):
        tolerance.difference(0.03, -1.0)


# -- every check of the book: by a rule, labelled by it ----------------------------------------


def _expected_rule(check: ledger.Check) -> str:
    """The rule a check's two sides call for, by the book's methods section."""
    if check.book.basis in ("yes/no", "one run"):
        return check.book.basis
    paper = check.paper
    assert paper is not None
    if paper.relation != "equal":
        return "threshold"
    if paper.margin > 0:
        return "margin"
    return {"exact": "exact", "bound": "bound", "interval": "interval"}[check.book.basis]


@pytest.mark.parametrize("chapter", ledger.CHAPTERS)
def test_every_check_is_judged_by_the_rule_its_label_names(chapter: str) -> None:
    wrong = []
    for j in _judged(chapter):
        for c in j.checks:
            rule = _expected_rule(c)
            if c.verdict.rule != rule or not c.verdict.words.startswith(f"{rule}:"):
                wrong.append(f"{j.entry.key}/{c.key}: {c.verdict.rule} for {rule}")
            if c.paper is not None:
                assert c.paper.basis in ("exact", "printed", "plot"), c.key
            if c.verdict.rule == "exact":  # "exact" only where both sides are exact numbers
                assert c.book.basis == "exact" and c.paper.basis == "exact", c.key
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.precision or e.at], ids=lambda e: e.key)
def test_a_printed_value_is_the_number_it_prints(entry: ledger.Entry) -> None:
    """The paper's value beside a printed precision is the number in that text (a percentage
    as a fraction, the middle of a range): written once, it cannot say two things."""
    sides = [(entry.paper_value, entry.precision)] + [(v, p) for v, p, _ in entry.at.values()]
    for value, precision in sides:
        if not precision or precision == "exact" or precision.startswith("plot:"):
            continue
        value = entry.paper_value if value is None else value
        low, high = tolerance.printed_value(precision)
        assert value == pytest.approx((low + high) / 2, rel=1e-9), (entry.key, precision)


def _constructed_by_hand(path: Path) -> list[str]:
    """Calls in a chapter's claims that make a side of a check by hand (not by a rule's
    constructor), or give a rule's width as a typed number."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        if name in ("Estimate", "Paper", "Verdict", "Tolerance"):
            found.append(f"{path.name}:{node.lineno}: {name}(...)")
        if name in ("mean", "bounded", "identity_bound") and len(node.args) >= 2:
            width = node.args[1]
            if isinstance(width, ast.Constant) and isinstance(width.value, int | float):
                found.append(f"{path.name}:{node.lineno}: {name} with a typed width {width.value}")
    return found


def test_no_check_is_given_a_tolerance_of_its_own() -> None:
    folder = ROOT / "lib" / "tcplab" / "chapters"
    found = [line for path in sorted(folder.glob("*/*.py")) for line in _constructed_by_hand(path)]
    assert not found, "sides of checks not made by a rule:\n" + "\n".join(found)


def test_the_hand_made_check_detector_can_fail(tmp_path: Path) -> None:
    path = tmp_path / "claims.py"
    path.write_text("x = tolerance.mean(v, 0.05, 'runs')\ny = Estimate(1, 0, 2, 'x', 'y')\n")
    assert len(_constructed_by_hand(path)) == 2


# -- the statuses the book ships ---------------------------------------------------------------


def test_every_computed_status_is_the_shipped_one() -> None:
    """A table or a claim that moves a verdict fails here until `tcplab claims
    --write-shipped` records it on purpose."""
    moved = shipped.changes([j for chapter in ledger.CHAPTERS for j in _judged(chapter)])
    assert not moved, "\n".join(moved)


def test_the_shipped_file_names_each_item_once(tmp_path: Path) -> None:
    found = shipped.read()
    assert set(found) == set(ledger.CHAPTERS)
    for chapter in ledger.CHAPTERS:
        assert set(found[chapter]) == {e.key for e in ledger.chapter_entries(chapter)}, chapter
        assert set(found[chapter].values()) <= set(ledger.STATUSES)
    # written and read back: the same statuses
    judged = list(_judged("sawtooth"))
    shipped.write(judged, tmp_path / "s.toml")
    assert shipped.read(tmp_path / "s.toml") == {"sawtooth": found["sawtooth"]}


def _tampered(monkeypatch: pytest.MonkeyPatch, name: str, column: str, factor: float) -> None:
    """Make the stored result's check (``cache.check``, what every reader of data/ goes
    through) hand back data/<name>.csv with ``column`` multiplied by ``factor``."""
    check = cache.check

    def tampered(entry: cache.Entry, **options):  # noqa: ANN003, ANN202
        found = check(entry, **options)
        if found.table is None or entry.name != name:
            return found
        return dataclasses.replace(found, table=found.table.assign(
            **{column: found.table[column] * factor}))  # fmt: skip

    monkeypatch.setattr(cache, "check", tampered)


def test_a_tampered_table_flips_the_computed_status(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reliability report's case: a table multiplied by 10 still printed "reproduced"."""
    assert {j.entry.key: j.status for j in _judged("sawtooth")}["tcp-75"] == "reproduced"
    _tampered(monkeypatch, "sawtooth-utilisation", "simulated", 10.0)
    found = {j.entry.key: j.status for j in ledger.evaluate("sawtooth")}
    assert found == {"tcp-75": "differs", "one-any-beta": "differs"}
    moved = shipped.changes(ledger.evaluate("sawtooth"))
    assert moved == [
        "sawtooth:tcp-75 is differs; the book ships reproduced",
        "sawtooth:one-any-beta is differs; the book ships reproduced",
    ]


def _data_copy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, names: tuple[str, ...]) -> Path:
    """A data folder holding copies of the shipped pairs ``names``, read in place of data/."""
    for name in names:
        for suffix in (".csv", ".meta.json"):
            shutil.copy(cache.DATA_DIR / f"{name}{suffix}", tmp_path)
    monkeypatch.setattr(cache, "DATA_DIR", tmp_path)
    return tmp_path


def test_a_table_made_by_older_code_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Switch the freshness guard of full_tables off and this fails: a table whose recorded
    code fingerprint is not the code's must not be read; the error names the restamp."""
    data = _data_copy(monkeypatch, tmp_path, ("sawtooth-paths", "sawtooth-utilisation"))
    meta_path = data / "sawtooth-utilisation.meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "fingerprint": "0" * 16}))
    older = r"sawtooth-utilisation\.csv is stale \(code: .*tcplab data --restamp"
    with pytest.raises(ledger.LedgerError, match=older):
        ledger.full_tables("sawtooth")
    with pytest.raises(ledger.LedgerError, match="stale"):
        ledger.evaluate("sawtooth")


def test_a_missing_table_names_the_command_that_makes_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _data_copy(monkeypatch, tmp_path, ("sawtooth-paths",))
    with pytest.raises(ledger.LedgerError, match=r"tcplab data --only sawtooth-utilisation"):
        ledger.full_tables("sawtooth")


def test_the_judge_refuses_a_check_with_no_paper_side() -> None:
    entry = ledger.parse("sawtooth", _toml(ITEM + 'checks = ["x"]\n'))[0]
    with pytest.raises(ledger.LedgerError, match="needs the paper's value and precision"):
        verdicts.judge_with(entry, {"x": Claim("x", tolerance.computed(1.0))})
    printed = ledger.parse("sawtooth", _toml(ITEM + 'checks = ["x"]\nprecision = "75%"\n'))[0]
    with pytest.raises(ledger.LedgerError, match="goes in ledger.toml"):
        verdicts.judge_with(printed, {"x": Claim("x", tolerance.computed(0.75), paper=0.75)})
    with pytest.raises(ledger.LedgerError, match="needs the paper's value and precision"):
        verdicts.judge_with(printed, {"x": Claim("x", tolerance.computed(0.751))})


def test_an_item_is_the_worst_of_its_checks_and_partly_when_it_covers_part() -> None:
    body = ITEM + 'checks = ["x", "y"]\npaper_value = 0.9\nprecision = "90%"\n'
    entry = ledger.parse("sawtooth", _toml(body))[0]
    good, edge = tolerance.mean(0.9, 0.001, "x"), tolerance.mean(0.904, 0.003, "x")
    both = verdicts.judge_with(entry, {"x": Claim("x", good), "y": Claim("y", edge)})
    assert [c.status for c in both.checks] == ["reproduced", "undecided"]
    assert both.status == "undecided" and both.deciding.key == "y"
    part = ledger.parse("sawtooth", _toml(body + 'part = "N = 1"\n'))[0]
    assert verdicts.judge_with(part, {"x": Claim("x", good)}).status == "partly"


# -- the command --------------------------------------------------------------------------------


def _claims(*argv: str) -> tuple[int, str, str]:
    import contextlib

    from tcplab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["claims", *argv])
        except SystemExit as stop:  # argparse's --help
            status = int(stop.code or 0)
    return status, out.getvalue(), err.getvalue()


def test_claims_summary_counts_the_papers_items_and_the_books_apart() -> None:
    status, out, err = _claims("--summary", "--json")
    assert status == 0, err
    found = json.loads(out)
    assert set(found) == set(ledger.PAPERS)
    judged = [j for chapter in ledger.CHAPTERS for j in _judged(chapter)]
    for paper, counts in found.items():
        assert set(counts) == {"items", "book"}
        for origin, name in (("paper", "items"), ("book", "book")):
            mine = [j for j in judged if j.entry.paper == paper and j.entry.origin == origin]
            assert counts[name]["total"] == len(mine)
            assert list(counts[name])[:-1] == list(ledger.STATUSES)
            assert sum(counts[name][s] for s in ledger.STATUSES) == len(mine)
    assert found["altman"]["book"]["total"] > 0


def test_claims_prints_the_computed_status_of_a_tampered_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _tampered(monkeypatch, "sawtooth-utilisation", "simulated", 10.0)
    status, out, err = _claims("sawtooth", "--json")
    assert status == 1
    rows = {r["key"]: r for r in json.loads(out)}
    assert rows["tcp-75"]["status"] == "differs" and rows["tcp-75"]["book_value"] > 7
    lines = err.strip().splitlines()
    assert "sawtooth:tcp-75 is differs; the book ships reproduced" in lines[0]
    assert "not the ones the book ships" in lines[-1]


def test_claims_of_one_chapter_as_json_and_csv() -> None:
    status, out, _ = _claims("sawtooth", "--json")
    assert status == 0
    rows = json.loads(out)
    assert [r["key"] for r in rows] == [e.key for e in ledger.entries("sawtooth")]
    assert set(rows[0]) == set(verdicts.FIELDS)
    assert rows[0]["checks"] and rows[0]["rule"] == "exact"
    status, out, _ = _claims("--paper", "rfc", "--csv")
    assert status == 0 and out.splitlines()[0] == ",".join(verdicts.FIELDS)
    table = pd.read_csv(io.StringIO(out))
    assert len(table) == len(ledger.entries(paper="rfc"))


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (("nowhere",), "sawtooth"),
        (("--paper", "smith"), "altman"),
        (("--summary", "--csv"), "--summary"),
        (("morris", "--paper", "lee"), "reproduces --paper='morris'"),
        (("--write-shipped", "sawtooth"), "--write-shipped"),
    ],
)
def test_claims_refuses_what_it_cannot_do_in_one_line(argv: tuple[str, ...], names: str) -> None:
    status, out, err = _claims(*argv)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert names in lines[0]


def test_the_words_are_the_methods_sections() -> None:
    assert ledger.STATUSES == ("reproduced", "partly", "undecided", "differs", "not attempted")
    assert ledger.KINDS == ("number", "shape", "mechanism", "statement", "book")
    assert list(ledger.PAPERS)[:5] == ["altman", "morris", "honda", "lu", "lee"]
    methods = (ROOT / "chapters" / "reproduces.md").read_text(encoding="utf-8")
    for word in (*ledger.STATUSES, *ledger.KINDS):
        assert f"**{word}**" in methods, word
    for rule in tolerance.RULES:
        assert f"`{rule}`" in methods, rule
    assert math.isclose(tolerance.EXACT, 1e-6)


def test_a_claim_two_items_check_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    body = ITEM + 'checks = ["x-*"]\nprecision = "exact"\npaper_value = 1.0\n'
    body += (
        ITEM.replace('"a"', '"b"') + 'checks = ["x-1"]\nprecision = "exact"\npaper_value = 1.0\n'
    )
    found = ledger.parse("sawtooth", _toml(body))
    monkeypatch.setattr(verdicts, "chapter_entries", lambda chapter: found)
    with pytest.raises(ledger.LedgerError, match=r"claims that two items check: \['x-1'\]"):
        verdicts.judge("sawtooth", {"x-1": Claim("x", tolerance.computed(1.0))}, complete=True)
