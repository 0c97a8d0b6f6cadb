"""The reproduction ledger (tcplab.ledger): every entry well formed, checked and shown.

The rules of the ledger issue, as tests: every ``number`` and ``shape`` entry the book attempts
is a computed row of its chapter's claims (held to its status by the verdict test), with a
tolerance set by one of the book's rules; every ``mechanism`` entry names its what-if table in
data/ and the test that checks the effect goes away; an entry without a test, a ``not
attempted`` without a reason, a ``partly`` that does not say what part, fails here.
"""

from __future__ import annotations

import ast
import json
import re
from functools import cache as memo
from pathlib import Path

import pytest

from tcplab import cache, ledger
from tcplab.claims import Claim, ruled
from tcplab.ledger import tolerance

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = ledger.entries()
IDS = [f"{e.chapter}:{e.key}" for e in ENTRIES]


@memo
def _computed(chapter: str) -> dict[str, ledger.Entry]:
    return {e.key: e for e in ledger.computed_entries(chapter, ledger.full_tables(chapter))}


def test_every_chapter_has_a_ledger_and_every_paper_entries() -> None:
    for chapter in ledger.CHAPTERS:
        assert ledger.chapter_entries(chapter), f"{chapter}: empty ledger"
    assert set(ledger.summary()) == set(ledger.PAPERS)


@pytest.mark.parametrize("chapter", ledger.CHAPTERS)
def test_every_row_a_chapter_shows_is_an_entry_of_its_ledger(chapter: str) -> None:
    """One list, not two: each key of the chapter's claims is a ledger entry, and each entry
    the verdict test holds (every attempted number and shape) is a row the claims compute."""
    computed = {k for k, e in _computed(chapter).items() if e.computed}
    declared = {e.key for e in ledger.chapter_entries(chapter)}
    module = __import__(f"tcplab.chapters.{chapter}.claims", fromlist=["chapter_claims"])
    rows = set(module.chapter_claims(ledger.full_tables(chapter)))
    assert rows <= declared, f"rows without a ledger entry: {sorted(rows - declared)}"
    held = set(ledger.expected_verdicts(chapter))
    assert held <= computed, f"entries no claim computes: {sorted(held - computed)}"


@pytest.mark.parametrize("chapter", ledger.CHAPTERS)
def test_every_computed_row_has_a_tolerance_by_rule(chapter: str) -> None:
    unruled = [
        f"{k}: tolerance {e.tolerance} (rule {e.rule!r})"
        for k, e in _computed(chapter).items()
        if e.computed and e.rule.split(":")[0] not in tolerance.RULES
    ]
    assert not unruled, "tolerances not set by a rule of tcplab.ledger.tolerance:\n" + "\n".join(
        unruled
    )


def _test_exists(name: str) -> bool:
    path, _, function = name.partition("::")
    function = function.split("[")[0]
    file = ROOT / path
    if not (path.startswith("tests/") and file.is_file() and function):
        return False
    tree = ast.parse(file.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
        for node in ast.walk(tree)
    )


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_entry_is_complete(entry: ledger.Entry) -> None:
    where = f"{entry.chapter}/ledger.toml, {entry.key}"
    assert "TODO" not in entry.reason, f"{where}: the reason is still to be written"
    if entry.status == "not attempted":
        assert entry.reason, f"{where}: not attempted without a reason"
        return
    assert entry.shown_in, f"{where}: says nowhere where the chapter shows it"
    if entry.status in ("partly", "differs"):
        assert entry.reason, f"{where}: {entry.status} without saying what part or why"
    if entry.kind in ("number", "shape"):
        assert entry.test in ("", ledger.VERDICT_TEST), (
            f"{where}: a {entry.kind} entry is checked by the ledger's verdict test, with its "
            "own tolerance: make it a row of the chapter's claims"
        )
    if entry.test:
        assert _test_exists(entry.test), f"{where}: no test {entry.test}"
    if entry.kind == "mechanism" and (entry.whatif_table or entry.status != "partly"):
        # reproduced: the what-if run removes the effect; differs: it shows the explanation
        # fails; partly: the reason says what is missing (the run itself, or part of its effect)
        assert entry.whatif_table, f"{where}: a mechanism without its what-if table"
        shipped = cache.Entry(entry.whatif_table)
        assert shipped.table.is_file() and shipped.meta.is_file(), (
            f"{where}: data/{entry.whatif_table}.csv (and its .meta.json) is missing"
        )
        assert entry.test or _computed(entry.chapter)[entry.key].computed, (
            f"{where}: a mechanism needs the test that checks the effect goes away"
        )
    if entry.claim == "" and entry.test not in ("", ledger.VERDICT_TEST):
        pytest.fail(f"{where}: an entry without a computed row says its claim")


def test_the_summary_counts_the_entries() -> None:
    counts = ledger.summary()
    assert sum(sum(c.values()) for c in counts.values()) == len(ENTRIES)
    assert list(counts) == [p for p in ledger.PAPERS if p in counts]


def test_a_broken_ledger_fails_with_a_message_naming_the_field(tmp_path: Path) -> None:
    bad = ledger._entry
    with pytest.raises(ledger.LedgerError, match="status='done'"):
        bad("c", "p", "altman", {"key": "k", "ref": "r", "kind": "number", "status": "done"}, "x")
    with pytest.raises(ledger.LedgerError, match="kind="):
        bad("c", "p", "altman", {"key": "k", "ref": "r", "kind": "guess", "status": "partly"}, "x")
    with pytest.raises(ledger.LedgerError, match="unknown fields"):
        bad("c", "p", "altman", {"key": "k", "ref": "r", "kind": "number", "status": "partly",
                                 "book_value": 1.0}, "x")  # fmt: skip
    with pytest.raises(ledger.LedgerError, match="chapter="):
        ledger.chapter_entries("nowhere")


def test_a_wrong_status_fails_the_verdict_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Declare a reproduced row `differs`: the verdict test's comparison reports it."""
    import test_chapter_claims as verdicts

    first = ledger.chapter_entries("sawtooth")[0]
    flipped = (ledger.Entry(**{**first.__dict__, "status": "differs"}),)
    module = verdicts._claims_module("sawtooth")
    found = module.chapter_claims(ledger.full_tables("sawtooth"))
    assert found[first.key].within == verdicts._expected(module, "full")[first.key]
    monkeypatch.setattr(ledger, "chapter_entries", lambda chapter: flipped)
    assert found[first.key].within != verdicts._expected(module, "full")[first.key]


# -- the tolerance rules, from their definitions ------------------------------------------------


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
    ],
)
def test_printed_precision_is_half_a_unit_of_the_last_digit(text: str, expected: float) -> None:
    assert tolerance.printed(text) == pytest.approx(expected, rel=1e-12)


def test_printed_needs_one_number() -> None:
    with pytest.raises(ValueError, match="exactly one number"):
        tolerance.printed("12/13")
    with pytest.raises(ValueError, match="exactly one number"):
        tolerance.printed("many")


def test_the_interval_is_students_t_by_hand() -> None:
    # 1, 2, 3: mean 2, s = 1, t(2) = 4.303 -> 4.303 / sqrt(3) = 2.4844
    assert tolerance.interval([1.0, 2.0, 3.0]) == pytest.approx(4.303 / 3**0.5, rel=1e-12)
    assert tolerance.interval([5.0]) == 0.0


def test_a_number_takes_the_larger_blur() -> None:
    narrow = tolerance.number("0.7%", values=[0.0129, 0.0130, 0.0131])
    assert narrow.value == pytest.approx(0.0005) and narrow.rule.startswith("printed")
    wide = tolerance.number("0.7%", values=[0.010, 0.013, 0.016])
    assert wide.value == pytest.approx(4.303 * 0.003 / 3**0.5) and wide.rule.startswith("interval")
    one = tolerance.number("0.7%", values=[0.013])
    assert one.value == 0.0005 and "one run" in one.rule


def test_plot_exact_and_statement_rules() -> None:
    assert tolerance.plot(0.01).value == 0.01
    assert tolerance.plot(0.01, half_width=0.02).rule.startswith("interval")
    assert tolerance.exact().value == tolerance.EXACT
    assert tolerance.exact(half_width=0.003).value == 0.003
    assert tolerance.statement().value == 0.0
    with pytest.raises(ValueError, match="rule="):
        tolerance.Tolerance(0.1, "chosen: looks right")


def test_a_ruled_claim_keeps_its_rule() -> None:
    claim = ruled("x", "Sec. I", 0.7, 0.72, tolerance.number("0.7"))
    assert isinstance(claim, Claim) and claim.tolerance == 0.05 and claim.within
    assert claim.rule.startswith("printed")


# -- the command --------------------------------------------------------------------------------


def _claims(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from tcplab.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["claims", *argv])
        except SystemExit as stop:  # argparse's --help
            status = int(stop.code or 0)
    return status, out.getvalue(), err.getvalue()


def test_claims_summary_lists_every_paper_with_its_counts() -> None:
    status, out, _ = _claims("--summary", "--json")
    assert status == 0
    found = json.loads(out)
    assert set(found) == set(ledger.PAPERS)
    for counts in found.values():
        assert list(counts) == list(ledger.STATUSES)
    assert found == ledger.summary()


def test_claims_of_one_chapter_as_json_and_csv() -> None:
    status, out, _ = _claims("sawtooth", "--json")
    assert status == 0
    rows = json.loads(out)
    assert [r["ref"] for r in rows] == [e.ref for e in ledger.entries("sawtooth")]
    assert set(rows[0]) == set(ledger.FIELDS)
    assert all(isinstance(r["book_value"], float) for r in rows if r["kind"] == "number")
    status, out, _ = _claims("--paper", "altman", "--csv")
    assert status == 0 and out.splitlines()[0] == ",".join(ledger.FIELDS)


@pytest.mark.parametrize(
    ("argv", "names"),
    [(("nowhere",), "sawtooth"), (("--paper", "smith"), "altman"), (("--summary", "--csv"), "")],
)
def test_claims_refuses_an_unknown_chapter_or_paper(argv: tuple[str, ...], names: str) -> None:
    status, out, err = _claims(*argv)
    assert status != 0 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert names in lines[0]


def test_the_status_words_are_the_issues() -> None:
    assert ledger.STATUSES == ("reproduced", "partly", "differs", "not attempted")
    assert ledger.KINDS == ("number", "shape", "mechanism")
    assert list(ledger.PAPERS)[:5] == ["altman", "morris", "honda", "lu", "lee"]
    assert all(re.fullmatch(r"[a-z0-9]+", p) for p in ledger.PAPERS)


def test_the_difference_of_two_means_by_hand() -> None:
    # half-widths 0.03 and 0.04: the difference's is 0.05 (independent means)
    assert tolerance.difference(0.03, 0.04) == pytest.approx(0.05, rel=1e-12)
    with pytest.raises(ValueError, match="theirs="):
        tolerance.difference(0.03, -1.0)
