"""The signposts (tcplab.syllabus): reading time, exercises and level of each chapter, the
exercises' marks (difficulty and kind), and the instructors' course map (reader's report,
sections 4 and 5: "no reading-time or difficulty signposts", "no syllabus, no dependency map,
no time estimates, no difficulty marks on exercises")."""

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

```{exercise} ★★ by hand
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
    assert syllabus.Facts("sawtooth", words, (), "").minutes == minutes


def test_facts_and_the_glance_line_sit_under_the_prerequisites() -> None:
    chapter = syllabus.facts("sawtooth", SNIPPET)
    assert (chapter.exercises, chapter.prerequisites) == (1, "the sawtooth and a queue.")
    out = syllabus.add_glance("sawtooth", SNIPPET)
    assert "and a queue.\n\n**At a glance:** about 5 minutes to read (18 words" in out
    assert out.index("At a glance") < out.index(":::\n", out.index("Prerequisites"))
    assert "then 1 exercise (1\u00a0<span" in out and "★★</span>); level: introductory" in out


MARKED = """Text.

```{exercise} ★ by hand
:label: ex-first

One.
```

:::{exercise} ★★★ derivation
:class: dropdown
:label: ex-second
Two.
:::

```{exercise-start} ★★ code
:label: ex-gated
```

```{exercise} ★★ data
:label: ex-third
Three.
```
"""


def test_exercise_marks_are_parsed_in_order() -> None:
    # by hand: three exercise directives (the gated exercise-start is not one), their
    # labels, stars and kinds as written above
    assert syllabus.exercises("sawtooth", MARKED) == [
        syllabus.Exercise("ex-first", 1, "by hand"),
        syllabus.Exercise("ex-second", 3, "derivation"),
        syllabus.Exercise("ex-third", 2, "data"),
    ]
    assert syllabus.by_difficulty(syllabus.exercises("sawtooth", MARKED)) == "1 ★, 1 ★★, 1 ★★★"


@pytest.mark.parametrize(
    "title",
    ["", "★★", "code", "★★★★ code", "** code", "★★ coding", "2 code", "★★code", "★ ★ code"],
)
def test_a_missing_or_garbled_mark_is_refused_naming_chapter_and_exercise(title: str) -> None:
    source = MARKED.replace("```{exercise} ★★ data", f"```{{exercise}} {title}".rstrip())
    with pytest.raises(ValueError, match=r"chapter 'many-flows', exercise 'ex-third': mark"):
        syllabus.exercises("many-flows", source)
    with pytest.raises(ValueError, match="'ex-third'"):
        syllabus.facts("many-flows", source)


def test_an_exercise_without_a_label_is_refused_by_its_number() -> None:
    source = MARKED.replace(":label: ex-second\n", "")
    with pytest.raises(ValueError, match=r"chapter 'sawtooth', exercise 2 \(it has no :label:\)"):
        syllabus.exercises("sawtooth", source)


def test_the_page_shows_the_stars_as_a_picture_named_in_words() -> None:
    out = syllabus.mark_exercises("sawtooth", MARKED)
    expected = (
        '```{exercise} <span class="tcplab-difficulty" role="img" '
        'aria-label="difficulty 3 of 3, challenge" title="difficulty 3 of 3, challenge">'
        "★★★</span> derivation\n:class: dropdown\n:label: ex-second\n"
    )
    assert expected.replace("```", ":::") in out
    assert "```{exercise-start} ★★ code" in out  # not an exercise directive: left alone
    assert out.count('role="img"') == 3


def test_every_exercise_of_every_chapter_carries_a_mark() -> None:
    """Every {exercise} of every chapter (back matter too) has a mark that parses, and the
    numbered chapters have their exercises (the report counted 38 at the time)."""
    total = 0
    for path in sorted((ROOT / "chapters").glob("*.md")):
        source = path.read_text(encoding="utf-8")
        marks = syllabus.exercises(path.stem, source)  # raises, naming the exercise
        assert len(marks) == source.count("{exercise}"), path.stem
        assert len({m.label for m in marks}) == len(marks), path.stem
        total += len(marks)
    assert total >= 38


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
        ).replace("\xa0", " ")
        line = f"At a glance: about {chapter.minutes} minutes to read ({chapter.words:,} words"
        assert line in page, path.stem
        row = re.search(
            rf'<tr[^>]*>\s*<td[^>]*>(?:<p>)?<a[^>]*href="{path.stem}.html"[^>]*>.*?</tr>',
            instructors,
            re.DOTALL,
        )
        assert row, f"no row for {path.stem} in the course map"
        cells = [
            html.unescape(re.sub(r"<[^>]+>", "", c)).replace("\xa0", " ").strip()
            for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(0), re.DOTALL)
        ]
        counts = syllabus.by_difficulty(chapter.marks)
        assert cells[1:4] == [
            f"{chapter.minutes} min",
            f"{chapter.exercises} ({counts})",
            chapter.level,
        ]
        assert f"then {chapter.exercises} exercises ({counts}); level" in page, path.stem


def test_the_built_pages_show_each_exercise_with_its_mark(built_book: Path) -> None:
    """Each exercise's title on its page reads "Exercise 4.2 (★★ derivation)", its stars a
    picture named in words; the instructors' page has the legend."""
    for path in syllabus.chapters(ROOT):
        page = (built_book / "chapters" / f"{path.stem}.html").read_text(encoding="utf-8")
        for mark in syllabus.exercises(path.stem, path.read_text(encoding="utf-8")):
            box = re.search(
                rf'<div class="exercise[^"]*" id="{mark.label}">\s*<p class="admonition-title">'
                r"(.*?)</p>",
                page,
                re.DOTALL,
            )
            assert box, f"{path.stem}: no exercise {mark.label} on the page"
            stars = (
                f'<span class="tcplab-difficulty" role="img" aria-label="{mark.spoken}" '
                f'title="{mark.spoken}">{mark.stars}</span>'
            )
            title = box.group(1)
            assert f"({stars} {mark.kind})" in title, (path.stem, mark.label, title)
    instructors = (built_book / "chapters" / "instructors.html").read_text(encoding="utf-8")
    text = html.unescape(re.sub(r"<[^>]+>", "", instructors)).replace("\u2019", "'")
    for name, what in syllabus.DIFFICULTIES.values():
        assert f"{name}: {what}" in text
    for kind, what in syllabus.KINDS.items():
        assert f"{kind}: {what}" in text
