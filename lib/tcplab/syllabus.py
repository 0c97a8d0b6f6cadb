"""Signposts for readers and instructors: how long a chapter takes and how hard it is.

Each chapter's box of objectives gets a line "At a glance" under its prerequisites (reading
time from the chapter's own words, its exercises by difficulty, its level), and the
instructors' page a course map (:func:`tcplab.course.course_map`): every chapter in the
book's order with the same facts and what to read first. Both are made from the chapters'
sources when the book is built (:mod:`tcplab.book`), so they follow the text as it changes.

Every exercise carries its mark once, as the title of its directive: its difficulty in stars
and its kind in words (```` ```{exercise} ★★ derivation ````). The build shows the stars with
their meaning in words for screen readers (:func:`mark_html`) and refuses a chapter whose
exercise has no mark or a garbled one, naming the chapter and the exercise.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "WORDS_PER_MINUTE",
    "LEVELS",
    "STAR",
    "DIFFICULTIES",
    "KINDS",
    "Exercise",
    "exercises",
    "spoken",
    "mark_html",
    "mark_exercises",
    "by_difficulty",
    "legend",
    "Facts",
    "prose_words",
    "facts",
    "glance",
    "add_glance",
    "chapters",
    "chapter_numbers",
    "exercise_numbers",
]

#: reading pace assumed for the book's text: slower than the 200-250 words a minute of plain
#: prose, as a reader of technical text with formulas stops to check them
WORDS_PER_MINUTE = 150

#: each chapter's level and what makes it so (the authors' judgement, not a measurement)
LEVELS: dict[str, tuple[str, str]] = {
    "sawtooth": ("introductory", "the area of a trapezoid"),
    "insensitivity": ("advanced", "a sample-path proof over a stationary regime"),
    "second-moments": ("advanced", "fixed points of linear maps of second moments"),
    "fluid-to-packets": ("intermediate", "TCP's loss recovery and a router's queue"),
    "tcp-microscope": ("introductory", "one connection's packets, traced"),
    "many-flows": ("intermediate", "a loss model against measurements"),
    "weighted-aimd": ("intermediate", "response functions and a feedback gain"),
    "taming-parallel-tcp": ("intermediate", "fitting a model to two probes"),
    "parallel-transfers": ("introductory", "reading measurements and their spread"),
    "ns3": ("intermediate", "a second simulator and what differs between the two"),
}

#: the star of an exercise's mark: one to three of them, its difficulty
STAR = "★"

#: each difficulty (stars) by its name and what it asks of the reader
DIFFICULTIES: dict[int, tuple[str, str]] = {
    1: ("warm-up", "the chapter's formulas or code applied directly"),
    2: (
        "standard",
        "several steps or a judgement: results combined, a short derivation, a run of the "
        "models read critically",
    ),
    3: ("challenge", "a proof or derivation of one's own, new code, or a question left open"),
}

#: each kind of exercise and what the reader does
KINDS: dict[str, str] = {
    "by hand": "numbers or a protocol's steps worked out on paper, from the chapter's formulas",
    "derivation": "a formula derived or a result explained from the model, in general",
    "code": "code written or run over the book's models",
    "data": "questions answered by reading the book's result tables",
}

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
_ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)(?:\s*<[^`]*>)?`")
_DIRECTIVE_LINE = re.compile(r"^(?:```|:::).*$|^:[\w-]+:.*$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_EXERCISE = re.compile(
    r"^(?:```|:::)\{exercise\}(?P<title>[^\n]*)\n(?P<options>(?:[ \t]*:[\w-]+:[^\n]*\n)*)",
    re.MULTILINE,
)
_LABEL = re.compile(r"^[ \t]*:label:[ \t]*(\S+)", re.MULTILINE)
_MARK = re.compile(rf"^({STAR}{{1,3}}) ({'|'.join(KINDS)})$")
_PREREQUISITES = re.compile(
    r"^\*\*Prerequisites:\*\*(.*?)(?=\n:::|\n\s*\n)", re.MULTILINE | re.DOTALL
)


@dataclass(frozen=True)
class Exercise:
    """One exercise's mark: its label, difficulty (1 to 3 stars) and kind (a key of
    :data:`KINDS`)."""

    label: str
    difficulty: int
    kind: str

    @property
    def stars(self) -> str:
        return STAR * self.difficulty

    @property
    def spoken(self) -> str:
        """The difficulty in words, as a screen reader says it."""
        return spoken(self.difficulty)


def spoken(difficulty: int) -> str:
    """A difficulty in words, as a screen reader says it: "difficulty 2 of 3, standard"."""
    return f"difficulty {difficulty} of 3, {DIFFICULTIES[difficulty][0]}"


def exercises(name: str, source: str) -> list[Exercise]:
    """The marks of the exercises of chapter ``name`` in ``source``, in order. Raises
    ``ValueError`` naming the chapter and the exercise when a mark is missing or garbled."""
    found = []
    for number, match in enumerate(_EXERCISE.finditer(source), start=1):
        label = _LABEL.search(match.group("options"))
        where = f"chapter {name!r}, exercise " + (
            repr(label.group(1)) if label else f"{number} (it has no :label:)"
        )
        if not label:
            raise ValueError(f"{where}: every exercise needs a :label:")
        title = match.group("title").strip()
        mark = _MARK.match(title)
        if not mark:
            raise ValueError(
                f"{where}: mark {title!r} is not 1 to 3 {STAR} and a kind, one of "
                f"{sorted(KINDS)} (e.g. ```{{exercise}} {STAR * 2} derivation)"
            )
        found.append(Exercise(label.group(1), len(mark.group(1)), mark.group(2)))
    return found


def mark_html(difficulty: int) -> str:
    """The stars of a difficulty as the page shows them: a picture named in words (a screen
    reader says "difficulty 2 of 3, standard", not "black star black star")."""
    said = spoken(difficulty)
    return (
        f'<span class="tcplab-difficulty" role="img" aria-label="{said}" '
        f'title="{said}">{STAR * difficulty}</span>'
    )


def mark_exercises(name: str, source: str) -> str:
    """``source`` with each exercise's mark made readable: its stars as :func:`mark_html`
    (read by :func:`exercises` first: a bad mark raises)."""
    marks = iter(exercises(name, source))  # one per match of _EXERCISE, in order

    def visible(match: re.Match[str]) -> str:
        mark = next(marks)
        title = f"{mark_html(mark.difficulty)} {mark.kind}"
        return match.group(0).replace(match.group("title"), f" {title}", 1)

    return _EXERCISE.sub(visible, source)


def by_difficulty(marks: list[Exercise] | tuple[Exercise, ...], html: bool = False) -> str:
    """How many exercises of each difficulty, e.g. "2 ★, 2 ★★, 1 ★★★" (``html``: the stars
    as :func:`mark_html`, joined to their count by a no-break space so that a narrow column
    never separates them)."""
    counts = [(d, sum(m.difficulty == d for m in marks)) for d in DIFFICULTIES]
    if html:
        return ", ".join(f"{n}\u00a0{mark_html(d)}" for d, n in counts if n)
    return ", ".join(f"{n} {STAR * d}" for d, n in counts if n)


def legend() -> str:
    """What the exercises' marks mean, in MyST Markdown: the difficulties, then the kinds."""
    lines = ["Each exercise's title carries its difficulty and its kind. Difficulty:", ""]
    lines += [f"* {mark_html(d)} **{name}**: {what}." for d, (name, what) in DIFFICULTIES.items()]
    lines += ["", "Kind:", ""]
    lines += [f"* **{kind}**: {what}." for kind, what in KINDS.items()]
    return "\n".join(lines)


@dataclass(frozen=True)
class Facts:
    """What a chapter's source says about it: prose words, exercises, prerequisites."""

    name: str
    words: int
    marks: tuple[Exercise, ...]
    prerequisites: str

    @property
    def exercises(self) -> int:
        return len(self.marks)

    @property
    def minutes(self) -> int:
        """Reading time at :data:`WORDS_PER_MINUTE`, rounded up to 5 minutes."""
        return 5 * math.ceil(self.words / WORDS_PER_MINUTE / 5)

    @property
    def level(self) -> str:
        return LEVELS[self.name][0]


def prose_words(source: str) -> int:
    """Words a reader reads in a MyST notebook: its text, without front matter, code cells,
    directive lines and options; a formula counts as one word, a role as its text."""
    text = _FRONT_MATTER.sub("", source)
    text = _CODE_CELL.sub("", text)
    text = _DISPLAY_MATH.sub(" formula ", text)
    text = _INLINE_MATH.sub(" formula ", text)
    text = _ROLE.sub(r"\1", text)
    text = _DIRECTIVE_LINE.sub("", text)
    return len(_WORD.findall(text))


def facts(name: str, source: str) -> Facts:
    """The facts of chapter ``name`` (a key of :data:`LEVELS`) from its source."""
    if name not in LEVELS:
        raise ValueError(f"name={name!r}: no level recorded; one of {sorted(LEVELS)}")
    found = _PREREQUISITES.search(source)
    prerequisites = " ".join(found.group(1).split()) if found else ""
    return Facts(name, prose_words(source), tuple(exercises(name, source)), prerequisites)


def _in_brackets(chapter: Facts) -> str:
    """The chapter's exercises by difficulty, " (2 ★, 3 ★★)" as HTML, or "" without any."""
    return f" ({by_difficulty(chapter.marks, html=True)})" if chapter.marks else ""


def glance(chapter: Facts) -> str:
    """The chapter's line "At a glance", in MyST Markdown."""
    count = f"{chapter.exercises} exercise{'s' if chapter.exercises != 1 else ''}"
    count += _in_brackets(chapter)
    why = LEVELS[chapter.name][1]
    return (
        f"**At a glance:** about {chapter.minutes} minutes to read ({chapter.words:,} words at "
        f"{WORDS_PER_MINUTE} a minute), then {count}; level: {chapter.level} ({why})."
    )


def add_glance(name: str, source: str) -> str:
    """``source`` with its "At a glance" line after its prerequisites (unchanged if the
    chapter has no level recorded or no prerequisites paragraph; a bad exercise mark raises,
    :func:`exercises`)."""
    if name not in LEVELS:
        return source
    found = _PREREQUISITES.search(source)
    if not found:
        return source
    line = glance(facts(name, source))
    return f"{source[: found.end()]}\n\n{line}{source[found.end() :]}"


def chapters(book: Path) -> list[Path]:
    """The sources of the chapters that have a level, in the order of the book's _toc.yml."""
    import yaml  # jupyter-book's dependency: the book build has it

    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [book / f"{f}.md" for f in files if Path(f).name in LEVELS]


def chapter_numbers(book: Path) -> dict[str, int]:
    """The number of each chapter of the book's numbered parts (_toc.yml), counted across the
    parts as Jupyter Book numbers them (its figures are 4.3, its exercises 4.2)."""
    import yaml

    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for p in toc.get("parts", []) if p.get("numbered") for c in p["chapters"]]
    return {Path(f).name: number for number, f in enumerate(files, start=1)}


def exercise_numbers(chapter: Path) -> dict[str, str]:
    """Each exercise of ``chapter`` (a chapter's source in the book's chapters/) by its label,
    with the number the book gives it: "4.2", its chapter's number (:func:`chapter_numbers`)
    and its place in the chapter (just "2" in an unnumbered chapter)."""
    number = chapter_numbers(chapter.parent.parent).get(chapter.stem)
    marks = exercises(chapter.stem, chapter.read_text(encoding="utf-8"))
    return {m.label: f"{number}.{k}" if number else str(k) for k, m in enumerate(marks, 1)}
