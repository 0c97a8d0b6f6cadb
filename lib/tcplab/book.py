"""Sphinx extension that makes the built book work with no internet.

The book's charts need Vega, Vega-Lite and vega-embed, and its formulas need MathJax. Instead
of loading them from a CDN, this extension writes one self-contained Vega bundle (made by the
pinned ``vl-convert-python``) and MathJax (from the pinned npm package in ``node_modules``)
into a static folder that Sphinx copies into ``_build/html/_static``, and with them the
in-browser panels' Python runtime (Pyodide and its wheels, :mod:`tcplab.pyodide_site`).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from tcplab import offline, syllabus
from tcplab.launch import colab_url
from tcplab.pyodide_site import write_runtime, write_service_worker

__all__ = [
    "setup",
    "VEGA_BUNDLE",
    "write_vega_bundle",
    "VegaLiteMimeRenderer",
    "student_config",
    "drop_gated_solutions",
]

VEGA_BUNDLE = "tcplab-vega.js"
MATHJAX_FILE = "tex-svg.js"


def write_vega_bundle(folder: Path) -> Path:
    """Write the Vega/Vega-Lite/vega-embed bundle into ``folder`` (once per vl-convert version).

    The bundle declares top-level names, so it is wrapped in a function to keep them out of the
    page's global scope; it exposes ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``.
    """
    import vl_convert
    from altair.vegalite.v6.display import VEGALITE_VERSION

    vl_version = ".".join(VEGALITE_VERSION.split(".")[:2])  # the Vega-Lite altair writes
    version = f"vl-convert {getattr(vl_convert, '__version__', '?')}, vega-lite {vl_version}"
    target = folder / VEGA_BUNDLE
    stamp = folder / f"{VEGA_BUNDLE}.version"
    if target.exists() and stamp.exists() and stamp.read_text() == version:
        return target
    bundle = vl_convert.javascript_bundle(vl_version=vl_version)  # type: ignore[call-arg]
    folder.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(".tmp")
    temporary.write_text(f"(function () {{\n{bundle}\n}})();\n", encoding="utf-8")
    temporary.replace(target)
    stamp.write_text(version)
    return target


class VegaLiteMimeRenderer:
    """myst-nb plugin: the Vega-Lite MIME output is for JupyterLab; the book uses the HTML.

    Every chart output carries both; this tells myst-nb the Vega-Lite copy is known and has
    nothing to show, instead of warning about an unknown MIME type.
    """

    mime_priority_overrides = [("*", "application/vnd.vegalite.v6+json", None)]

    @staticmethod
    def handle_mime(renderer: object, data: object, inline: bool) -> list | None:
        if getattr(data, "mime_type", "") == "application/vnd.vegalite.v6+json":
            return []
        return None


def _copy_mathjax(srcdir: Path, folder: Path) -> None:
    source = srcdir / "node_modules" / "mathjax" / "es5" / MATHJAX_FILE
    if not source.exists():
        raise FileNotFoundError(
            f"{source} is missing: run `npm ci` in {srcdir} (make book does) to fetch MathJax"
        )
    shutil.copyfile(source, folder / MATHJAX_FILE)


def _add_assets(app: Sphinx, config: Config) -> None:
    srcdir = Path(app.srcdir)
    folder = srcdir / "_build" / ".tcplab-static"
    write_vega_bundle(folder)
    _copy_mathjax(srcdir, folder)
    runtime = write_runtime(srcdir, folder)  # _static/pyodide: the in-browser panels' Python
    config.html_static_path = [*config.html_static_path, str(folder)]
    root = srcdir / "_build" / ".tcplab-root"  # copied into the book's root, beside index.html
    write_service_worker(runtime, root)
    config.html_extra_path = [*config.html_extra_path, str(root)]
    _add_offline(app, config)


def _add_offline(app: Sphinx, config: Config) -> None:
    """Put into the book's root (:mod:`tcplab.offline`) the chapters as notebooks that install
    the book, the wheel they install, both in a zip, and the page that lists them with the
    students' edition and the PDF (``make site`` adds those two and rewrites the page). The
    students' edition (``hide_solutions``) gets notebooks without solutions. A few seconds."""
    srcdir = Path(app.srcdir)
    folder = Path(app.outdir).parent / ".tcplab-offline"  # one per edition
    if folder.exists():
        shutil.rmtree(folder)
    repository = (config.html_theme_options or {}).get("repository_url", "")
    student = bool(getattr(config, "hide_solutions", False))
    site = getattr(config, "html_baseurl", "") or ""
    offline.write_notebooks(
        srcdir, folder / offline.NOTEBOOKS, repository, site=site, solutions=not student
    )
    title = config.html_title or config.project
    offline.write_downloads_page(folder, title, student=student, site=site)
    config.html_extra_path = [*config.html_extra_path, str(folder)]


def _drop_duplicate_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """sphinx-thebe registers its inline config script twice under Jupyter Book 1.x, and the
    second copy re-declares a ``const``: an uncaught error on every page. Keep the first."""
    render = context.get("js_tag")
    if render is None:
        return
    seen: set[str] = set()
    unique = []
    for script in context.get("script_files", []):
        key = render(script)  # the exact <script> tag the page would contain
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def _fix_citation_roles(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """docutils marks each bibliography entry ``role="doc-biblioentry"`` inside a
    ``role="list"``: a role ARIA 1.2 deprecated, which a list may not hold (axe:
    aria-required-children). Entries of a list are list items."""
    body = context.get("body")
    if isinstance(body, str) and 'role="doc-biblioentry"' in body:
        context["body"] = body.replace('role="doc-biblioentry"', 'role="listitem"')


def _add_colab_button(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """Add Colab to the theme's launch menu of every notebook page, opening the page's
    notebook on the repository's notebooks branch (:mod:`tcplab.launch`): the theme's own
    Colab button would open ``chapters/NAME.ipynb`` on main, which does not exist."""
    repository = (app.config.html_theme_options or {}).get("repository_url", "")
    if "ipynb_source" not in context or not repository:
        return
    for group in context.get("header_buttons", []):
        if group.get("label") == "launch-buttons":
            group["buttons"].append(
                {
                    "type": "link",
                    "text": "Colab",
                    "tooltip": "Open this chapter in Google Colab",
                    "icon": "_static/images/logo_colab.png",
                    "url": colab_url(repository, pagename),
                }
            )


def _offer_offline_notebook(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """The theme's ".ipynb" download gives the page's notebook as the site offers it
    (``notebooks/NAME.ipynb``: it installs the book itself, :mod:`tcplab.offline`), not the
    executed copy in ``_sources``, which runs only in a clone."""
    if "ipynb_source" not in context:
        return
    name = pagename.rsplit("/", 1)[-1]
    url = f"{context['pathto'](offline.NOTEBOOKS, 1)}/{name}.ipynb"
    for group in context.get("header_buttons", []):
        for button in group.get("buttons", []):
            if button.get("label") == "download-notebook-button":
                button["url"] = url
                button["tooltip"] = "Download this chapter as a notebook that installs the book"


def student_config(config: dict) -> dict:
    """The students' edition of the book's configuration (``config``: the parsed
    _config.yml): the same book with every exercise's solution left out (sphinx-exercise's
    ``hide_solutions``) and the title saying so. ``make book-student`` builds it."""
    out = dict(config)
    out["title"] = f"{config['title']} (students' edition, without solutions)"
    sphinx = dict(out.get("sphinx") or {})
    sphinx["config"] = {**(sphinx.get("config") or {}), "hide_solutions": True}
    out["sphinx"] = sphinx
    return out


#: a gated solution: ```{solution-start} ...``` , anything (code cells too), ```{solution-end}```
GATED_SOLUTION = re.compile(
    r"^```\{solution-start\}.*?^```\{solution-end\}[^\n]*\n```[ \t]*(?:\n|$)",
    re.MULTILINE | re.DOTALL,
)


def drop_gated_solutions(text: str) -> str:
    """``text`` without its gated solutions (sphinx-exercise's solution-start ... solution-end,
    whose code cells run and show): sphinx-exercise's ``hide_solutions`` drops the start
    directive but leaves the cells and an end node no writer knows (the build fails)."""
    return GATED_SOLUTION.sub("", text)


def _hide_gated_solutions(app: Sphinx, docname: str, source: list[str]) -> None:
    if getattr(app.config, "hide_solutions", False):
        source[0] = drop_gated_solutions(source[0])


#: where the instructors' page shows the course map (:func:`tcplab.syllabus.course_map`)
COURSE_MAP = "<!-- tcplab: course map -->"


def _add_signposts(app: Sphinx, docname: str, source: list[str]) -> None:
    """Each chapter's "At a glance" line, its exercises' marks made readable, and the
    instructors' course map (:mod:`tcplab.syllabus`), made from the chapters' sources as they
    are now. A missing or garbled exercise mark stops the build, naming the chapter and the
    exercise."""
    folder, _, name = docname.rpartition("/")
    if folder != "chapters":
        return
    try:
        if COURSE_MAP in source[0]:
            source[0] = source[0].replace(COURSE_MAP, syllabus.course_map(Path(app.srcdir)))
        source[0] = syllabus.add_glance(name, source[0])
        source[0] = syllabus.mark_exercises(name, source[0])
    except ValueError as error:
        raise ExtensionError(f"tcplab.book: {docname}: {error}") from error


def setup(app: Sphinx) -> dict[str, object]:
    app.connect("config-inited", _add_assets)
    app.connect("source-read", _hide_gated_solutions)
    app.connect("source-read", _add_signposts)
    app.connect("html-page-context", _drop_duplicate_scripts, priority=900)  # after the rest
    app.connect("html-page-context", _fix_citation_roles)
    app.connect("html-page-context", _add_colab_button, priority=502)  # after the theme's 501
    app.connect("html-page-context", _offer_offline_notebook, priority=502)
    app.add_js_file(VEGA_BUNDLE)  # _static/tcplab-charts.js and tcplab.css: Jupyter Book adds them
    return {"parallel_read_safe": True, "parallel_write_safe": True}
