"""Key takeaway boxes (reader's report, section 5, Pace: "no 'key takeaway' boxes between
sections"): every major section (``##``) of a numbered chapter that presents a result - a
numbered figure or a paper-vs-book table - ends with exactly one box "Key takeaway", and no
takeaway types a decimal number or a percentage (a number the chapter computes comes from a
glue role, never typed in). Whether a takeaway says only what its section shows is a matter
for the reader and the referee; these are the rules a program can check."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tcplab import syllabus

ROOT = Path(__file__).resolve().parents[1]

_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^## (.+)$", re.MULTILINE)
_FIGURE = re.compile(r"^\s*:?name: fig-", re.MULTILINE)  # a code cell's figure, or {figure}
_PAPER_VS_BOOK = re.compile(r"\bclaims_html\(")
_BOX = re.compile(
    r"^(?P<fence>:{3,}|`{3,})\{admonition\} Key takeaway\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_GLUE = re.compile(r"\{glue(?::text)?\}`[^`]*`")
_TYPED_NUMBER = re.compile(r"\d*\.?\d+\s*(?:%|per ?cent\b)|\d+\.\d+", re.IGNORECASE)
#: a reference is not a number: eq. (3.2), Fig. 4.1, Secs. 3.2 and 4.1, 4.4BSD
_REFERENCE = re.compile(
    r"\b(?:eqs?\.|figs?\.|secs?\.|sections?|chapters?)\s*\(?\d+(?:\.\d+)*\)?"
    r"(?:(?:\s*(?:,|and|-|–)\s*)\(?\d+(?:\.\d+)*\)?)*|\b\d+\.\d+BSD\b",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"(?:\s|^\([\w-]+\)=$)*\Z", re.MULTILINE)
#: sections that present no result of their own: they get no takeaway
NO_TAKEAWAY = re.compile(r"^(Summary|Exercises|References|Learning objectives|Notation)\b")


def sections(source: str) -> list[tuple[str, str]]:
    """The ``##`` sections of a MyST chapter, (heading, body), in order; a ``##`` inside a
    code cell is not a heading."""
    cells = [m.span() for m in _CODE_CELL.finditer(source)]
    starts = [m for m in _HEADING.finditer(source) if not any(a <= m.start() < b for a, b in cells)]
    return [
        (m.group(1).strip(), source[m.end() : nxt.start() if nxt else len(source)])
        for m, nxt in zip(starts, [*starts[1:], None], strict=True)
    ]


def presents_result(body: str) -> bool:
    """Whether a section holds a numbered figure or a paper-vs-book table."""
    return bool(_FIGURE.search(body) or _PAPER_VS_BOOK.search(body))


def problems(name: str, source: str) -> list[str]:
    """What breaks the takeaway rules in chapter ``name``'s ``source``, one line each."""
    found = []
    for heading, body in sections(source):
        boxes = list(_BOX.finditer(body))
        where = f"{name}: section {heading!r}"
        if NO_TAKEAWAY.match(heading) and boxes:
            found.append(f"{where}: a takeaway in a section that presents no result")
        if presents_result(body):
            if len(boxes) != 1:
                found.append(f"{where}: {len(boxes)} Key takeaway boxes, not exactly one")
            elif not _TRAILING.fullmatch(body[boxes[0].end() :]):
                found.append(f"{where}: the Key takeaway is not at the end of the section")
        for box in boxes:
            if ":class: tip takeaway" not in box.group("body"):
                found.append(f"{where}: a Key takeaway without its classes tip takeaway")
            text = _REFERENCE.sub("", _GLUE.sub("", box.group("body")))
            typed = _TYPED_NUMBER.search(text)
            if typed:
                found.append(f"{where}: a typed number ({typed.group(0)!r}) in its takeaway")
    return found


SNIPPET = """# A chapter

## Learning objectives

Read it.

## The model

A derivation with no figure: a takeaway is allowed, not required.

## See it

```{code-cell} ipython3
---
mystnb:
  figure:
    caption: A chart.
    name: fig-one
---
## not a heading: a comment in a code cell
chart()
```

Text.

:::{admonition} Key takeaway
:class: tip takeaway

By eq. (3.2) and Figs. 4.1 and 4.2 (references, not numbers), the mean is
{glue:text}`mean:.3f`, as the formula says.
:::

(next-label)=
## Paper vs. book

```{code-cell} ipython3
HTML(claims_html(rows))
```

## Summary

* Done.
"""


def test_the_rules_are_read_from_a_hand_made_chapter() -> None:
    # by hand: four sections (the "##" in the code cell is not one); "See it" (a figure) has
    # its takeaway at its end, before the next section's label; "Paper vs. book" (a table)
    # has none
    assert [h for h, _ in sections(SNIPPET)] == [
        "Learning objectives",
        "The model",
        "See it",
        "Paper vs. book",
        "Summary",
    ]
    assert [presents_result(b) for _, b in sections(SNIPPET)] == [False, False, True, True, False]
    assert problems("demo", SNIPPET) == [
        "demo: section 'Paper vs. book': 0 Key takeaway boxes, not exactly one"
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("as the formula says.", "a typed number ('0.75')"),
        (
            "as the formula says.\n:::\n\nMore text after it.\n\n:::{admonition} Key takeaway\n"
            ":class: tip takeaway\n\nAgain.",
            "2 Key takeaway boxes",
        ),
        ("as the formula says.\n:::\n\nMore text after it.\n\n:::{note}\nx", "not at the end"),
        ("as the formula says.", "a typed number ('75%')"),
        ("as the formula says.", "a typed number ('5 per cent')"),
    ],
)
def test_a_broken_takeaway_is_refused_by_name(change: str, message: str) -> None:
    replacement = {
        "a typed number ('0.75')": "and it is 0.75 of the link.",
        "a typed number ('75%')": "and it is 75% of the link.",
        "a typed number ('5 per cent')": "within 5 per cent.",
    }.get(message, change)
    source = SNIPPET.replace("as the formula says.", replacement)
    assert any(message in p and "'See it'" in p for p in problems("demo", source)), problems(
        "demo", source
    )


def test_a_takeaway_in_the_summary_is_refused() -> None:
    source = SNIPPET.replace(
        "* Done.", "* Done.\n\n:::{admonition} Key takeaway\n:class: tip takeaway\n\nNo.\n:::"
    )
    assert "demo: section 'Summary': a takeaway in a section that presents no result" in problems(
        "demo", source
    )


def test_every_result_section_of_every_numbered_chapter_ends_with_one_takeaway() -> None:
    found: list[str] = []
    results = 0
    for path in syllabus.chapters(ROOT):
        source = path.read_text(encoding="utf-8")
        found += problems(path.stem, source)
        results += sum(presents_result(b) for _, b in sections(source))
    assert not found, "\n".join(found)
    assert results >= 40  # the report's chapters: 13 figures in the densest one alone
