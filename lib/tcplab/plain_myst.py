"""The book's MyST roles as plain Markdown, for its chapters opened as notebooks outside the
book (a downloaded .ipynb, Colab): plain Jupyter shows ``{cite:t}`morris1997many``` as it is
typed. Each role becomes the text a reader of the book sees, or the nearest plain equivalent:

* ``{cite:t}`key``` -> Morris (1997); ``{cite:p}`` and ``{cite}`` -> (Morris 1997), the names
  and years read from the book's ``references.bib``;
* ``{term}``, ``{ref}``, ``{doc}`` with a title (``text <target>``) -> the title, else the term
  itself or the target's name; ``{numref}`` -> "Figure (label)";
* ``{glue:text}`name:.1f``` (a number the notebook computes and the book prints in the text)
  -> ⟨name⟩; :data:`GLUE_NOTE` says where to read it after a run.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

__all__ = ["GLUE_NOTE", "citations", "plain_markdown"]

ROLE = re.compile(r"\{(?P<role>[a-z]+(?::[a-z]+)?)\}`(?P<body>[^`]*)`")
TITLED = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
#: a note put before a chapter whose text holds computed numbers
GLUE_NOTE = (
    "*In this notebook a number the book prints in its text appears as ⟨name⟩: a code cell "
    'computes it and passes it to `glue("name", value)`; print that value there after a run, '
    "or read the number in the book.*"
)


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


def _replace(match: re.Match[str], cited: dict[str, tuple[str, str]]) -> str:
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
        return f"⟨{body.split(':', 1)[0]}⟩"
    text, target = _titled(body)
    if role == "numref":
        return f"Figure ({target})"
    if text:
        return text
    if role == "doc":
        return f"the chapter “{target.rsplit('/', 1)[-1]}”"
    return target if role == "term" else f"“{target}”"


def plain_markdown(text: str, bib: Path) -> str:
    """``text`` (MyST Markdown) with every role (:data:`ROLE`) as plain Markdown; a citation
    of a key not in ``bib`` raises, naming it."""
    cited = citations(bib)
    return ROLE.sub(lambda match: _replace(match, cited), text)
