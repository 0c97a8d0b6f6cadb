"""What a live panel is, apart from the widgets that show it: its controls and its drawing.

A :class:`PanelSpec` names each control (a slider: its range, step and starting value; a
number box; a drop-down of options; a text field) and holds ``draw``, which returns the
altair chart for the controls' values. The notebook's ipywidgets panel
(:func:`tcplab.widgets.spec_panel`) and the page's "Run in your browser" panel (Pyodide,
:mod:`tcplab.inbrowser`) are both built from the same spec, so they run the same model and
chart code. This module imports neither ipywidgets nor a renderer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Control", "PanelSpec"]

#: ``float`` and ``int`` sliders step linearly; ``log2`` steps the exponent of 2**x; ``number``
#: is a box for an integer in [minimum, maximum]; ``choice`` one of ``options``; ``text`` a
#: line of text (the draw function parses it)
Kind = Literal["float", "int", "log2", "number", "choice", "text"]
SLIDERS = ("float", "int", "log2")


@dataclass(frozen=True)
class Control:
    """One control. A slider or number box: ``minimum``, ``maximum`` and ``step`` (exponents
    for ``log2``); a drop-down (:meth:`choice`) or text field (:meth:`text`): ``value`` is a
    string, one of ``options`` for a drop-down."""

    name: str
    label: str
    minimum: float
    maximum: float
    step: float
    value: float | str
    kind: Kind = "float"
    readout: str = ""  # the widget's number format (ipywidgets' readout_format), if not its own
    options: tuple[str, ...] = ()
    #: (control, value): this control acts only while that drop-down shows that value
    when: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.kind == "choice":
            if self.value not in self.options:
                raise ValueError(f"{self.name}: {self.value!r} is not one of {self.options}")
        elif self.kind == "text":
            if not isinstance(self.value, str):
                raise ValueError(f"{self.name}: a text field's value must be text")
        elif not self.minimum < self.maximum or self.step <= 0:
            raise ValueError(
                f"{self.name}: minimum={self.minimum}, maximum={self.maximum}, "
                f"step={self.step} is not a slider"
            )
        elif isinstance(self.value, str):
            raise ValueError(f"{self.name}: a {self.kind} control's value must be a number")

    @classmethod
    def choice(cls, name: str, label: str, options: tuple[str, ...], value: str) -> Control:
        """A drop-down of ``options`` starting at ``value``."""
        return cls(name, label, 0, 0, 0, value, kind="choice", options=tuple(options))

    @classmethod
    def text(cls, name: str, label: str, value: str) -> Control:
        """A text field; it acts when the reader presses Enter or leaves it."""
        return cls(name, label, 0, 0, 0, value, kind="text")

    def to_json(self) -> dict[str, Any]:
        """The control as the page's runtime reads it (``tcplab-inbrowser.js``)."""
        return {
            "name": self.name,
            "label": self.label,
            "min": self.minimum,
            "max": self.maximum,
            "step": self.step,
            "value": self.value,
            "kind": self.kind,
            "readout": self.readout,
            "options": list(self.options),
            "when": list(self.when) if self.when else None,
        }


@dataclass(frozen=True)
class PanelSpec:
    """Controls above a chart; ``draw(**values)`` returns the chart for their values."""

    controls: tuple[Control, ...]
    draw: Callable[..., Any]
    what: str
    #: False: the notebook's sliders rerun when released, not while dragged (a slow model)
    continuous: bool = True

    def __post_init__(self) -> None:
        names = [control.name for control in self.controls]
        if len(set(names)) != len(names):
            raise ValueError(f"controls {names}: a name is repeated")
        menus = {c.name: c.options for c in self.controls if c.kind == "choice"}
        for control in self.controls:
            if control.when and control.when[1] not in menus.get(control.when[0], ()):
                raise ValueError(f"{control.name}: when={control.when} names no drop-down value")

    def check(self, values: dict[str, Any]) -> None:
        """Raise ``ValueError`` if ``values`` names no control or a drop-down's value is not
        one of its options (what a page could send; the draw function checks the rest)."""
        known = {control.name: control for control in self.controls}
        unknown = set(values) - set(known)
        if unknown:
            raise ValueError(f"no controls {sorted(unknown)}")
        for name, value in values.items():
            control = known[name]
            if control.kind == "choice" and value not in control.options:
                raise ValueError(f"{name}={value!r} is not one of {list(control.options)}")

    def chart(self, **values: Any) -> Any:
        """``draw(**values)``, and a chart the draw left without a description gets one: what
        the panel shows and the values it was drawn for, so that a screen reader names the
        live chart (the static charts' names come from their figure captions; a live chart
        has no caption) and the name changes when a control does."""
        chart = self.draw(**values)
        described = getattr(chart, "description", None)
        if not (isinstance(described, str) and described.strip()):  # altair: Undefined
            drawn = ", ".join(f"{c.label} = {values.get(c.name, c.value)}" for c in self.controls)
            chart = chart.properties(description=f"Live chart. {self.what} Drawn for {drawn}.")
        return chart

    def values(self) -> dict[str, float | str]:
        """The controls' starting values, by name."""
        return {control.name: control.value for control in self.controls}

    def to_json(self) -> list[dict[str, Any]]:
        """The controls, for the page's runtime."""
        return [control.to_json() for control in self.controls]
