"""The book's MyST as plain Markdown, for its chapters opened as notebooks outside the book (a
downloaded .ipynb, Colab): plain Jupyter shows ``{cite:t}`morris1997many``` and
``:::{admonition}`` as they are typed. Each becomes what a reader of the book sees, or the
nearest plain equivalent.

Roles (:func:`plain_markdown`):

* ``{cite:t}`key``` -> Morris (1997); ``{cite:p}`` and ``{cite}`` -> (Morris 1997), the names
  and years read from the book's ``references.bib``;
* ``{term}``, ``{ref}``, ``{doc}`` with a title (``text <target>``) -> the title, else the term
  itself, the target's title or number where the build knows it (:class:`Rendering`), else its
  name; ``{numref}`` -> "Figure 4.3" (the build's number) or "Figure (label)";
* ``{glue:text}`name:.1f``` (a number the notebook computes and the book prints in the text) ->
  the number the book printed, formatted as it did (myst-nb's own formatting, from the values
  the build's run glued); without them ⟨name⟩, and :data:`GLUE_NOTE` says where to read it.

Directives (:func:`plain_cells`): an admonition becomes a quotation headed by its title; an
exercise "**Exercise 4.2** (★★ derivation)" and its text; a solution a folded ``<details>``
block (a gated solution, whose code cells run, a heading and cells with their input folded);
a ``literalinclude`` the code it includes; a MyST target ``(label)=`` goes. Any other directive
stops the conversion, naming it: a new one needs its plain form here first.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

__all__ = ["GLUE_NOTE", "Rendering", "citations", "plain_markdown", "plain_cells"]

ROLE = re.compile(r"\{(?P<role>[a-z]+(?::[a-z]+)?)\}`(?P<body>[^`]*)`")
TITLED = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
#: a note put before a chapter whose text holds computed numbers the notebook does not know
GLUE_NOTE = (
    "*In this notebook a number the book prints in its text appears as ⟨name⟩: a code cell "
    'computes it and passes it to `glue("name", value)`; print that value there after a run, '
    "or read the number in the book.*"
)
#: a directive's first line: its fence (``` or :::, or longer), name and argument
_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z][\w-]*)\}[ \t]*(?P<argument>.*?)\s*$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*?)\s*$")
#: a MyST target line, ``(label)=``
_TARGET = re.compile(r"^\([\w.:-]+\)=[ \t]*\n", re.MULTILINE)


@dataclass(frozen=True)
class Rendering:
    """What the book's build knows that a plain notebook shows as text: the values its run
    glued (name -> text/plain), the numbers of figures and exercises, the titles of sections
    (label -> "Figure 4.3", "Exercise 4.2", a section's title) and of pages ("doc:NAME" ->
    its title)."""

    glue: Mapping[str, str] = field(default_factory=dict)
    references: Mapping[str, str] = field(default_factory=dict)


@cache
def citations(bib: Path) -> dict[str, tuple[str, str]]:
    """Each entry of the BibTeX file ``bib`` as (its authors as cited: "Morris", "Altman and
    Barakat", "Altman et al."; its year)."""
    from pybtex.database import parse_file
    from pybtex.markup import LaTeXParser

    found = {}
    for key, entry in parse_file(str(bib)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        last = [LaTeXParser(" ".join(p.last_names)).parse().render_as("text") for p in people]
        if not last:
            names = entry.fields.get("organization") or entry.fields.get("institution") or key
        elif len(last) == 1:
            names = last[0]
        elif len(last) == 2:
            names = f"{last[0]} and {last[1]}"
        else:
            names = f"{last[0]} et al."
        found[key] = (names.strip("{}"), entry.fields.get("year", "n.d."))
    return found


def _titled(body: str) -> tuple[str, str]:
    match = TITLED.match(body)
    return (match["text"], match["target"]) if match else ("", body)


def _glued(body: str, glue: Mapping[str, str] | None) -> str:
    name, _, spec = body.partition(":")
    if glue is None:
        return f"⟨{name}⟩"
    if name not in glue:
        raise KeyError(f"{{glue:text}}`{body}`: the build glued no value named {name!r}")
    from myst_nb.core.variables import format_plain_text  # the book's own formatting

    return format_plain_text(glue[name], spec or "s")


def _replace(
    match: re.Match[str], cited: dict[str, tuple[str, str]], rendering: Rendering | None
) -> str:
    role, body = match["role"], match["body"]
    if role.startswith("cite"):
        keys = [key.strip() for key in body.split(",")]
        unknown = [key for key in keys if key not in cited]
        if unknown:
            raise KeyError(f"{match[0]}: {', '.join(unknown)} not in references.bib")
        if role == "cite:t":
            return "; ".join(f"{cited[key][0]} ({cited[key][1]})" for key in keys)
        return "(" + "; ".join(f"{cited[key][0]} {cited[key][1]}" for key in keys) + ")"
    if role == "glue:text":
        return _glued(body, rendering.glue if rendering else None)
    text, target = _titled(body)
    known = rendering.references.get(target) if rendering else None
    if role == "numref":
        return known or f"Figure ({target})"
    if text:
        return text
    if role == "doc":
        name = target.rsplit("/", 1)[-1]
        title = rendering.references.get(f"doc:{name}") if rendering else None
        return f"“{title}”" if title else f"the chapter “{name}”"
    if role == "term":
        return target
    return known or f"“{target}”"


def plain_markdown(text: str, bib: Path, rendering: Rendering | None = None) -> str:
    """``text`` (MyST Markdown) with every role (:data:`ROLE`) as plain Markdown; a citation
    of a key not in ``bib`` raises, naming it, as does a glued name the build did not glue
    (with ``rendering``; without it a glued number shows as ⟨name⟩)."""
    cited = citations(bib)
    return ROLE.sub(lambda match: _replace(match, cited, rendering), text)


@dataclass
class _Directive:
    name: str
    argument: str
    options: dict[str, str]
    body: str


def _fences(text: str, render: Callable[[_Directive], str]) -> str:
    """``text`` with each directive (``` or ::: fenced, nested ones too) replaced by
    ``render`` of it; a fence left open raises."""
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        opened = _OPEN.match(lines[index])
        if not opened:
            out.append(lines[index])
            index += 1
            continue
        fence = opened["fence"]
        index += 1
        options = {}
        while index < len(lines) and (option := _OPTION.match(lines[index])):
            options[option["key"]] = option["value"]
            index += 1
        body, depth = [], 0
        while True:
            if index == len(lines):
                raise ValueError(f"{{{opened['name']}}} {opened['argument']!r} is never closed")
            line = lines[index].rstrip()
            index += 1
            if line.startswith(fence[0] * 3):  # a fence of the same kind: nested, or ours
                bare = line == fence[0] * len(line)
                if bare and depth == 0 and len(line) >= len(fence):
                    break
                depth += -1 if bare else 1
            body.append(lines[index - 1])
        inner = _fences("\n".join(body).strip("\n"), render)
        out.append(render(_Directive(opened["name"], opened["argument"], options, inner)))
    return "\n".join(out)


def _quoted(title: str, body: str) -> str:
    lines = [f"**{title}**", "", *body.split("\n")]
    return "\n".join(f"> {line}".rstrip() for line in lines)


def _included(chapter: Path, directive: _Directive) -> str:
    """The code a ``literalinclude`` shows: the whole file, or the object ``:pyobject:``
    names (a function, a class, ``Class.method``) with its decorators."""
    unknown = set(directive.options) - {"language", "pyobject"}
    if unknown:
        raise ValueError(f"literalinclude {directive.argument}: options {sorted(unknown)}")
    path = (chapter.parent / directive.argument).resolve()
    source = path.read_text(encoding="utf-8")
    wanted = directive.options.get("pyobject")
    if wanted:
        scope: list[ast.stmt] = ast.parse(source).body
        node: ast.stmt | None = None
        for part in wanted.split("."):
            node = next(
                (
                    n
                    for n in scope
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and n.name == part
                ),
                None,
            )
            if node is None:
                raise ValueError(f"literalinclude {directive.argument}: no {wanted}")
            scope = node.body
        assert node is not None
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        lines = source.splitlines()[first - 1 : node.end_lineno]
        source = textwrap.dedent("\n".join(lines))
    language = directive.options.get("language", "")
    return f"```{language}\n{source.rstrip()}\n```"


def plain_cells(
    cells: list,
    chapter: Path,
    exercises: Mapping[str, str],
    rendering: Rendering | None = None,
) -> list:
    """The notebook ``cells`` of ``chapter`` with their Markdown plain (directives as said
    above, then roles, :func:`plain_markdown`); ``exercises``: each exercise's label and
    number ("4.2"). The code cells of a gated solution get their input folded; a cell left
    empty goes. Returns the new list of cells (the cells are changed in place)."""
    bib = chapter.parent.parent / "references.bib"
    in_solution = False

    def render(directive: _Directive) -> str:
        nonlocal in_solution
        name, body = directive.name, directive.body
        label = directive.options.get("label", directive.argument)
        if name == "admonition":
            return _quoted(directive.argument or "Note", body)
        if name in ("note", "tip", "important", "warning", "caution", "hint", "seealso"):
            return _quoted(directive.argument or name.capitalize(), body)
        if name == "exercise":
            number = exercises.get(label, "")
            mark = f" ({directive.argument})" if directive.argument else ""
            return f'<a id="{label}"></a>\n\n**Exercise {number}**{mark}\n\n{body}'
        if name == "solution":
            said = f"Solution to Exercise {exercises.get(label, label)}"
            return f"<details>\n<summary>{said}</summary>\n\n{body}\n\n</details>"
        if name == "solution-start":
            in_solution = True
            return f"**Solution to Exercise {exercises.get(label, label)}**"
        if name == "solution-end":
            in_solution = False
            return ""
        if name == "literalinclude":
            return _included(chapter, directive)
        raise ValueError(f"{chapter.name}: no plain form for the directive {{{name}}}")

    kept = []
    for cell in cells:
        if cell.cell_type == "markdown":
            text = _fences(_TARGET.sub("", cell.source), render)
            cell.source = plain_markdown(text, bib, rendering).strip("\n")
            if not cell.source.strip():
                continue
        elif cell.cell_type == "code" and in_solution:
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
        kept.append(cell)
    return kept
