"""The signposts (tcplab.syllabus): reading time, exercises and level of each chapter, and
the instructors' course map (reader's report, sections 4 and 5: "no reading-time or
difficulty signposts", "no syllabus, no dependency map, no time estimates")."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tcplab import syllabus

ROOT = Path(__file__).resolve().parents[1]

SNIPPET = """---
jupytext:
  formats: md:myst
---
# A title

Two words $x^2$ and {term}`slow start`.

```{code-cell} ipython3
:tags: [remove-cell]
print("none of these words count")
```

$$
a = b + c
$$

```{exercise}
:label: one
Add it up.
```

:::{admonition} Objectives
**Prerequisites:** the sawtooth
and a queue.
:::
"""


def test_prose_words_counts_the_text_a_reader_reads() -> None:
    # by hand: "A title" 2, "Two words formula and slow start" 6, the display formula 1,
    # "Add it up" 3, "Prerequisites the sawtooth and a queue" 6 (front matter, code cell,
    # directive lines and options, Markdown marks: none)
    assert syllabus.prose_words(SNIPPET) == 18


@pytest.mark.parametrize(("words", "minutes"), [(1, 5), (750, 5), (751, 10), (4500, 30)])
def test_reading_time_is_words_at_150_a_minute_rounded_up_to_five(words: int, minutes: int) -> None:
    assert syllabus.Facts("sawtooth", words, 0, "").minutes == minutes


def test_facts_and_the_glance_line_sit_under_the_prerequisites() -> None:
    chapter = syllabus.facts("sawtooth", SNIPPET)
    assert (chapter.exercises, chapter.prerequisites) == (1, "the sawtooth and a queue.")
    out = syllabus.add_glance("sawtooth", SNIPPET)
    assert "and a queue.\n\n**At a glance:** about 5 minutes to read (18 words" in out
    assert out.index("At a glance") < out.index(":::\n", out.index("Prerequisites"))
    assert "1 exercise;" in out and "level: introductory" in out


def test_a_chapter_without_a_level_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="name='nowhere'"):
        syllabus.facts("nowhere", SNIPPET)


def test_every_numbered_chapter_has_a_level_and_prerequisites() -> None:
    """A chapter added to the book's parts gets a level and a prerequisites line, or this
    fails (the back matter, unnumbered, has neither)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    numbered = [
        Path(c["file"]).name for p in toc["parts"] if p.get("numbered") for c in p["chapters"]
    ]
    assert [p.stem for p in syllabus.chapters(ROOT)] == numbered
    for path in syllabus.chapters(ROOT):
        assert syllabus.facts(path.stem, path.read_text(encoding="utf-8")).prerequisites, path


def test_every_chapter_page_and_the_course_map_show_the_signposts(built_book: Path) -> None:
    instructors = (built_book / "chapters" / "instructors.html").read_text(encoding="utf-8")
    assert "tcplab: course map" not in instructors  # the marker was replaced
    for path in syllabus.chapters(ROOT):
        chapter = syllabus.facts(path.stem, path.read_text(encoding="utf-8"))
        page = html.unescape(
            re.sub(r"<[^>]+>", "", (built_book / "chapters" / f"{path.stem}.html").read_text())
        )
        line = f"At a glance: about {chapter.minutes} minutes to read ({chapter.words:,} words"
        assert line in page, path.stem
        row = re.search(
            rf'<tr[^>]*>\s*<td[^>]*><p><a[^>]*href="{path.stem}.html"[^>]*>.*?</tr>',
            instructors,
            re.DOTALL,
        )
        assert row, f"no row for {path.stem} in the course map"
        cells = [
            html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), re.DOTALL)
        ]
        assert cells[1:4] == [f"{chapter.minutes} min", str(chapter.exercises), chapter.level]
