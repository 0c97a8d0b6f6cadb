"""A loss script: drop chosen transmissions of chosen packets, deterministically.

Each ``(flow, seq)`` pair in the script drops one more transmission of that packet: listing
``(0, 20)`` once loses packet 20's first transmission, listing it twice loses that and its
first retransmission, and the next transmission goes through. The script is a hook on a
path: :meth:`LossScript.wrap` puts it in front of any ``send(packet)`` callable, and
:meth:`LossScript.attach` in front of a sender's output, where it sees every transmission of
the sender's packets before any queue does. Nothing is random, so a trace is exactly
repeatable and the packets a test expects to lose are the packets lost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ..checks import check_int
from .tcp import TcpSender

__all__ = ["LossScript"]

Packet = tuple[int, int, int]


class LossScript:
    """Drops the transmissions listed in ``drops``, pairs ``(flow, seq)`` (see the module
    docstring). ``dropped`` lists the ``(flow, seq)`` of every transmission dropped so far,
    in order; :attr:`pending` what is still to come."""

    def __init__(self, drops: Iterable[tuple[int, int]]) -> None:
        pairs = []
        for pair in drops:
            try:
                flow, seq = pair
            except (TypeError, ValueError):
                raise ValueError(f"drop={pair!r} is not a (flow, seq) pair") from None
            pairs.append((check_int("flow", flow, 0), check_int("seq", seq, 0)))
        self.script: tuple[tuple[int, int], ...] = tuple(pairs)
        self._left: Counter[tuple[int, int]] = Counter(pairs)
        self.dropped: list[tuple[int, int]] = []

    @property
    def pending(self) -> list[tuple[int, int]]:
        """The drops not applied yet (their packets have not been sent often enough)."""
        return sorted(self._left.elements())

    def drops(self, packet: Packet) -> bool:
        """Whether this transmission of ``packet = (flow, seq, nbytes)`` is dropped (and count
        it as applied)."""
        key = (packet[0], packet[1])
        left = self._left.get(key, 0)
        if not left:
            return False
        if left == 1:
            del self._left[key]
        else:
            self._left[key] = left - 1
        self.dropped.append(key)
        return True

    def wrap(self, send: Callable[[Packet], Any]) -> Callable[[Packet], Any]:
        """``send`` with the script in front: a dropped packet never reaches it (returns
        False, as a link does for a packet it drops)."""

        def lossy(packet: Packet) -> Any:
            if self._left and self.drops(packet):
                return False
            return send(packet)

        return lossy

    def attach(self, sender: TcpSender) -> None:
        """Put the script between ``sender`` and the first hop of its path."""
        sender.output = self.wrap(sender.output)
