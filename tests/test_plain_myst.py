"""Chapters opened as notebooks outside the book (a download, Colab) show MyST roles as typed
in plain Jupyter (the reader's report, section 4): tcplab.plain_myst turns them into the
text a reader of the book sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tcplab.launch import colab_notebook, notebook_chapters, runtime_pins
from tcplab.plain_myst import GLUE_NOTE, plain_markdown

ROOT = Path(__file__).resolve().parents[1]
BIB = ROOT / "references.bib"


def test_citations_read_as_the_book_prints_them() -> None:
    """Names and years as the papers give them: Morris 1997; Chiu and Jain 1989 (two
    authors); Altman, Barman, Tuffin and Vojnović 2006 (four: "et al.", the accent decoded)."""
    text = "{cite:t}`morris1997many` and {cite}`chiu1989aimd,jacobson1988congestion`"
    assert plain_markdown(text, BIB) == "Morris (1997) and (Chiu and Jain 1989; Jacobson 1988)"
    assert plain_markdown("{cite:p}`altman2006parallel`", BIB) == "(Altman et al. 2006)"
    with pytest.raises(KeyError, match="nobody1999"):
        plain_markdown("{cite:t}`nobody1999`", BIB)


def test_terms_references_and_numbers_read_as_text() -> None:
    cases = {
        "{term}`RED`": "RED",
        "{term}`flows <flow>`": "flows",
        "{ref}`see below <lee-sliver>`": "see below",
        "{doc}`the labs <instructors>`": "the labs",
        "{glue:text}`thesis_n1_tcp_mbps:.1f` Mb/s": "⟨thesis_n1_tcp_mbps⟩ Mb/s",
        "{numref}`fig-packets-events`": "Figure (fig-packets-events)",
    }
    for typed, shown in cases.items():
        assert plain_markdown(typed, BIB) == shown, typed


@pytest.mark.parametrize("chapter", notebook_chapters(ROOT), ids=lambda path: path.stem)
def test_no_chapter_notebook_shows_a_role_as_typed(chapter: Path) -> None:
    """Every chapter's notebook, as the site offers it: no {role}` left in its Markdown; where
    the text had computed numbers, the note saying what ⟨name⟩ means comes first."""
    pins = runtime_pins(ROOT / "requirements.txt")
    notebook = colab_notebook(chapter, "https://github.com/tcplab/tcplab", pins)
    markdown = [cell.source for cell in notebook.cells if cell.cell_type == "markdown"]
    left = [found for text in markdown for found in re.findall(r"\{[a-z:]+\}`[^`]*`", text)]
    assert not left, left[:5]
    if "{glue:text}`" in chapter.read_text(encoding="utf-8"):
        assert notebook.cells[1].source == GLUE_NOTE
