"""A lab's grades in the form a learning-management system imports.

``tools/labs.py grade`` writes its own CSV (one column per question); an LMS wants one column
per assignment and its own way of naming the student. Otter-Grader has no such export of its
own (its route into an LMS is Gradescope, through the autograder zip), so this module writes
the two common ones from the file names the LMS gave the submissions when the instructor
downloaded them all:

* **Canvas**, the gradebook's "Import" (a CSV with the columns of Canvas's own gradebook
  export: Student, ID, SIS User ID, SIS Login ID, Section, then the assignment, and a "Points
  Possible" row): "Download Submissions" names each file ``name_ID_SUBMISSION_file.ipynb``
  (``name_LATE_ID_...`` when late), and ``ID`` is the student's Canvas ID the import matches;
* **Moodle**, the assignment's offline grading worksheet ("Upload grading worksheet": the
  columns Identifier, Full name, Grade, Maximum Grade, Feedback comments): "Download all
  submissions" names each file ``Full Name_N_assignsubmission_file_file.ipynb``, and the
  worksheet's Identifier is ``Participant N``.

The column names are the ones those LMSs write in their own exports; the formats have not
been tried on a live Canvas or Moodle here. A file name that fits neither rule is an error
that names it: rename it, or import the plain CSV with the LMS's column mapping.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LMS", "Score", "lms_rows", "write_lms_csv"]

#: a file of Canvas's "Download Submissions" zip: sortable name, LATE, Canvas ID, submission ID
CANVAS_FILE = re.compile(r"^(?P<name>[^_]+)_(?:LATE_)?(?P<id>\d+)_(?P<submission>\d+)_.+$")
#: a file of Moodle's "Download all submissions" zip: full name, participant number
MOODLE_FILE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assign(?:submission|feedback)_file_.+$")
#: each LMS and the file names it gives the submissions
LMS = {"canvas": CANVAS_FILE, "moodle": MOODLE_FILE}


@dataclass(frozen=True)
class Score:
    """One graded submission: its file name, points scored and possible, and feedback."""

    submission: str
    points: float
    possible: float
    feedback: str = ""


def _student(lms: str, submission: str) -> re.Match[str]:
    found = LMS[lms].match(submission)
    if found is None:
        raise ValueError(
            f"submission={submission!r}: not a file name {lms.title()} gives a download "
            f"(expected {LMS[lms].pattern})"
        )
    return found


def lms_rows(scores: list[Score], lms: str, assignment: str) -> list[list[str]]:
    """The rows (header first) of ``lms``'s import (a key of :data:`LMS`) for ``scores``,
    the grades of the assignment named ``assignment``; a file name the LMS did not give
    raises ``ValueError`` naming it."""
    if lms not in LMS:
        raise ValueError(f"lms={lms!r}: one of {', '.join(LMS)}")
    if lms == "canvas":
        possible = max((s.possible for s in scores), default=0.0)
        rows = [
            ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment],
            ["    Points Possible", "", "", "", "", f"{possible:g}"],
        ]
        for score in scores:
            who = _student(lms, score.submission)
            rows.append([who["name"], who["id"], "", "", "", f"{score.points:g}"])
        return rows
    rows = [["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"]]
    for score in scores:
        who = _student(lms, score.submission)
        rows.append(
            [
                f"Participant {who['id']}",
                who["name"],
                f"{score.points:g}",
                f"{score.possible:g}",
                score.feedback,
            ]
        )
    return rows


def write_lms_csv(scores: list[Score], path: Path, lms: str, assignment: str) -> Path:
    """Write :func:`lms_rows` to ``path`` (every row is made first: a bad file name leaves
    no half-written file)."""
    rows = lms_rows(scores, lms, assignment)
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return path
