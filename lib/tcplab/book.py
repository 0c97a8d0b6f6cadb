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
from collections.abc import Callable
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError

from tcplab import course, offline, syllabus
from tcplab.launch import WHEELHOUSE, colab_url, notebook_chapters
from tcplab.plain_myst import Rendering
from tcplab.pyodide_site import download_bytes, write_runtime, write_service_worker

__all__ = [
    "setup",
    "VEGA_BUNDLE",
    "write_vega_bundle",
    "VegaLiteMimeRenderer",
    "student_config",
    "site_config",
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
    _DOWNLOAD[srcdir] = download_bytes(runtime)


#: what a panel's first start downloads (bytes), by source folder (:func:`_add_assets`)
_DOWNLOAD: dict[Path, int] = {}


def _rendering(app: Sphinx) -> Callable[[Path], Rendering]:
    """What the build knows of each chapter's text for its notebook: the values its run glued
    (myst-nb writes them beside the executed notebook), the numbers of figures and exercises
    and the titles of sections (:class:`tcplab.plain_myst.Rendering`)."""
    env = app.env
    references: dict[str, str] = {}
    for label, (docname, target, title) in env.get_domain("std").labels.items():  # type: ignore[attr-defined]
        number = env.toc_fignumbers.get(docname, {}).get("figure", {}).get(target)
        if number:
            references[label] = "Figure " + ".".join(str(n) for n in number)
        elif title:
            references[label] = title
    for docname, title in env.titles.items():
        references[f"doc:{docname.rsplit('/', 1)[-1]}"] = title.astext()
    for chapter in notebook_chapters(Path(app.srcdir)):
        numbers = syllabus.exercise_numbers(chapter)
        references.update({label: f"Exercise {n}" for label, n in numbers.items()})
    executed = Path(app.outdir).parent / "jupyter_execute"

    def rendering(chapter: Path) -> Rendering:
        return Rendering(glue=offline.glued_values(executed, chapter), references=references)

    return rendering


def _write_offline(app: Sphinx, exception: Exception | None) -> None:
    """Put into the built book (:mod:`tcplab.offline`) the chapters as notebooks that install
    the book, their text as the pages show it (the numbers the run glued, figures and
    exercises numbered), the wheel they install, both in a zip, and the page that lists them
    with the students' edition and the PDF (``make site`` adds those two and rewrites the
    page). The students' edition (``hide_solutions``) gets notebooks without solutions. After
    the build, once every chapter ran; a few seconds."""
    if exception is not None or app.builder.name != "html":
        return
    config = app.config
    srcdir, outdir = Path(app.srcdir), Path(app.outdir)
    repository = (config.html_theme_options or {}).get("repository_url", "")
    student = bool(getattr(config, "hide_solutions", False))
    site = getattr(config, "html_baseurl", "") or ""
    wheels = config.tcplab_site_root + WHEELHOUSE
    folder = outdir / offline.NOTEBOOKS
    if folder.exists():
        shutil.rmtree(folder)
    offline.write_notebooks(
        srcdir, folder, repository, site=site, solutions=not student,
        rendering=_rendering(app), wheels=wheels,
    )  # fmt: skip
    title = config.html_title or config.project
    offline.write_downloads_page(outdir, title, student=student, site=site)


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


def _state_download_size(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """A live panel's note says how much its first start downloads: the bytes of the runtime
    this build ships (:func:`tcplab.pyodide_site.download_bytes`), not a number typed once."""
    from tcplab.widgets import DOWNLOAD_SIZE

    body = context.get("body")
    size = _DOWNLOAD.get(Path(app.srcdir))
    if isinstance(body, str) and size and DOWNLOAD_SIZE in body:
        context["body"] = body.replace(DOWNLOAD_SIZE, f"{size / 1e6:.0f} MB")


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


#: where the students' edition sits in the published site (``make site``)
STUDENT_FOLDER = "student/"


def site_config(config: dict, student: bool = False, address: str = "") -> dict:
    """The configuration of an edition of the published site (``make site``, from the parsed
    _config.yml ``config``): the book (or, with ``student``, the students' edition, which the
    site holds in :data:`STUDENT_FOLDER`), whose links to the students' edition, the PDF and
    the labs land (``tcplab_site``), and whose address is ``address`` (the site's root; empty:
    ``html.baseurl`` as _config.yml has it), where its notebooks fetch the book."""
    out = student_config(config) if student else dict(config)
    base = address or (config.get("html") or {}).get("baseurl", "") or ""
    if base and not base.endswith("/"):
        base += "/"
    out["html"] = {
        **(out.get("html") or {}),
        "baseurl": base + STUDENT_FOLDER if base and student else base,
    }
    sphinx = dict(out.get("sphinx") or {})
    sphinx["config"] = {
        **(sphinx.get("config") or {}),
        "tcplab_site": True,
        "tcplab_site_root": "../" if student else "",
    }
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


#: where the instructors' page shows the course map (:func:`tcplab.course.course_map`)
COURSE_MAP = "<!-- tcplab: course map -->"
#: where a page lists what the published site carries for a course (:func:`course.site_links`)
SITE_LINKS = "<!-- tcplab: site links -->"
#: the instructors' page's course plan, labs and rubrics (:mod:`tcplab.course`)
COURSE_PLAN = "<!-- tcplab: course plan -->"
LABS_TABLE = "<!-- tcplab: labs -->"
RUBRICS = "<!-- tcplab: rubrics -->"
#: a chapter's exercises section, where the links for a course go under its heading
_EXERCISES = re.compile(r"^## Exercises[ \t]*\n", re.MULTILINE)


def _site_links(app: Sphinx) -> course.SiteLinks:
    """Where the published site's parts are from a chapter page of this edition."""
    config = app.config
    student = bool(getattr(config, "hide_solutions", False))
    return course.SiteLinks(config.tcplab_site, "../" + config.tcplab_site_root, student)


def _course_parts(app: Sphinx) -> dict[str, Callable[[], str]]:
    """Each marker of the course kit and what it becomes (made when a page asks for it)."""
    book = Path(app.srcdir)
    links = _site_links(app)
    labs = links.labs if links.site else ""

    def rubrics() -> str:
        return "\n\n".join(
            f"### The `{lab}` lab\n\n{course.rubric_html(book, lab)}" for lab in course.LAB_CHAPTERS
        )

    return {
        COURSE_MAP: lambda: course.course_map(book),
        SITE_LINKS: lambda: course.site_links(links),
        COURSE_PLAN: lambda: course.plan_html(book, labs),
        LABS_TABLE: lambda: course.labs_html(book, labs, links.lite if links.site else ""),
        RUBRICS: rubrics,
    }


def _add_signposts(app: Sphinx, docname: str, source: list[str]) -> None:
    """Each chapter's "At a glance" line, its exercises' marks made readable and, under its
    Exercises heading, where the site has it for a course (the students' edition, its lab);
    the instructors' course map, plan, labs and rubrics (:mod:`tcplab.syllabus`,
    :mod:`tcplab.course`), made from the chapters' and labs' sources as they are now. A
    missing or garbled exercise mark stops the build, naming the chapter and the exercise."""
    folder, _, name = docname.rpartition("/")
    if folder != "chapters":
        return
    try:
        for marker, made in _course_parts(app).items():
            if marker in source[0]:
                source[0] = source[0].replace(marker, made())
        source[0] = syllabus.add_glance(name, source[0])
        source[0] = syllabus.mark_exercises(name, source[0])
        if name in syllabus.LEVELS:  # after the glance: its reading time is the chapter's own
            line = course.exercise_links(name, _site_links(app))
            source[0] = _EXERCISES.sub(lambda m: f"{m.group(0)}\n{line}\n", source[0], count=1)
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
    app.connect("html-page-context", _state_download_size)
    app.connect("build-finished", _write_offline)
    # where this edition sits in the published site (make site): "" for the book, "../" for
    # the students' edition in student/; and whether it is that site (its links to the
    # students' edition, the PDF and the labs land) or a book built alone
    app.add_config_value("tcplab_site", False, "html", bool)
    app.add_config_value("tcplab_site_root", "", "html", str)
    app.add_js_file(VEGA_BUNDLE)  # _static/tcplab-charts.js and tcplab.css: Jupyter Book adds them
    return {"parallel_read_safe": True, "parallel_write_safe": True}
