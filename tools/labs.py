"""The course labs: build them with Otter Assign, grade a folder of submissions without Docker.

    python tools/labs.py build [OUT]                   (make labs: OUT = _build/labs)
    python tools/labs.py lite [OUT]                    (make labs: OUT/lite, labs in the browser)
    python tools/labs.py grade LAB SUBMISSIONS [--csv FILE] [--autograder ZIP] [--lms canvas|moodle]

``build`` converts each lab's source (labs/<lab>.md, a MyST-Markdown notebook in Otter's
format) to .ipynb and runs ``otter assign`` on it: OUT/<lab>/student/<lab>.ipynb is the
notebook to hand out (public tests inside), OUT/<lab>/autograder/ the solutions and the
autograder zip (every test, hidden ones too).

``lite`` writes OUT/lite, a JupyterLite site holding the student notebooks built by ``build``,
with Pyodide and every wheel a lab needs inside it (:mod:`tcplab.labs_lite`): a student opens
a lab in the browser, offline, with no Python on any server.

``grade`` scores every .ipynb in SUBMISSIONS against the lab's autograder zip and writes a CSV
(submission, one column per question, total, and the failed public tests' messages: the
feedback a student may see), with ``--lms`` also the import file of Canvas or Moodle
(:mod:`tcplab.gradebook`). Otter's own ``otter run`` has no time limit per
question (its ``--timeout`` is for Docker containers), so each submission is executed here, in
a fresh kernel, with nbclient: every cell has a time limit and is interrupted when it runs out
(the next cell runs), errors are allowed, and the whole submission has a limit too. Then, in
the same kernel, each question's test file from the zip (public and hidden cases) is run by
Otter's own test runner (``otter.test_files``) against a copy of the submission's variables,
under an alarm: a question whose code raises, loops or defines nothing scores zero and grading
goes on to the next.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from tcplab.course import LAB_CHAPTERS

ROOT = Path(__file__).resolve().parents[1]
LABS_DIR = ROOT / "labs"
#: the labs, in the book's order (labs/<name>.md; tcplab.course says which chapters each needs)
LABS = tuple(LAB_CHAPTERS)
#: seconds one cell of a submission may run before it is interrupted
CELL_TIMEOUT = 30.0
#: seconds one question's tests may run before the question scores zero
QUESTION_TIMEOUT = 10.0
#: seconds the whole grading of one submission may take (execution and tests)
SUBMISSION_TIMEOUT = 300.0
#: marks the grader's own output lines in the kernel's stdout
MARK = "TCPLAB-GRADE "
#: the error name a cell gets when it runs out of time
TIMED_OUT = "TcplabCellTimeout"


def build(out: Path, labs: tuple[str, ...] = LABS) -> dict[str, Path]:
    """Build each lab into ``out/<lab>`` with Otter Assign; returns each lab's folder."""
    import jupytext
    from otter.assign import main as assign  # type: ignore[import-untyped]

    out.mkdir(parents=True, exist_ok=True)
    built = {}
    with tempfile.TemporaryDirectory(prefix="tcplab-labs-") as scratch:
        for lab in labs:
            source = LABS_DIR / f"{lab}.md"
            if not source.is_file():
                raise ValueError(f"lab={lab!r}: no source {source} (labs: {', '.join(LABS)})")
            master = Path(scratch) / lab / f"{lab}.ipynb"
            master.parent.mkdir()
            notebook = jupytext.read(source)
            notebook.metadata.pop("jupytext", None)
            jupytext.write(notebook, master, fmt="ipynb")
            result = out / lab
            shutil.rmtree(result, ignore_errors=True)
            assign(str(master), str(result), no_pdfs=True, no_run_tests=True)
            built[lab] = result
    return built


def autograder_zip(folder: Path) -> Path:
    """The newest autograder zip Otter Assign wrote into ``folder/autograder``."""
    zips = sorted(
        (folder / "autograder").glob("*-autograder_*.zip"), key=lambda p: p.stat().st_mtime
    )
    if not zips:
        raise FileNotFoundError(f"no autograder zip in {folder / 'autograder'}: run `make labs`")
    return zips[-1]


@dataclass
class Grade:
    """One submission's scores: points per question (0 where a question failed), and why."""

    submission: str
    scores: dict[str, float]
    possible: dict[str, float]
    errors: dict[str, str] = field(default_factory=dict)
    #: what each failed question's public tests said (the student may see it; hidden ones stay out)
    feedback: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def total(self) -> float:
        return sum(self.scores.values())


def _tests(zip_path: Path, into: Path) -> dict[str, Path]:
    """Extract the test files (tests/<question>.py) of an autograder zip."""
    tests = {}
    with zipfile.ZipFile(zip_path) as archive:
        for name in archive.namelist():
            if name.startswith("tests/") and name.endswith(".py"):
                target = into / Path(name).name
                target.write_bytes(archive.read(name))
                tests[target.stem] = target
    if not tests:
        raise ValueError(f"{zip_path} holds no tests/*.py: is it an Otter autograder zip?")
    return dict(sorted(tests.items(), key=lambda item: _question_key(item[0])))


def _question_key(name: str) -> tuple[int, str]:
    digits = "".join(c for c in name if c.isdigit())
    return (int(digits) if digits else 0, name)


_SETUP = """\
get_ipython().reset(new_session=False)  # a fresh namespace for each submission
import importlib.util as _tcplab_util
import os as _tcplab_os
import sys as _tcplab_sys
import types as _tcplab_types

_tcplab_os.chdir({workdir!r})
if "otter" not in _tcplab_sys.modules:
    # Otter's package without its __init__, which imports pandas, nbconvert and the exporters
    # (seconds per kernel): grading needs only otter.test_files, imported from it on demand
    _tcplab_spec = _tcplab_util.find_spec("otter")
    _tcplab_otter = _tcplab_types.ModuleType("otter")
    _tcplab_otter.__path__ = list(_tcplab_spec.submodule_search_locations)
    _tcplab_otter.__file__ = _tcplab_spec.origin
    _tcplab_sys.modules["otter"] = _tcplab_otter
    import otter.test_files  # noqa: F401
    import numpy, pandas, tcplab  # noqa: E401, F401 - the labs' imports, once per kernel


# grading stands in for otter.Notebook: the submission's grader.check/export do nothing (its
# questions are checked afterwards, with every test, hidden ones too)
class _TcplabQuietNotebook:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


_tcplab_sys.modules["otter"].Notebook = _TcplabQuietNotebook
get_ipython().reset(new_session=False)
"""
#: seconds the grader's own set-up cell may take (the first in a kernel imports tcplab)
SETUP_TIMEOUT = 120.0

_CHECK = """\
def _tcplab_check(question, path, limit, env):
    import json, re, signal
    from otter.nbmeta_config import NBMetadataConfig
    from otter.test_files import create_test_file

    class QuestionTimeout(KeyboardInterrupt):  # doctest lets KeyboardInterrupt through
        pass

    def alarm(signum, frame):
        raise QuestionTimeout(f"{{question}} ran longer than {{limit}} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    score, error, feedback = 0.0, "", []
    try:
        test = create_test_file(path, NBMetadataConfig())
        test.run(env)
        score = float(test.score)
        if not test.passed_all:
            error = "; ".join(
                r.test_case.name for r in test.test_case_results if not r.passed
            ) + " failed"
        # what a failed public test said (the exception of each of its statements that
        # failed: doctest runs them all): the student's feedback; a hidden test's words stay
        # with the instructor
        for r in test.test_case_results:
            if not r.passed and not r.test_case.hidden:
                said = [line.strip() for line in (r.message or "").splitlines()]
                error_line = r"^[A-Za-z0-9_.]*(Error|Exception)(:|$)"
                said = [line for line in said if re.match(error_line, line)]
                feedback += list(dict.fromkeys(said)) or ["a public test failed"]
    except BaseException as exc:  # a loop, a crash, a missing name: zero for this question
        score, error = 0.0, f"{{type(exc).__name__}}: {{exc}}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    found = {{"question": question, "score": score, "error": error[:300],
             "feedback": " / ".join(feedback)[:1000]}}
    print({mark!r} + json.dumps(found))

_tcplab_check({question!r}, {path!r}, {limit!r}, dict(globals()))
"""


def _cells(submission: Path, tests: dict[str, Path], limit: float, workdir: Path) -> list:  # noqa: ANN401
    """The cells that grade one submission: a fresh namespace, its code cells, one check per
    question (tagged ``tcplab_check`` in their metadata)."""
    import nbformat

    student = nbformat.read(submission, as_version=4)
    cells = [nbformat.v4.new_code_cell(_SETUP.format(workdir=str(workdir)))]
    cells += [nbformat.v4.new_code_cell(c.source) for c in student.cells if c.cell_type == "code"]
    for question, path in tests.items():
        source = _CHECK.format(question=question, path=str(path), limit=limit, mark=MARK)
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["tcplab_check"] = question
        cells.append(cell)
    return cells


def _read_scores(cells: list, grade: Grade) -> None:  # noqa: ANN401
    for cell in cells:
        if "tcplab_check" not in cell.metadata:
            continue
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines():
                if line.startswith(MARK):
                    result = json.loads(line[len(MARK) :])
                    grade.scores[result["question"]] = float(result["score"])
                    if result["error"]:
                        grade.errors[result["question"]] = result["error"]
                    if result.get("feedback"):
                        grade.feedback[result["question"]] = result["feedback"]


def _timed_out(cell: dict) -> bool:
    return any(o.get("ename") == TIMED_OUT for o in cell.get("outputs", []))


def _responds(client: object, seconds: int = 10) -> bool:
    """Whether the kernel runs a trivial cell within ``seconds`` after an interrupt (a
    submission can catch KeyboardInterrupt and go on looping)."""
    import nbformat

    probe = nbformat.v4.new_code_cell("pass")
    saved = client.timeout  # type: ignore[attr-defined]
    client.timeout = seconds  # type: ignore[attr-defined]
    try:
        client.execute_cell(probe, 0)  # type: ignore[attr-defined]
    finally:
        client.timeout = saved  # type: ignore[attr-defined]
    return not _timed_out(probe)


def grade_batch(
    submissions: list[Path],
    tests: dict[str, Path],
    possible: dict[str, float],
    *,
    cell_timeout: float = CELL_TIMEOUT,
    question_timeout: float = QUESTION_TIMEOUT,
    submission_timeout: float = SUBMISSION_TIMEOUT,
) -> list[Grade]:
    """Grade ``submissions`` one after the other in one kernel (each in a fresh namespace and
    working folder). If the kernel dies, the submission that killed it keeps the questions it
    had scored, and the rest of the batch is graded in a new kernel."""
    import nbformat
    from nbclient import NotebookClient

    grades: list[Grade] = []
    if not submissions:
        return grades
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    with tempfile.TemporaryDirectory(prefix="tcplab-grade-") as scratch:
        client = NotebookClient(
            notebook, timeout=int(cell_timeout), interrupt_on_timeout=True, allow_errors=True,
            error_on_timeout={"ename": TIMED_OUT, "evalue": "the cell ran out of time"},
            kernel_name="python3", resources={"metadata": {"path": scratch}},
        )  # fmt: skip
        with client.setup_kernel():
            for number, submission in enumerate(submissions):
                started = time.monotonic()
                workdir = Path(scratch) / str(number)
                workdir.mkdir()
                grade = Grade(submission.name, {q: 0.0 for q in tests}, dict(possible))
                grades.append(grade)
                cells = _cells(submission, tests, question_timeout, workdir)
                notebook.cells = cells
                dead = False
                for index, cell in enumerate(cells):
                    left = started + submission_timeout - time.monotonic()
                    if left <= 1:
                        grade.errors["_"] = f"ran out of its {submission_timeout:g} s"
                        break
                    own = question_timeout + 5 if "tcplab_check" in cell.metadata else cell_timeout
                    own = SETUP_TIMEOUT if index == 0 else own
                    client.timeout = max(1, int(min(own, left)))
                    try:
                        client.execute_cell(cell, index)
                        if _timed_out(cell) and not _responds(client):
                            raise TimeoutError("the kernel ignored the interrupt")
                    except Exception as exc:  # noqa: BLE001 - the kernel died or hung
                        grade.errors["_"] = f"cell {index}: {type(exc).__name__}: {exc}"[:300]
                        dead = True
                        break
                _read_scores(cells, grade)
                grade.seconds = time.monotonic() - started
                if dead:
                    break
    if len(grades) < len(submissions):
        grades += grade_batch(
            submissions[len(grades) :], tests, possible, cell_timeout=cell_timeout,
            question_timeout=question_timeout, submission_timeout=submission_timeout,
        )  # fmt: skip
    return grades


def _possible(tests: dict[str, Path]) -> dict[str, float]:
    from otter.nbmeta_config import NBMetadataConfig  # type: ignore[import-untyped]
    from otter.test_files import create_test_file  # type: ignore[import-untyped]

    return {
        q: float(create_test_file(str(p), NBMetadataConfig()).possible) for q, p in tests.items()
    }


def grade(
    zip_path: Path,
    submissions: list[Path],
    *,
    batch: int = 1,
    cell_timeout: float = CELL_TIMEOUT,
    question_timeout: float = QUESTION_TIMEOUT,
    submission_timeout: float = SUBMISSION_TIMEOUT,
) -> list[Grade]:
    """Grade each submission (an .ipynb) against the autograder zip ``zip_path``; ``batch``
    submissions share one kernel (1: a fresh kernel for each, the safe default; more saves the
    kernel's start and imports, but a submission that changes a module, not just its own
    variables, could change the next one's grade)."""
    if batch < 1:
        raise ValueError(f"batch={batch!r} must be at least 1")
    with tempfile.TemporaryDirectory(prefix="tcplab-tests-") as folder:
        tests = _tests(zip_path, Path(folder))
        possible = _possible(tests)
        grades: list[Grade] = []
        for first in range(0, len(submissions), batch):
            grades += grade_batch(
                submissions[first : first + batch], tests, possible, cell_timeout=cell_timeout,
                question_timeout=question_timeout, submission_timeout=submission_timeout,
            )  # fmt: skip
        return grades


def feedback_text(grade: Grade) -> str:
    """What the failed public tests of ``grade`` said, question by question, on one line
    ("q1: ...; q5: ..."), for the student: hidden tests say nothing here."""
    return "; ".join(f"{q}: {said}" for q, said in grade.feedback.items())


def write_csv(grades: list[Grade], path: Path) -> None:
    """One row per submission: its name, the points of each question, the total, the points
    possible, the seconds its grading took and the failed public tests' messages."""
    questions = list(grades[0].possible) if grades else []
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", *questions, "total", "possible", "seconds", "feedback"])
        for g in grades:
            possible = sum(g.possible.values())
            row = [g.submission, *(g.scores[q] for q in questions), g.total, possible]
            writer.writerow([*row, f"{g.seconds:.1f}", feedback_text(g)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build_cmd = sub.add_parser("build", help="build the student notebooks and autograders")
    build_cmd.add_argument("out", nargs="?", type=Path, default=ROOT / "_build" / "labs")
    build_cmd.add_argument(
        "--lab", action="append", choices=LABS, help="only this lab (repeatable)"
    )
    lite_cmd = sub.add_parser(
        "lite", help="the labs in the browser: a JupyterLite site in OUT/lite"
    )
    lite_cmd.add_argument("out", nargs="?", type=Path, default=ROOT / "_build" / "labs")
    lite_cmd.add_argument("--lab", action="append", choices=LABS, help="only this lab (repeatable)")
    grade_cmd = sub.add_parser("grade", help="grade a folder of submissions into a CSV")
    grade_cmd.add_argument("lab", choices=LABS)
    grade_cmd.add_argument("submissions", type=Path, help="a folder of .ipynb submissions")
    grade_cmd.add_argument(
        "--autograder", type=Path, help="the lab's autograder zip (default: from make labs)"
    )
    grade_cmd.add_argument(
        "--csv", type=Path, help="where to write the scores (default: SUBMISSIONS/grades.csv)"
    )
    grade_cmd.add_argument(
        "--batch", type=int, default=1, help="submissions per kernel (default 1)"
    )
    grade_cmd.add_argument(
        "--lms",
        choices=("canvas", "moodle"),
        help="also write the grades as this LMS imports them (tcplab.gradebook), from the file "
        "names of its download of the submissions, to SUBMISSIONS/grades-LMS.csv",
    )
    grade_cmd.add_argument(
        "--assignment", help="the assignment's name in the LMS (default: '<lab> lab')"
    )
    grade_cmd.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT)
    grade_cmd.add_argument("--question-timeout", type=float, default=QUESTION_TIMEOUT)
    grade_cmd.add_argument("--submission-timeout", type=float, default=SUBMISSION_TIMEOUT)
    args = parser.parse_args(argv)
    if args.command == "build":
        for lab, folder in build(args.out, tuple(args.lab or LABS)).items():
            student = folder / "student" / f"{lab}.ipynb"
            print(f"{lab}: {student}  (autograder: {autograder_zip(folder)})")
        return 0
    if args.command == "lite":
        from tcplab import labs_lite

        started = time.monotonic()
        site = labs_lite.build(args.out, args.out / "lite", ROOT, list(args.lab or LABS))
        size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        took = time.monotonic() - started
        print(f"lite: {site / 'index.html'}  ({size / 1e6:.0f} MB, {took:.0f} s)")
        return 0
    zip_path = args.autograder or autograder_zip(ROOT / "_build" / "labs" / args.lab)
    if not args.submissions.is_dir():
        parser.error(f"submissions={str(args.submissions)!r} is not a folder")
    paths = sorted(args.submissions.glob("*.ipynb"))
    if not paths:
        parser.error(f"no .ipynb files in {args.submissions}")
    grades = grade(
        zip_path, paths, batch=args.batch, cell_timeout=args.cell_timeout,
        question_timeout=args.question_timeout, submission_timeout=args.submission_timeout,
    )  # fmt: skip
    out = args.csv or args.submissions / "grades.csv"
    write_csv(grades, out)
    if args.lms:
        from tcplab.gradebook import Score, write_lms_csv

        scores = [
            Score(g.submission, g.total, sum(g.possible.values()), feedback_text(g)) for g in grades
        ]
        lms_csv = out.with_name(f"grades-{args.lms}.csv")
        write_lms_csv(scores, lms_csv, args.lms, args.assignment or f"{args.lab} lab")
        print(f"For {args.lms.title()}: {lms_csv}")
    for g in grades:
        problems = "; ".join(f"{q}: {e}" for q, e in g.errors.items())
        print(
            f"{g.submission}: {g.total:g}/{sum(g.possible.values()):g} in {g.seconds:.0f} s"
            + (f"  ({problems})" if problems else "")
        )
        if g.feedback:
            print(f"    feedback: {feedback_text(g)}")
    print(f"Scores: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
