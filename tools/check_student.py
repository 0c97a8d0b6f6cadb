"""Check a built students' edition (`make book-student` runs it on its output): the exercises
are there and none of their solutions is. Usage: python tools/check_student.py <html folder>
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: sphinx-exercise's classes on an exercise and on a solution admonition
EXERCISE = re.compile(r'class="[^"]*\bexercise\b[^"]*"')
SOLUTION = re.compile(r'class="[^"]*\bsolution\b[^"]*"')


def check(html: Path) -> list[str]:
    """What is wrong with the students' edition in ``html`` (nothing: an empty list)."""
    pages = sorted(html.glob("chapters/*.html"))
    if not pages:
        return [f"{html}: no chapter pages"]
    problems = []
    exercises = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        exercises += len(EXERCISE.findall(text))
        shown = len(SOLUTION.findall(text))
        if shown:
            problems.append(f"{page.name}: {shown} solutions shown")
    if not exercises:
        problems.append(f"{html}: no exercises at all (is this the book?)")
    return problems


def main(folder: str) -> int:
    problems = check(Path(folder))
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{folder}: exercises present, no solution shown")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
