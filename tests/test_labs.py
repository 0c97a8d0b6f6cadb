"""The course labs (labs/, tools/labs.py): `make labs` builds the five labs with Otter Assign,
and the grading command scores submissions as the instructors' page says.

For each lab: the reference solution scores full marks; two submissions, one with each odd
question's typical mistake and one with each even question's, lose exactly those questions'
points (a wrong constant, an off-by-one, a missing clamp: the expectation is the question's
points, from the lab's source, not from the grader). One submission (altman) that raises in one
question, loops in a function in another, loops at the top level of a third and answers
nothing in a fourth scores zero for those and full marks for the rest, within its limits.

Kernels are slow to start, so each lab's submissions are graded in one kernel (``--batch``),
each in a fresh namespace; the broken submission is graded second in its batch, so the
submissions after it show that the grader went on in the same kernel.
"""

from __future__ import annotations

import csv
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("tcplab_labs_tool", ROOT / "tools" / "labs.py")
assert _spec and _spec.loader
labs = importlib.util.module_from_spec(_spec)
sys.modules["tcplab_labs_tool"] = labs
_spec.loader.exec_module(labs)

pytestmark = pytest.mark.timeout(600)

#: each question's typical mistake: (text of the reference solution, text with the mistake)
MISTAKES: dict[str, dict[str, tuple[str, str]]] = {
    "altman": {
        # the midpoint taken as 1 - beta/2: right at beta = 1/2 (the public test), wrong elsewhere
        "q1": ("return (1 + beta) / 2", "return 1 - beta / 2"),
        "q2": ("return 1 - 1 / (1 + n * rho)", "return 1 - 1 / (1 + (n - 1) * rho)"),  # off by one
        # the cut applied before the growth
        "q3": (
            "grown = np.asarray(x, dtype=float) + np.asarray(eta, dtype=float) * dt\n"
            "    return np.where(signalled, beta * grown, grown)",
            "x = np.asarray(x, dtype=float)\n"
            "    return np.where(signalled, beta * x, x) + np.asarray(eta, dtype=float) * dt",
        ),
        "q4": ("simulate(3, beta=0.7,", "simulate(3, beta=0.5,"),  # the default beta kept
        "q5": (">= 0.95)", "> 0.95) - 1"),  # off by one
        "q6": ("    if avg >= max_th:\n        return 1.0\n", ""),  # the missing clamp
    },
    "morris": {
        "q1": ("10e6 / (8 * 576)  #", "10e6 / 576  #"),  # bytes for bits
        "q2": ("window = (rate * 0.1 + queue) / n", "window = rate * 0.1 / n"),  # queue left out
        "q3": ("30 * math.sqrt(0.02 / book_loss(30))", "30 * 0.02 / book_loss(30)"),  # linear
        "q4": ("storage = 10e6 / (8 * 576) * 0.1 + 217", "storage = 217.0"),  # links forgotten
        "q5": ("    if 2 * p >= 1:\n        return math.inf\n", ""),  # the missing clamp
    },
    "honda": {
        "q1": ("3 * b * weight**2 / (2 - b)", "3 * b * weight / (2 - b)"),  # D, not D^2
        "q2": ("math.sqrt(a * (2 - b) / (3 * b))", "a * (2 - b) / (3 * b)"),  # no square root
        "q3": (
            "low, high = int(np.argmin(t)), int(np.argmax(t))",
            "low, high = int(np.argmax(t)), int(np.argmin(t))",
        ),  # weight moved the wrong way
        "q4": ("k_max = 1 / (1 - 0.25)", "k_max = 1 / 0.25"),  # the thesis's bound K < 4
        "q5": ("(2 * c1 - c2) / (c1 + c2)", "(2 * c2 - c1) / (c1 + c2)"),  # links swapped
    },
    "lu": {
        "q1": ("math.sqrt(3 / 2) / (rtt", "math.sqrt(2 / 3) / (rtt"),  # the constant inverted
        "q2": ("y1, y2 = n1**2 / bw1**2, n2**2 / bw2**2", "y1, y2 = n1 / bw1**2, n2 / bw2**2"),
        "q3": ("    if value <= 0:\n        return math.nan\n", ""),  # the missing guard
        "q4": ("1 - math.sqrt(p1 / p2)", "1 - math.sqrt(p2 / p1)"),  # the ratio inverted
        "q5": ("tamed = max(n", "tamed = 1 + max(n"),  # off by one
    },
    "lee": {
        "q1": ("-(-nbytes // 1500)", "nbytes // 1500"),  # floor, not ceiling
        "q2": ("/ max(completions)", "/ (sum(completions) / len(completions))"),  # mean time
        "q3": (
            "failed = table.groupby",
            "return table.dropna(subset=['completion_s'])\n    failed = table.groupby",
        ),  # only the failed transfer left out
        "q4": ("min(flows * window * 1500 / rtt, capacity)", "flows * window * 1500 / rtt"),
    },
}

#: what each question's public tests say when a submission makes its typical mistake (a
#: public test catches every one of them and names it; the hidden tests stay hidden)
NAMED: dict[str, dict[str, str]] = {
    "altman": {
        "q1": "1 - beta/2",
        "q2": "N - 1",
        "q3": "cut was applied before the growth",
        "q4": "beta = 0.7",
        "q5": "off-by-one",
        "q6": "from max_th on every arrival is dropped",
    },
    "morris": {
        "q1": "bits vs bytes",
        "q2": "without the queue",
        "q3": "linearly",
        "q4": "buffer alone",
        "q5": "diverges",
    },
    "honda": {
        "q1": "D^2",
        "q2": "without the square root",
        "q3": "wrong way",
        "q4": "thesis's own bound",
        "q5": "swapped",
    },
    "lu": {
        "q1": "sqrt(3/2)",
        "q2": "n squared",
        "q3": "return math.nan",
        "q4": "sqrt(p1 / p2), not sqrt(p2 / p1)",
        "q5": "one too many",
    },
    "lee": {
        "q1": "round up",
        "q2": "mean completion time",
        "q3": "whole repetition is left out",
        "q4": "cannot exceed the capacity",
    },
}

#: the broken submission (altman): a crash, a function that loops, a top-level loop, no answer
BROKEN = {
    "q1": ("return (1 + beta) / 2", "raise RuntimeError('not done yet')"),
    "q2": ("rho = (1 + beta) / (1 - beta)", "while True:\n        pass"),
    "q4": ("run = simulate(3, beta=0.7, events=2000, replicas=4, seed=1)", "while True:\n    pass"),
    "q5": ("flows95 = next(", "flows95 = ...  # next("),
}
#: the tests' limits (seconds), shorter than the command's defaults so the broken submission's
#: loops cost little; each lab's reference solution takes a fraction of them
LIMITS = {"cell_timeout": 10.0, "question_timeout": 5.0, "submission_timeout": 120.0}


def _points(lab: str) -> dict[str, float]:
    """Each question's points, read from the lab's source (its `# BEGIN QUESTION` blocks)."""
    text = (ROOT / "labs" / f"{lab}.md").read_text(encoding="utf-8")
    blocks = re.findall(r"# BEGIN QUESTION\nname: (\w+)\npoints: ([\d.]+)", text)
    return {name: float(points) for name, points in blocks}


def _submission(reference: Path, changes: dict[str, tuple[str, str]], out: Path) -> Path:
    """The reference solution with each (old, new) replacement made in the one cell holding
    ``old`` (which must be there exactly once)."""
    notebook = nbformat.read(reference, as_version=4)
    for question, (old, new) in changes.items():
        cells = [c for c in notebook.cells if c.cell_type == "code" and old in c.source]
        assert len(cells) == 1 and cells[0].source.count(old) == 1, (reference, question, old)
        cells[0].source = cells[0].source.replace(old, new)
    nbformat.write(notebook, out)
    return out


def test_the_instructors_page_states_each_labs_questions_and_points() -> None:
    """The labs' table on the instructors' page (made from the labs' sources when the book is
    built: tcplab.course.labs_html) gives each lab's questions and points as this file's own
    reading of the source does."""
    from tcplab.course import LAB_CHAPTERS, labs_html

    assert tuple(LAB_CHAPTERS) == labs.LABS
    table = labs_html(ROOT)
    page = (ROOT / "chapters" / "instructors.md").read_text(encoding="utf-8")
    assert "<!-- tcplab: labs -->" in page
    for lab in labs.LABS:
        points = _points(lab)
        row = re.search(rf"<code>{lab}</code>.*?</tr>", table, re.DOTALL)
        assert row, f"no row for {lab}"
        assert f">{len(points)} ({sum(points.values()):g})<" in row[0], lab


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make labs`'s build (tools/labs.py build) into a temporary folder."""
    out = tmp_path_factory.mktemp("labs")
    labs.build(out)
    return out


def test_every_lab_has_a_source_and_4_to_8_questions() -> None:
    sources = {p.stem for p in (ROOT / "labs").glob("*.md") if p.name != "README.md"}
    assert set(labs.LABS) == sources
    for lab in labs.LABS:
        assert 4 <= len(_points(lab)) <= 8, lab
        assert set(MISTAKES[lab]) == set(_points(lab)), f"{lab}: one mistake per question"


def test_make_labs_builds_student_notebooks_and_autograders(built: Path) -> None:
    for lab in labs.LABS:
        student = nbformat.read(built / lab / "student" / f"{lab}.ipynb", as_version=4)
        code = [c.source for c in student.cells if c.cell_type == "code"]
        assert "import tcplab" in code[0] and "pip install" in code[0], lab
        text = "\n".join(code)
        assert "BEGIN SOLUTION" not in text and "# SOLUTION" not in text, lab
        for old, _ in MISTAKES[lab].values():  # no reference answer reaches the students
            assert old not in text, (lab, old)
        public = student.metadata["otter"]["tests"]
        assert set(public) == set(_points(lab)), lab
        for spec in public.values():  # the students' notebook holds only the public cases
            assert all(not case["hidden"] for case in spec["suites"][0]["cases"]), lab
        archive = labs.autograder_zip(built / lab)
        with labs.tempfile.TemporaryDirectory() as folder:
            tests = labs._tests(archive, Path(folder))
            assert labs._possible(tests) == _points(lab), lab


def _grade(lab: str, built: Path, folder: Path, out: Path) -> dict[str, dict[str, float]]:
    """The documented command, on every submission in ``folder`` in one kernel (``--batch``):
    the CSV's rows by submission."""
    count = len(list(folder.glob("*.ipynb")))
    limits = [f"--{k.replace('_', '-')}={v}" for k, v in LIMITS.items()]
    archive = str(labs.autograder_zip(built / lab))
    args = ["grade", lab, str(folder), "--autograder", archive, "--csv", str(out)]
    assert labs.main([*args, f"--batch={count}", *limits]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["submission"] for r in rows] == sorted(p.name for p in folder.glob("*.ipynb"))
    return {r.pop("submission"): r for r in rows}


def _said(feedback: str) -> dict[str, str]:
    """The feedback column ("q1: ...; q3: ...") by question."""
    parts = re.split(r"; (?=q\d+: )", feedback) if feedback else []
    return dict(part.split(": ", 1) for part in parts)


@pytest.mark.parametrize("lab", labs.LABS)
def test_reference_scores_full_marks_and_each_mistake_costs_its_question(
    lab: str, built: Path, tmp_path: Path
) -> None:
    points = _points(lab)
    total = sum(points.values())
    reference = built / lab / "autograder" / f"{lab}.ipynb"
    odd = {q: m for q, m in MISTAKES[lab].items() if int(q[1:]) % 2 == 1}
    even = {q: m for q, m in MISTAKES[lab].items() if int(q[1:]) % 2 == 0}
    folder = tmp_path / "submissions"
    folder.mkdir()
    _submission(reference, {}, folder / "a-reference.ipynb")
    _submission(reference, odd, folder / "c-odd-mistakes.ipynb")
    _submission(reference, even, folder / "d-even-mistakes.ipynb")
    if lab == "altman":  # graded second: the ones after it show that the grader went on
        _submission(reference, BROKEN, folder / "b-broken.ipynb")
    text = _grade(lab, built, folder, tmp_path / "grades.csv")
    feedback = {name: _said(row.pop("feedback")) for name, row in text.items()}
    rows = {name: {k: float(v) for k, v in row.items()} for name, row in text.items()}
    assert {q: rows["a-reference.ipynb"][q] for q in points} == points
    assert rows["a-reference.ipynb"]["total"] == rows["a-reference.ipynb"]["possible"] == total
    assert feedback["a-reference.ipynb"] == {}
    wrong_ones = {"c-odd-mistakes.ipynb": odd, "d-even-mistakes.ipynb": even}
    if lab == "altman":
        wrong_ones["b-broken.ipynb"] = BROKEN
        assert rows["b-broken.ipynb"]["seconds"] < LIMITS["submission_timeout"]
    for name, wrong in wrong_ones.items():
        expected = {q: 0.0 if q in wrong else p for q, p in points.items()}
        assert {q: rows[name][q] for q in points} == expected, name
        assert rows[name]["total"] == sum(expected.values()), name
    # each typical mistake fails a public test, whose message names it: the student sees it
    for name, wrong in {"c-odd-mistakes.ipynb": odd, "d-even-mistakes.ipynb": even}.items():
        assert set(feedback[name]) == set(wrong), (name, feedback[name])
        for question in wrong:
            assert NAMED[lab][question] in feedback[name][question], (question, feedback[name])


#: a test case's code cell in a lab's source, after its `# BEGIN TESTS` line
_TEST_CELL = re.compile(r"```\{code-cell\} ipython3\n(.*?)```", re.DOTALL)
_CONFIG = re.compile(r'^""" # BEGIN TEST CONFIG\n(.*?)""" # END TEST CONFIG\n', re.DOTALL)


def _cases(lab: str) -> dict[str, list[tuple[bool, str]]]:
    """Each question's test cases in the lab's source: (hidden, code)."""
    text = (ROOT / "labs" / f"{lab}.md").read_text(encoding="utf-8")
    found = {}
    for block in text.split("# BEGIN QUESTION\n")[1:]:
        name = re.match(r"name: (\w+)", block)
        assert name, block[:80]
        tests = block.split("# BEGIN TESTS", 1)[1].split("# END TESTS", 1)[0]
        cases = []
        for code in _TEST_CELL.findall(tests):
            config = _CONFIG.match(code)
            cases.append((bool(config and "hidden: true" in config[1]), _CONFIG.sub("", code)))
        found[name[1]] = cases
    return found


@pytest.mark.parametrize("lab", labs.LABS)
def test_every_public_assertion_says_what_is_wrong(lab: str) -> None:
    """A failed public test is what a student reads: each of its asserts carries a message
    (what is wrong, and where to look), and each question has public and hidden cases."""
    import ast

    for question, cases in _cases(lab).items():
        assert any(hidden for hidden, _ in cases), f"{lab} {question}: no hidden test"
        public = [code for hidden, code in cases if not hidden]
        assert public, f"{lab} {question}: no public test"
        for code in public:
            asserts = [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Assert)]
            assert asserts, f"{lab} {question}: a public test without an assert"
            bare = [ast.unparse(a.test) for a in asserts if a.msg is None]
            assert not bare, f"{lab} {question}: asserts without a message: {bare}"
