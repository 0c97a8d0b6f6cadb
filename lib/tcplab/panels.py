"""What a live panel is, apart from the widgets that show it: its controls and its drawing.

A :class:`PanelSpec` names each control (a slider: its range, step and starting value) and
holds ``draw``, which returns the altair chart for the controls' values. The notebook's
ipywidgets panel (:func:`tcplab.widgets.spec_panel`) and the page's "Run in your browser"
panel (Pyodide, :mod:`tcplab.inbrowser`) are both built from the same spec, so they run the
same model and chart code. This module imports neither ipywidgets nor a renderer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Control", "PanelSpec"]

#: ``float`` and ``int`` sliders step linearly; ``log2`` steps the exponent of 2**x
Kind = Literal["float", "int", "log2"]


@dataclass(frozen=True)
class Control:
    """One slider: ``minimum``, ``maximum`` and ``step`` are exponents for ``log2``."""

    name: str
    label: str
    minimum: float
    maximum: float
    step: float
    value: float
    kind: Kind = "float"
    readout: str = ""  # the widget's number format (ipywidgets' readout_format), if not its own

    def __post_init__(self) -> None:
        if not self.minimum < self.maximum or self.step <= 0:
            raise ValueError(
                f"{self.name}: minimum={self.minimum}, maximum={self.maximum}, "
                f"step={self.step} is not a slider"
            )

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
        }


@dataclass(frozen=True)
class PanelSpec:
    """Controls above a chart; ``draw(**values)`` returns the chart for their values."""

    controls: tuple[Control, ...]
    draw: Callable[..., Any]
    what: str

    def values(self) -> dict[str, float]:
        """The controls' starting values, by name."""
        return {control.name: control.value for control in self.controls}

    def to_json(self) -> list[dict[str, Any]]:
        """The controls, for the page's runtime."""
        return [control.to_json() for control in self.controls]
