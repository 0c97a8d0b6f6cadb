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


def _cells(text: str) -> list:
    import jupytext

    return jupytext.reads(f"---\njupytext:\n  formats: md:myst\n---\n{text}", fmt="md:myst").cells


def test_numbers_are_printed_as_the_book_prints_them() -> None:
    """With the values the build's run glued, a glued number reads as on the page, formatted
    by myst-nb's own rule (``:.1f`` of "0.7512" is "0.8"; none: the value as it is); a name
    the run did not glue is an error naming it."""
    from tcplab.plain_myst import Rendering

    shown = Rendering(glue={"share": "0.7512", "events": "2000"})
    text = "{glue:text}`share:.1f` after {glue:text}`events` events ({glue:text}`share:.0%`)"
    assert plain_markdown(text, BIB, shown) == "0.8 after 2000 events (75%)"
    with pytest.raises(KeyError, match="'missing'"):
        plain_markdown("{glue:text}`missing:.2f`", BIB, shown)
    known = Rendering(references={"fig-a": "Figure 4.3", "sec-b": "Why it works"})
    assert plain_markdown("{numref}`fig-a`, {ref}`sec-b`", BIB, known) == "Figure 4.3, Why it works"


def test_directives_become_plain_markdown_and_solutions_fold() -> None:
    """An admonition is a quotation under its title, an exercise its number and mark, its
    solution a folded <details>; a gated solution's code cells keep their code with the input
    folded; MyST targets go; the cell that only closed the gate goes too."""
    from tcplab.plain_myst import plain_cells

    text = (
        "(sec-x)=\n## A section\n\n"
        ":::{admonition} Key takeaway\n:class: tip\n\nIt is *so*.\n:::\n\n"
        "```{exercise} ★★ derivation\n:label: ex-a\n\nShow that $x = 1$.\n```\n\n"
        "```{solution} ex-a\n:class: dropdown\n\nBecause.\n```\n\n"
        "```{exercise} ★ code\n:label: ex-b\n\nRun it.\n```\n\n"
        "```{solution-start} ex-b\n:class: dropdown\n```\n\nLike this:\n\n"
        "```{code-cell} ipython3\nprint(1)\n```\n\n```{solution-end}\n```\n"
    )
    cells = plain_cells(_cells(text), ROOT / "chapters" / "x.md", {"ex-a": "4.1", "ex-b": "4.2"})
    markdown = [c.source for c in cells if c.cell_type == "markdown"]
    code = [c for c in cells if c.cell_type == "code"]
    joined = "\n".join(markdown)
    assert "(sec-x)=" not in joined and "{" not in joined.replace("{exercise}", "")
    assert "> **Key takeaway**\n>\n> It is *so*." in joined
    assert "**Exercise 4.1** (★★ derivation)\n\nShow that $x = 1$." in joined
    assert (
        "<details>\n<summary>Solution to Exercise 4.1</summary>\n\nBecause.\n\n</details>" in joined
    )
    assert "**Solution to Exercise 4.2**" in joined and "Like this:" in joined
    assert [c.source for c in code] == ["print(1)"]
    assert code[0].metadata["jupyter"]["source_hidden"] is True
    assert not any("solution-end" in m for m in markdown) and markdown[-1].strip()


def test_an_included_function_is_shown_as_its_code() -> None:
    """A literalinclude of ``:pyobject: Class.method`` shows that method's source, dedented,
    as a code block; an option the conversion does not know, or another directive, raises
    naming it."""
    from tcplab.plain_myst import plain_cells

    chapter = ROOT / "chapters" / "x.md"
    text = (
        "```{literalinclude} ../lib/tcplab/fluid.py\n:language: python\n:pyobject: _Run.step\n```\n"
    )
    shown = plain_cells(_cells(text), chapter, {})[0].source
    assert shown.startswith("```python\ndef step(self") and shown.endswith("\n```")
    with pytest.raises(ValueError, match="lines"):
        plain_cells(
            _cells("```{literalinclude} ../lib/tcplab/fluid.py\n:lines: 1-3\n```\n"), chapter, {}
        )
    with pytest.raises(ValueError, match=r"\{glossary\}"):
        plain_cells(_cells("```{glossary}\nx\n  y\n```\n"), chapter, {})
