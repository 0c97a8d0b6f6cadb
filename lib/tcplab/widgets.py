"""Live panels: ipywidgets that rerun a model when a Jupyter kernel is attached.

A panel is a widget box wrapped so that, on a static page of the book (no kernel), it shows a
short note saying how to get the live version instead of dead sliders. Charts in a panel are
rendered to SVG in the kernel, so they work in any Jupyter front end with no JavaScript.

The chart goes into an ``HTML`` widget's value, never through ``display`` inside an ``Output``
widget. A notebook runner (nbclient, used by papermill and the book build) mimics a front end
for ``Output`` widgets: it sends each captured output back to the kernel on the shell channel,
through jupyter_client's synchronous shadow of the asyncio socket, from its IOPub task, while its
other task awaits the cell's reply on that same socket. When the reply arrives just before such
a send, the send swallows the socket's edge-triggered wake-up and the runner waits for the
reply forever (``tools/zmq_shadow_send_race.py`` reproduces it). Setting a widget's value only
sends from the kernel, so the runner never writes to the shell channel during a cell.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

import ipywidgets as w

from .panels import Control, PanelSpec

__all__ = ["LivePanel", "live_panel", "spec_panel"]

_NOTE = (
    '<div class="tcplab-live-note"><strong>Live panel.</strong> {what} It reruns the model '
    "in this page (the button below starts Python in your browser) or in Jupyter (the launch "
    "button, rocket icon, at the top of the page, or a clone of the book opened in JupyterLab). "
    "The static sliders above need neither.</div>"
)

#: the size of the runtime's download, as a panel's note says it; the book's build puts the
#: number of bytes it ships in its place (tcplab.book, tcplab.pyodide_site.download_bytes)
DOWNLOAD_SIZE = '<span class="tcplab-download-size">a download of some tens of MB</span>'

# The page's runtime (_static/tcplab-inbrowser.js) turns this into the panel, on a click.
_BROWSER = (
    '<div class="tcplab-inbrowser" data-panel="{target}" data-controls="{controls}">'
    '<button type="button" class="tcplab-inbrowser-run">Run in your browser</button> '
    '<span class="tcplab-inbrowser-status" role="status">Python runs in this page (Pyodide, '
    f"{DOWNLOAD_SIZE}, downloaded once from this site).</span></div>"
)


class LivePanel:
    """A widget that shows itself in Jupyter and falls back to a note on a static page."""

    def __init__(self, widget: w.Widget, what: str, browser: str = "") -> None:
        self.widget = widget
        self.what = what
        self.browser = browser  # the page's runtime markup, if the panel can run in a browser

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        return {**bundle, "text/html": _NOTE.format(what=self.what) + self.browser}


def live_panel(controls: list[w.Widget], redraw: Callable[[], Any], what: str) -> LivePanel:
    """Controls above a chart: ``redraw()`` returns the altair chart for the controls' values;
    it is drawn now and again whenever a control changes. A ``ValueError`` (a value out of
    range) shows as one line in place of the chart and leaves the panel alive."""
    from . import charts

    view = w.HTML()

    def update(_: Any = None) -> None:
        try:
            view.value = charts.to_svg(redraw())
        except ValueError as error:
            view.value = f'<p class="tcplab-panel-error">error: {html.escape(str(error))}</p>'

    for control in controls:
        control.observe(update, names="value")
    update()
    return LivePanel(w.VBox([w.HBox(controls), view]), what)


def _widget(control: Control, continuous: bool = True) -> w.Widget:
    style = {"description_width": "initial"}
    common: dict[str, Any] = {"description": control.label, "style": style}
    if control.kind == "choice":
        return w.Dropdown(options=list(control.options), value=control.value, **common)
    if control.kind == "text":
        return w.Text(str(control.value), continuous_update=False, **common)
    if control.kind == "number":
        return w.BoundedIntText(
            int(control.value), min=int(control.minimum), max=int(control.maximum), **common
        )
    common["continuous_update"] = continuous
    if control.kind == "int":
        return w.IntSlider(
            int(control.value),
            min=int(control.minimum),
            max=int(control.maximum),
            step=int(control.step),
            **common,
        )
    if control.kind == "log2":
        return w.FloatLogSlider(
            control.value,
            base=2,
            min=control.minimum,
            max=control.maximum,
            step=control.step,
            **common,
        )
    if control.readout:
        common["readout_format"] = control.readout
    return w.FloatSlider(
        control.value, min=control.minimum, max=control.maximum, step=control.step, **common
    )


def _link_when(spec: PanelSpec, widgets: list[w.Widget]) -> None:
    """Disable each control with ``when`` while its drop-down shows another value."""
    by_name = dict(zip((c.name for c in spec.controls), widgets, strict=True))
    for control, widget in zip(spec.controls, widgets, strict=True):
        if control.when:
            menu, wanted = by_name[control.when[0]], control.when[1]

            def follow(_: Any = None, widget: w.Widget = widget, menu: w.Widget = menu,
                       wanted: str = wanted) -> None:  # fmt: skip
                widget.disabled = menu.value != wanted

            menu.observe(follow, names="value")
            follow()


def spec_panel(spec: PanelSpec, browser: Callable[[], PanelSpec] | None = None) -> LivePanel:
    """The ipywidgets panel of ``spec`` (:mod:`tcplab.panels`). With ``browser``, a module-level
    function that returns the spec with its defaults, the static page offers to run the same
    panel in the reader's browser (:mod:`tcplab.inbrowser` imports it by its dotted path)."""
    sliders = [_widget(control, spec.continuous) for control in spec.controls]
    _link_when(spec, sliders)

    def redraw() -> Any:
        return spec.chart(**{c.name: s.value for c, s in zip(spec.controls, sliders, strict=True)})

    panel = live_panel(sliders, redraw, spec.what)
    if browser is not None:
        target = f"{browser.__module__}:{browser.__qualname__}"
        controls = html.escape(json.dumps(spec.to_json()), quote=True)
        panel.browser = _BROWSER.format(target=html.escape(target), controls=controls)
    return panel
