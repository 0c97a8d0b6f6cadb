"""Cheap timed calls on a simpy clock: the event loop of the packet model.

A packet hop is one scheduled call, not a simpy process: ``call_at(env, t, handler, value)``
puts a slotted event on simpy's heap whose only callback is ``handler``, which reads the
payload from ``event.value``. This keeps the cost per packet hop to a heap push and a pop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import simpy
from simpy.events import NORMAL  # simpy's priority of ordinary events (the int 1)

__all__ = ["Call", "call_at", "NORMAL"]

if TYPE_CHECKING:  # to simpy's scheduler a Call is an event; at run time it needs no base
    _Event = simpy.Event
else:
    _Event = object


class Call(_Event):
    """A triggered simpy event carrying ``value`` whose one callback is ``handler``."""

    __slots__ = ("callbacks", "_ok", "_value")

    callbacks: list[Any]

    def __init__(self, handler: Callable[[Call], Any], value: Any) -> None:
        self.callbacks = [handler]
        self._ok = True
        self._value = value

    @property
    def value(self) -> Any:
        return self._value


def call_at(
    env: simpy.Environment, time: float, handler: Callable[[Call], Any], value: Any
) -> None:
    """Run ``handler(event)`` at simulated ``time`` (not before now), with ``event.value``."""
    delay = time - env.now
    env.schedule(Call(handler, value), NORMAL, delay if delay > 0.0 else 0.0)
