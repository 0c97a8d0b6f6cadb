"""Signposts for readers and instructors: how long a chapter takes and how hard it is.

Each chapter's box of objectives gets a line "At a glance" under its prerequisites (reading
time from the chapter's own words, its exercises, its level), and the instructors' page a
course map: every chapter in the book's order with the same facts and what to read first.
Both are made from the chapters' sources when the book is built (:mod:`tcplab.book`), so
they follow the text as it changes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "WORDS_PER_MINUTE",
    "LEVELS",
    "Facts",
    "prose_words",
    "facts",
    "glance",
    "add_glance",
    "chapters",
    "course_map",
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

_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.DOTALL)
_INLINE_MATH = re.compile(r"\$[^$\n]+\$")
_ROLE = re.compile(r"\{[\w:-]+\}`([^`<]*?)(?:\s*<[^`]*>)?`")
_DIRECTIVE_LINE = re.compile(r"^(?:```|:::).*$|^:[\w-]+:.*$", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_EXERCISE = re.compile(r"^(?:```|:::)\{exercise\}", re.MULTILINE)
_PREREQUISITES = re.compile(
    r"^\*\*Prerequisites:\*\*(.*?)(?=\n:::|\n\s*\n)", re.MULTILINE | re.DOTALL
)


@dataclass(frozen=True)
class Facts:
    """What a chapter's source says about it: prose words, exercises, prerequisites."""

    name: str
    words: int
    exercises: int
    prerequisites: str

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
    return Facts(name, prose_words(source), len(_EXERCISE.findall(source)), prerequisites)


def glance(chapter: Facts) -> str:
    """The chapter's line "At a glance", in MyST Markdown."""
    exercises = f"{chapter.exercises} exercise{'s' if chapter.exercises != 1 else ''}"
    why = LEVELS[chapter.name][1]
    return (
        f"**At a glance:** about {chapter.minutes} minutes to read ({chapter.words:,} words at "
        f"{WORDS_PER_MINUTE} a minute), then {exercises}; level: {chapter.level} ({why})."
    )


def add_glance(name: str, source: str) -> str:
    """``source`` with its "At a glance" line after its prerequisites (unchanged if the
    chapter has no level recorded or no prerequisites paragraph)."""
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


def course_map(book: Path) -> str:
    """The instructors' course map, a MyST Markdown table: each chapter in the book's order,
    its reading time, exercises, level and what to read first (its prerequisites)."""
    rows = [
        "| Chapter | Reading | Exercises | Level | Read first |",
        "| --- | --- | --- | --- | --- |",
    ]
    for path in chapters(book):
        chapter = facts(path.stem, path.read_text(encoding="utf-8"))
        rows.append(
            f"| {{doc}}`{path.stem}` | {chapter.minutes} min | {chapter.exercises} "
            f"| {chapter.level} | {chapter.prerequisites} |"
        )
    return "\n".join(rows)
