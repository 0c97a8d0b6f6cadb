"""The course kit (tcplab.course), checked in the sources (no build): the week-by-week plan is
derived from the chapters (every chapter once, in the book's order; every exercise once, under
its difficulty; each lab due after the chapters it needs; 10 to 12 weeks), each lab's rubric
gives every question's points to exactly one learning objective, and the links an edition of
the published site gives for a course land where the site puts things (tools/place_site.py);
a book built alone points to its downloads page instead."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
import yaml

from tcplab import course, syllabus
from tcplab.book import site_config

ROOT = Path(__file__).resolve().parents[1]


def _numbered() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [Path(c["file"]).name for p in toc["parts"] if p.get("numbered") for c in p["chapters"]]


def test_the_plan_holds_every_chapter_once_in_order_in_10_to_12_weeks() -> None:
    weeks = course.course_plan(ROOT)
    assert [c.name for w in weeks for c in w.chapters] == _numbered()
    assert 10 <= weeks[-1].last <= 12, weeks[-1].last
    assert weeks[0].first == 1
    for before, after in zip(weeks, weeks[1:], strict=False):
        assert after.first == before.last + 1  # no gap, no overlap
    for week in weeks:
        minutes = sum(c.minutes for c in week.chapters)
        span = week.last - week.first + 1
        # a week's reading stays within the budget, or one long chapter takes the weeks it needs
        assert minutes <= course.WEEKLY_READING * span
        if span > 1:
            assert len(week.chapters) == 1 and minutes > course.WEEKLY_READING * (span - 1)


def test_each_lab_is_due_after_the_chapters_it_needs() -> None:
    weeks = course.course_plan(ROOT)
    read = {c.name: i for i, w in enumerate(weeks) for c in w.chapters}
    due = {lab: i for i, w in enumerate(weeks) for lab in w.labs}
    assert sorted(due) == sorted(course.LAB_CHAPTERS)
    for lab, chapters in course.LAB_CHAPTERS.items():
        assert set(chapters) <= set(_numbered()), lab
        assert all(read[c] < due[lab] for c in chapters), (lab, due[lab])


def test_the_plan_lists_every_exercise_once_under_its_difficulty() -> None:
    """Each exercise of each chapter in the plan's table, linked to its place (the label) and
    numbered as the book numbers it, in the column of its stars; nothing typed by hand."""
    table = course.plan_html(ROOT)
    head = re.findall(r'<th scope="col">(.*?)</th>', table)
    assert head[:3] == ["Week", "Read", "Lab due"]
    cells = {
        d: re.findall(rf'<td data-label="{re.escape(head[2 + d])}">(.*?)</td>', table)
        for d in syllabus.DIFFICULTIES
    }
    for path in syllabus.chapters(ROOT):
        numbers = syllabus.exercise_numbers(path)
        for mark in syllabus.exercises(path.stem, path.read_text(encoding="utf-8")):
            link = f'<a href="{path.stem}.html#{mark.label}">{numbers[mark.label]}</a>'
            found = [d for d, column in cells.items() for cell in column if link in cell]
            assert found == [mark.difficulty], (mark.label, found)


def test_exercise_numbers_follow_the_table_of_contents() -> None:
    """Chapter 6 is many-flows (the sixth numbered chapter), so its third exercise is 6.3."""
    assert syllabus.chapter_numbers(ROOT)["many-flows"] == 6
    numbers = syllabus.exercise_numbers(ROOT / "chapters" / "many-flows.md")
    assert list(numbers.values())[:3] == ["6.1", "6.2", "6.3"]


@pytest.mark.parametrize("lab", list(course.LAB_CHAPTERS))
def test_each_rubric_gives_every_questions_points_to_one_objective(lab: str) -> None:
    text = (ROOT / "labs" / f"{lab}.md").read_text(encoding="utf-8")
    points = {n: float(p) for n, p in re.findall(r"name: (q\d+)\npoints: ([\d.]+)", text)}
    objectives = course.rubric(ROOT, lab)
    named = [q.name for o in objectives for q in o.questions]
    assert sorted(named) == sorted(points) and len(named) == len(set(named))
    assert sum(o.points for o in objectives) == sum(points.values())
    table = course.rubric_html(ROOT, lab)
    assert f"<strong>{sum(points.values()):g}</strong>" in table
    for objective in objectives:
        assert f">{objective.points:g}<" in table and html.escape(objective.text[:40]) in table


def test_a_rubric_refuses_a_question_without_an_objective(tmp_path: Path) -> None:
    (tmp_path / "labs").mkdir()
    source = (ROOT / "labs" / "lee.md").read_text(encoding="utf-8")
    (tmp_path / "labs" / "lee.md").write_text(source.replace("- **q1**:", "- **q2**:"))
    with pytest.raises(ValueError, match="lab 'lee': each question must belong to one"):
        course.rubric(tmp_path, "lee")


def test_the_site_links_land_where_the_site_puts_things() -> None:
    """From a chapter page of the book (root ../) and of the students' edition (../../): the
    students' edition, the PDF, each lab's notebook and the labs in the browser, as
    tools/place_site.py places them; a book built alone names make site and links its own
    downloads page."""
    for root in ("../", "../../"):
        links = course.site_links(course.SiteLinks(True, root))
        for href in [
            f"{root}student/index.html",
            f"{root}tcplab.pdf",
            f"{root}labs/lite/index.html",
            "../downloads/index.html",
            *(f"{root}labs/{lab}.ipynb" for lab in course.LAB_CHAPTERS),
        ]:
            assert f'href="{href}"' in links, (root, href)
        line = course.exercise_links("many-flows", course.SiteLinks(True, root))
        assert f'href="{root}student/chapters/many-flows.html"' in line
        assert f'href="{root}labs/morris.ipynb"' in line
        assert f'href="{root}labs/lite/lab/index.html?path=morris/morris.ipynb"' in line
    alone = course.site_links(course.SiteLinks(False, "../"))
    assert "<code>make site</code>" in alone and 'href="../student' not in alone
    assert "labs/" not in course.exercise_links("many-flows", course.SiteLinks(False, "../"))


def test_the_site_configuration_places_the_students_edition_below_the_book() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    book = site_config(config, address="https://x.example/tcplab")
    student = site_config(config, student=True, address="https://x.example/tcplab")
    assert book["html"]["baseurl"] == "https://x.example/tcplab/"
    assert student["html"]["baseurl"] == "https://x.example/tcplab/student/"
    assert book["sphinx"]["config"]["tcplab_site"] is True
    assert (
        book["sphinx"]["config"]["tcplab_site_root"],
        student["sphinx"]["config"]["tcplab_site_root"],
    ) == ("", "../")
    assert student["sphinx"]["config"]["hide_solutions"] is True
    assert "hide_solutions" not in book["sphinx"]["config"]
    assert site_config(config)["html"]["baseurl"] == (config["html"].get("baseurl") or "")
