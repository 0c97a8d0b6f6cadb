"""A lab's grades as Canvas and Moodle import them (tcplab.gradebook): the student is named by
the file name the LMS gave the submission when it was downloaded; a name it did not give is
an error naming the file."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tcplab.gradebook import Score, lms_rows, write_lms_csv

SCORES = [
    Score("smithjane_12345_67890_morris.ipynb", 6.0, 9.0, "q1: AssertionError: bits vs bytes"),
    Score("doejohn_LATE_222_333_morris.ipynb", 9.0, 9.0),
]


def test_canvas_import_matches_students_by_their_canvas_id() -> None:
    rows = lms_rows(SCORES, "canvas", "morris lab")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "morris lab"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "9"]
    assert rows[2] == ["smithjane", "12345", "", "", "", "6"]
    assert rows[3] == ["doejohn", "222", "", "", "", "9"]  # a late submission: LATE_ dropped


def test_moodle_worksheet_names_the_participant_and_keeps_the_feedback() -> None:
    scores = [
        Score("Jane Smith_4711_assignsubmission_file_morris.ipynb", 6.0, 9.0, "q1: bits"),
        Score("Li Wei_12_assignsubmission_file_lab.ipynb", 9.0, 9.0),
    ]
    rows = lms_rows(scores, "moodle", "morris lab")
    assert rows == [
        ["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"],
        ["Participant 4711", "Jane Smith", "6", "9", "q1: bits"],
        ["Participant 12", "Li Wei", "9", "9", ""],
    ]


def test_a_file_name_the_lms_did_not_give_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    target = tmp_path / "grades-canvas.csv"
    with pytest.raises(ValueError, match="submission='morris.ipynb'"):
        write_lms_csv([*SCORES, Score("morris.ipynb", 1.0, 9.0)], target, "canvas", "morris")
    assert not target.exists()
    with pytest.raises(ValueError, match="lms='blackboard'"):
        lms_rows(SCORES, "blackboard", "morris")
    write_lms_csv(SCORES, target, "canvas", "morris lab")
    assert list(csv.reader(target.open(encoding="utf-8")))[2][1] == "12345"
