"""The course kit: what an instructor adopts, made from the chapters' and labs' sources when
the book is built (:mod:`tcplab.book`), as the course map is (:mod:`tcplab.syllabus`).

* :func:`course_plan`, a week-by-week plan: the chapters in the book's order, packed into
  weeks of at most :data:`WEEKLY_READING` minutes of reading (a longer chapter takes as many
  weeks as it needs), each week with its chapters' exercises by difficulty, and each lab due
  the week after the last chapter it needs (:data:`LAB_CHAPTERS`);
* :func:`rubric`, a lab's rubric: its learning objectives as its source states them
  (``labs/<lab>.md``: "- **q1, q4**: turn a link rate into ..."), each with the points of the
  questions that check it;
* the HTML of both and of the labs' table (:func:`plan_html`, :func:`rubric_html`,
  :func:`labs_html`), tables that become cards on a phone (tcplab.css), and the links to what
  the published site carries (:func:`site_links`, :func:`exercise_links`).
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from pathlib import Path

from tcplab import syllabus
from tcplab.plain_myst import plain_markdown

__all__ = [
    "LAB_CHAPTERS",
    "LAB_MINUTES",
    "WEEKLY_READING",
    "Question",
    "Objective",
    "Week",
    "questions",
    "rubric",
    "course_plan",
    "course_map",
    "plan_html",
    "rubric_html",
    "labs_html",
    "SiteLinks",
    "site_links",
    "exercise_links",
]

#: each lab (labs/<lab>.md) and the chapters a student reads first, in the book's order
LAB_CHAPTERS: dict[str, tuple[str, ...]] = {
    "altman": ("sawtooth", "insensitivity", "fluid-to-packets"),
    "morris": ("many-flows",),
    "honda": ("weighted-aimd",),
    "lu": ("taming-parallel-tcp",),
    "lee": ("parallel-transfers",),
}
#: how long each lab takes a student who has read its chapters, in minutes (the authors'
#: estimate, not measured in a class)
LAB_MINUTES: dict[str, tuple[int, int]] = {
    "altman": (60, 90),
    "morris": (45, 60),
    "honda": (45, 60),
    "lu": (45, 60),
    "lee": (30, 45),
}
#: the reading a week of the plan holds, in minutes at the book's pace (the authors' choice:
#: with a lecture, the exercises and a lab on top, about what a week of a course holds)
WEEKLY_READING = 50

_QUESTION = re.compile(r"# BEGIN QUESTION\nname: (\w+)\npoints: ([\d.]+)")
_OBJECTIVE = re.compile(r"^- \*\*(q\d+(?:, q\d+)*)\*\*: (.+?)(?=\n- |\n\n|\Z)", re.M | re.S)


@dataclass(frozen=True)
class Question:
    name: str
    points: float


@dataclass(frozen=True)
class Objective:
    """A learning objective of a lab: what a student can do, the questions that check it."""

    text: str
    questions: tuple[Question, ...]

    @property
    def points(self) -> float:
        return sum(q.points for q in self.questions)


@dataclass(frozen=True)
class Week:
    """Weeks ``first`` to ``last`` of the plan: the chapters read, the labs due."""

    first: int
    last: int
    chapters: tuple[syllabus.Facts, ...]
    labs: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"


def _lab_source(book: Path, lab: str) -> str:
    if lab not in LAB_CHAPTERS:
        raise ValueError(f"lab={lab!r}: one of {', '.join(LAB_CHAPTERS)}")
    return (book / "labs" / f"{lab}.md").read_text(encoding="utf-8")


def questions(book: Path, lab: str) -> list[Question]:
    """The lab's questions and their points, from its source's ``# BEGIN QUESTION`` blocks."""
    return [Question(n, float(p)) for n, p in _QUESTION.findall(_lab_source(book, lab))]


def rubric(book: Path, lab: str) -> list[Objective]:
    """The lab's learning objectives with the questions (and points) that check each. Every
    question belongs to exactly one objective, or this raises naming the lab and question."""
    found = {q.name: q for q in questions(book, lab)}
    objectives, seen = [], []
    for names, text in _OBJECTIVE.findall(_lab_source(book, lab)):
        asked = names.split(", ")
        unknown = [n for n in asked if n not in found]
        if unknown:
            raise ValueError(f"lab {lab!r}: objective names no question {unknown}")
        seen += asked
        objectives.append(Objective(" ".join(text.split()), tuple(found[n] for n in asked)))
    if sorted(seen) != sorted(found):
        raise ValueError(
            f"lab {lab!r}: each question must belong to one objective; objectives name "
            f"{sorted(seen)}, the lab has {sorted(found)}"
        )
    return objectives


def course_plan(book: Path, weekly: int = WEEKLY_READING) -> list[Week]:
    """The chapters in the book's order packed into weeks of at most ``weekly`` minutes of
    reading (a chapter longer than that alone in as many weeks as it needs); each lab due in
    the week after the last of its chapters (the last week, if that is the book's end)."""
    chapters = [
        syllabus.facts(p.stem, p.read_text(encoding="utf-8")) for p in syllabus.chapters(book)
    ]
    groups: list[list[syllabus.Facts]] = []
    for chapter in chapters:
        last = groups[-1] if groups else None
        room = last is not None and sum(c.minutes for c in last) + chapter.minutes <= weekly
        if room and last is not None and all(c.minutes <= weekly for c in last):
            last.append(chapter)
        else:
            groups.append([chapter])
    weeks, first = [], 1
    for group in groups:
        span = max(1, math.ceil(sum(c.minutes for c in group) / weekly))
        weeks.append(Week(first, first + span - 1, tuple(group), ()))
        first += span
    ends = {c.name: i for i, w in enumerate(weeks) for c in w.chapters}
    due: dict[int, list[str]] = {}
    for lab, needs in LAB_CHAPTERS.items():
        week = min(max(ends[c] for c in needs) + 1, len(weeks) - 1)
        due.setdefault(week, []).append(lab)
    return [Week(w.first, w.last, w.chapters, tuple(due.get(i, ()))) for i, w in enumerate(weeks)]


def _cell(label: str, content: str) -> str:
    return f'<td data-label="{html.escape(label)}">{content}</td>'


def _table(caption: str, head: list[str], rows: list[list[str]]) -> str:
    """An HTML table the phone layout of tcplab.css turns into cards (tcplab-table)."""
    header = "".join(f'<th scope="col">{html.escape(h)}</th>' for h in head)
    body = "\n".join(
        "<tr>" + "".join(_cell(h, c) for h, c in zip(head, row, strict=True)) + "</tr>"
        for row in rows
    )
    return (
        f'<div class="tcplab-table-box"><table class="tcplab-table tcplab-course">'
        f"<caption>{html.escape(caption)}</caption>\n<thead><tr>{header}</tr></thead>\n"
        f"<tbody>\n{body}\n</tbody></table></div>"
    )


def _chapter_link(chapter: syllabus.Facts, book: Path) -> str:
    path = book / "chapters" / f"{chapter.name}.md"
    title = next(
        (
            line[2:].strip()
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("# ")
        ),
        chapter.name,
    )
    return f'<a href="{chapter.name}.html">{html.escape(title)}</a>'


def plan_html(book: Path, labs_href: str = "") -> str:
    """:func:`course_plan` as an HTML table (links relative to chapters/): each week's
    chapters (reading time, level), the labs due (linked to ``labs_href``/<lab>.ipynb when
    given), and the exercises by difficulty, each linked to its place in its chapter."""
    head = ["Week", "Read", "Lab due"] + [
        f"{syllabus.STAR * d} {name}" for d, (name, _) in syllabus.DIFFICULTIES.items()
    ]
    rows = []
    for week in course_plan(book):
        read = "; ".join(
            f"{_chapter_link(c, book)} ({c.minutes} min, {c.level})" for c in week.chapters
        )
        labs = ", ".join(
            f'<a href="{labs_href}{lab}.ipynb"><code>{lab}</code></a>'
            if labs_href
            else f"<code>{lab}</code>"
            for lab in week.labs
        )
        by_star = []
        for difficulty in syllabus.DIFFICULTIES:
            links = []
            for chapter in week.chapters:
                numbered = syllabus.exercise_numbers(book / "chapters" / f"{chapter.name}.md")
                links += [
                    f'<a href="{chapter.name}.html#{m.label}">{numbered[m.label]}</a>'
                    for m in chapter.marks
                    if m.difficulty == difficulty
                ]
            by_star.append(", ".join(links) or "–")
        rows.append([week.label, read, labs or "–", *by_star])
    weeks = course_plan(book)[-1].last
    caption = (
        f"The plan, week by week ({weeks} weeks): the chapters in order, at most "
        f"{WEEKLY_READING} minutes of reading a week; each lab is due the week after its last "
        "chapter"
    )
    return _table(caption, head, rows)


def course_map(book: Path) -> str:
    """The instructors' course map (HTML): each chapter in the book's order, its reading
    time, exercises (by difficulty), level and what to read first (its prerequisites); then
    the legend of the exercises' marks (MyST Markdown, :func:`tcplab.syllabus.legend`)."""
    rows = []
    for path in syllabus.chapters(book):
        chapter = syllabus.facts(path.stem, path.read_text(encoding="utf-8"))
        counts = syllabus.by_difficulty(chapter.marks, html=True)
        rows.append(
            [
                _chapter_link(chapter, book),
                f"{chapter.minutes} min",
                f"{chapter.exercises} ({counts})" if chapter.marks else "0",
                chapter.level,
                html.escape(plain_markdown(chapter.prerequisites, book / "references.bib")),
            ]
        )
    head = ["Chapter", "Reading", "Exercises", "Level", "Read first"]
    table = _table("The chapters in the book's order", head, rows)
    return table + "\n\n" + syllabus.legend()


def rubric_html(book: Path, lab: str) -> str:
    """The rubric of ``lab`` (:func:`rubric`) as an HTML table, with its total."""
    objectives = rubric(book, lab)
    rows = [
        [html.escape(o.text), ", ".join(q.name for q in o.questions), f"{o.points:g}"]
        for o in objectives
    ]
    total = sum(o.points for o in objectives)
    rows.append(["<strong>Total</strong>", "", f"<strong>{total:g}</strong>"])
    caption = f"Rubric of the {lab} lab: points per learning objective"
    return _table(caption, ["Learning objective", "Questions", "Points"], rows)


def labs_html(book: Path, labs_href: str = "", lite_href: str = "") -> str:
    """The labs' table: what to read first, questions (points), time, and where the lab is
    (the notebook and the in-browser copy, when the site carries them)."""
    head = ["Lab", "Read first", "Questions (points)", "Time"]
    if labs_href:
        head.append("On this site")
    rows = []
    for lab, chapters in LAB_CHAPTERS.items():
        asked = questions(book, lab)
        low, high = LAB_MINUTES[lab]
        read = ", ".join(f'<a href="{c}.html">{c}</a>' for c in chapters)
        row = [
            f"<code>{lab}</code>",
            read,
            f"{len(asked)} ({sum(q.points for q in asked):g})",
            f"{low}-{high} min",
        ]
        if labs_href:
            row.append(
                f'<a href="{labs_href}{lab}.ipynb">notebook</a>, '
                f'<a href="{lite_href}lab/index.html?path={lab}/{lab}.ipynb">in the browser</a>'
            )
        rows.append(row)
    return _table("The five labs", head, rows)


@dataclass(frozen=True)
class SiteLinks:
    """Where the published site's parts are, relative to a chapter page (chapters/NAME.html)
    of one of its editions; ``site`` False: a book built alone, which has none of them."""

    site: bool
    root: str  # from a chapter page to the published site's root, e.g. "../" or "../../"
    on_students_edition: bool = False  # the page is one of the students' edition

    @property
    def student(self) -> str:
        return f"{self.root}student/index.html"

    @property
    def pdf(self) -> str:
        return f"{self.root}tcplab.pdf"

    @property
    def labs(self) -> str:
        return f"{self.root}labs/"

    @property
    def lite(self) -> str:
        return f"{self.root}labs/lite/"

    @property
    def downloads(self) -> str:
        return "../downloads/index.html"


def site_links(links: SiteLinks) -> str:
    """The list (HTML) of what the site carries for a course: the students' edition, the
    PDF, the chapters' notebooks, the labs and the labs in the browser; a book built alone
    says where they are made instead."""
    if not links.site:
        return (
            '<ul class="tcplab-site-links"><li>The students\' edition, the whole book as one '
            "PDF and the five labs (notebooks, and a copy that runs in the browser) are on the "
            "published site, which <code>make site</code> builds; "
            f'<a href="{links.downloads}">the downloads page</a> of this build lists what it '
            "has.</li></ul>"
        )
    items = [
        f'<a href="{links.student}">The students\' edition</a>: the book without the '
        "exercises' solutions;",
        f'<a href="{links.pdf}">the whole book as one PDF</a> (A4);',
        f'<a href="{links.downloads}">every chapter as a notebook</a> that installs what it '
        "needs from this site;",
        "the five labs as notebooks: "
        + ", ".join(
            f'<a href="{links.labs}{lab}.ipynb"><code>{lab}</code></a>' for lab in LAB_CHAPTERS
        )
        + ";",
        f'<a href="{links.lite}index.html">the labs in your browser</a> (JupyterLite: nothing '
        "to install, and it works offline).",
    ]
    return '<ul class="tcplab-site-links">' + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def exercise_links(name: str, links: SiteLinks) -> str:
    """The line under a chapter's Exercises heading: the chapter in the students' edition,
    its lab (notebook, and in the browser) where it has one; a book built alone points to
    its downloads page."""
    labs = [lab for lab, chapters in LAB_CHAPTERS.items() if name in chapters]
    if not links.site:
        return (
            f'<p class="tcplab-exercise-links">The students\' edition and the labs are on the '
            f'published site (<a href="{links.downloads}">downloads</a>).</p>'
        )
    parts = []
    if not links.on_students_edition:
        parts.append(
            f'<a href="{links.root}student/chapters/{name}.html">this chapter without the '
            "solutions</a>"
        )
    for lab in labs:
        parts.append(
            f'the <code>{lab}</code> lab (<a href="{links.labs}{lab}.ipynb">notebook</a>, '
            f'<a href="{links.lite}lab/index.html?path={lab}/{lab}.ipynb">in your browser</a>)'
        )
    if not parts:
        return ""
    return f'<p class="tcplab-exercise-links">For a course: {"; ".join(parts)}.</p>'
