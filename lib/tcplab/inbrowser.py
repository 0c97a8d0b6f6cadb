"""The Python side of "Run in your browser": a live panel drawn by Pyodide in the page.

``_static/tcplab-inbrowser.js`` starts Pyodide from the book's own site, installs ``tcplab``
from the wheel the book ships (:mod:`tcplab.pyodide_site`) and calls :func:`chart_html` with
the panel's import path and the controls' values; it returns the chart as the book's HTML
(:func:`tcplab.charts.to_html`), which the page's Vega bundle draws. The panel's spec
(:mod:`tcplab.panels`) is the one the notebook's ipywidgets panel is built from.

Pyodide has no processes: its standard library lacks ``_multiprocessing``, so importing
``concurrent.futures.ProcessPoolExecutor`` fails there, and :mod:`tcplab.tasks` imports it
(the chapters' experiments, which the packet-model panels call, import ``tcplab.tasks``; a
panel's single run never starts a pool). In Pyodide this module puts a stand-in for
``concurrent.futures.process`` in ``sys.modules`` first, whose executor raises if used.
"""

from __future__ import annotations

import html
import importlib
import json
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import charts
from .panels import PanelSpec

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "load_spec",
    "chart_html",
    "without_processes",
    "reuse_ref_resolvers",
    "recorded",
    "SHIPPED",
]

#: where the book's wheel of tcplab carries the recorded results a panel reads (the Lu panel's
#: tables: tcplab.pyodide_site copies them from data/ at build time)
SHIPPED = Path(__file__).resolve().parent / "_recorded"


class _NoProcessPool:
    """``ProcessPoolExecutor`` where there are no processes (Pyodide)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no process pool in the browser: run the experiment in Jupyter")


def without_processes(modules: dict[str, Any]) -> None:
    """Give ``modules`` (``sys.modules``) a ``concurrent.futures.process`` whose
    ``ProcessPoolExecutor`` raises when made, unless a real one is there already."""
    if "concurrent.futures.process" in modules:
        return
    stand_in = types.ModuleType("concurrent.futures.process", _NoProcessPool.__doc__)
    stand_in.ProcessPoolExecutor = _NoProcessPool  # type: ignore[attr-defined]
    modules["concurrent.futures.process"] = stand_in


def reuse_ref_resolvers(jsonschema: Any, version: str) -> bool:
    """Let ``jsonschema`` (``version``: its version) hand out one ``RefResolver`` per schema.

    Altair validates each part of a chart against the Vega-Lite schema, and with a jsonschema
    older than 4.18 (the browser has 4.17: the newer one needs rpds-py, which has no pure
    wheel) it makes a new ``RefResolver.from_schema(rootschema)`` each time; every new
    resolver walks the whole Vega-Lite schema again to index its subschemas, ~65 ms each in
    Pyodide, 2.2 s of a 3.4 s chart (insensitivity's panel). One resolver per schema keeps
    that index: the same validation, done once. Returns whether it was needed."""
    resolver = getattr(jsonschema, "RefResolver", None)
    if resolver is None or getattr(resolver.from_schema, "_tcplab_reused", False):
        return False
    if tuple(int(part) for part in version.split(".")[:2]) >= (4, 18):
        return False  # altair uses the referencing library there
    made: dict[int, tuple[Any, Any]] = {}
    original = resolver.from_schema

    def from_schema(schema: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            return original(schema, *args, **kwargs)
        if id(schema) not in made:  # the schema is kept, so its id stays its own
            made[id(schema)] = (schema, original(schema))
        return made[id(schema)][1]

    from_schema._tcplab_reused = True  # type: ignore[attr-defined]
    resolver.from_schema = from_schema
    return True


if sys.platform == "emscripten":  # Pyodide
    without_processes(sys.modules)
    import importlib.metadata

    import jsonschema as _jsonschema

    reuse_ref_resolvers(_jsonschema, importlib.metadata.version("jsonschema"))


def recorded(name: str) -> pd.DataFrame:
    """The recorded result ``name`` as a panel reads it: in the reader's browser, the copy of
    data/<name>.csv shipped in tcplab's wheel (read as it is: the book ships only results
    that tests/test_data.py found fresh, and the code fingerprint cannot be rechecked there,
    since Pyodide's Python 3.12 parses the code into other syntax trees); elsewhere
    ``registry.run(name)``, which checks it."""
    if sys.platform == "emscripten":
        import pandas as pd

        shipped = SHIPPED / f"{name}.csv"
        if not shipped.exists():
            raise FileNotFoundError(f"{name}: the book did not ship this result to the browser")
        return pd.read_csv(shipped)
    from . import registry

    return registry.run(name)


def load_spec(target: str) -> PanelSpec:
    """The panel spec made by ``target``, ``"tcplab.package.module:function"``."""
    module, _, name = target.partition(":")
    if not module.startswith("tcplab.") or not name.isidentifier():
        raise ValueError(f"target={target!r}: not a tcplab panel")
    spec = getattr(importlib.import_module(module), name)()
    if not isinstance(spec, PanelSpec):
        raise TypeError(f"{target} returned {type(spec).__name__}, not a PanelSpec")
    return spec


def chart_html(target: str, values: str) -> str:
    """The panel's chart for ``values`` (JSON: control name to value) as the book's HTML; a
    ``ValueError`` (a value out of range) becomes one line, as in the notebook's panel."""
    spec = load_spec(target)
    given = json.loads(values)
    try:
        spec.check(given)
    except ValueError as error:
        raise ValueError(f"{target}: {error}") from None
    try:
        chart = spec.chart(**{**spec.values(), **given})
    except ValueError as error:
        return f'<p class="tcplab-panel-error">error: {html.escape(str(error))}</p>'
    return charts.to_html(chart.to_dict())
