"""Walking a Vega-Lite spec in tests: its views, each with the data it draws."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def units(spec: dict[str, Any], data: Any = None) -> Iterator[tuple[dict[str, Any], Any]]:
    """Every view with a mark, with the data it draws (its own or the nearest parent's)."""
    data = spec.get("data", data)
    if "mark" in spec:
        yield spec, data
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for child in spec.get(key, []):
            yield from units(child, data)
    if isinstance(spec.get("spec"), dict):  # a facet
        yield from units(spec["spec"], data)


def views(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every view with a mark."""
    return (view for view, _ in units(spec))
