"""SACK: RFC 2018 selective acknowledgements and RFC 6675 loss recovery (``variant="sack"``).

The receiver (:class:`SackReceiver`) appends up to three SACK blocks to every ACK, as a
fourth element ``((left, right), ...)`` of the ACK tuple (half-open ranges of packet numbers
held above the cumulative ACK; links read only the flow and the size). The sender
(:class:`SackSender`) keeps a scoreboard of what was SACKed and recovers by RFC 6675's
conservative rules: a hole is *lost* once three SACKed packets lie above it (IsLost); in
recovery the number of packets in the network is estimated (SetPipe) and packets are sent
while ``cwnd - pipe >= 1``, lost holes first, then new data (NextSeg). Congestion avoidance,
slow start and the timer are NewReno's (:mod:`tcplab.packet.tcp`).

Implemented, rule by rule: RFC 2018 section 4 (the first block holds the packet that
triggered the ACK; the others repeat the most recently reported blocks; at most 3, as with
timestamps); RFC 6675 section 4 (IsLost with DupThresh = 3 packets, SetPipe, NextSeg rules 1-3),
section 5 (DupAcks counts ACKs that carry new SACK information; fast retransmit at the third
or as soon as the first unacknowledged packet IsLost; RecoveryPoint = HighData; (4.2)-(4.5),
(A), (B), (C) with HighRxt) and section 5.1 (after a time-out no new recovery until
RecoveryPoint is acknowledged). Departures, on purpose:

* the loss response halves ``cwnd`` (as the other variants do, see :mod:`tcplab.packet.tcp`),
  not FlightSize; cwnd is not inflated: ``cwnd = ssthresh`` from the fast retransmit on;
* no rescue retransmission (NextSeg rule 4) and no limited transmit (rule 3 of section 5),
  as the other variants have none; the ACK that ends recovery leaves ``cwnd = ssthresh``;
* after a time-out the scoreboard is kept (RFC 2018 says to clear it, in case the receiver
  reneged; ours never does, and ns-3 and Linux keep it too): every unSACKed packet then
  outstanding counts as lost, and slow start resends those holes in order, skipping what was
  SACKed, with ``cwnd - pipe`` deciding how many packets go out, as in recovery;
* no D-SACK (RFC 2883): a duplicate arrival adds no block.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import Any

from ..checks import check_int
from .events import RecordingSender
from .sched import Call
from .tcp import Receiver, TcpSender

__all__ = [
    "Blocks",
    "DUPTHRESH",
    "RecordingSackSender",
    "SackReceiver",
    "SackSender",
    "endpoints",
]

DUPTHRESH = 3  # RFC 6675's DupThresh, in packets
MAX_BLOCKS = 3  # RFC 2018: at most 3 blocks beside a timestamp option


class Blocks:
    """A set of packet numbers as sorted, disjoint, non-adjacent ranges ``[left, right)``."""

    __slots__ = ("lefts", "rights")

    def __init__(self) -> None:
        self.lefts: list[int] = []
        self.rights: list[int] = []

    def __bool__(self) -> bool:
        return bool(self.lefts)

    def __len__(self) -> int:
        return sum(r - left for left, r in zip(self.lefts, self.rights, strict=True))

    def ranges(self) -> list[tuple[int, int]]:
        return list(zip(self.lefts, self.rights, strict=True))

    def add(self, left: int, right: int) -> int:
        """Add ``[left, right)``; return how many packets were not in the set before."""
        if right <= left:
            return 0
        lefts, rights = self.lefts, self.rights
        i = bisect_left(rights, left)  # the first range ending at or after ``left``
        j = bisect_right(lefts, right)  # ranges from i to j - 1 touch or overlap
        if i == j:
            lefts.insert(i, left)
            rights.insert(i, right)
            return right - left
        held = sum(max(0, min(rights[k], right) - max(lefts[k], left)) for k in range(i, j))
        lefts[i:j] = [min(left, lefts[i])]
        rights[i:j] = [max(right, rights[j - 1])]
        return right - left - held

    def drop_below(self, seq: int) -> None:
        """Forget every packet below ``seq``."""
        lefts, rights = self.lefts, self.rights
        i = bisect_right(rights, seq)
        if i:
            del lefts[:i], rights[:i]
        if lefts and lefts[0] < seq:
            lefts[0] = seq

    def range_of(self, seq: int) -> tuple[int, int] | None:
        i = bisect_right(self.lefts, seq) - 1
        if i >= 0 and seq < self.rights[i]:
            return self.lefts[i], self.rights[i]
        return None

    def first_gap(self, seq: int) -> int:
        """The smallest packet number ``>= seq`` not in the set."""
        i = bisect_right(self.lefts, seq) - 1
        return self.rights[i] if i >= 0 and seq < self.rights[i] else seq

    def count(self, low: int, high: int) -> int:
        """How many packets of ``[low, high)`` are in the set."""
        lefts, rights = self.lefts, self.rights
        total = 0
        for k in range(bisect_right(rights, low), len(lefts)):
            if lefts[k] >= high:
                break
            total += min(rights[k], high) - max(lefts[k], low)
        return total

    def nth_highest(self, n: int) -> int:
        """The n-th highest packet in the set (n = 1: the highest), or -1 if it has fewer."""
        lefts, rights = self.lefts, self.rights
        for k in range(len(lefts) - 1, -1, -1):
            size = rights[k] - lefts[k]
            if n <= size:
                return rights[k] - n
            n -= size
        return -1


class SackReceiver(Receiver):
    """A :class:`~tcplab.packet.tcp.Receiver` whose ACKs carry SACK blocks (RFC 2018): the
    block holding the packet that triggered the ACK first (if it arrived out of order), then
    the blocks most recently reported, at most ``max_blocks`` in all."""

    def __init__(self, *args: Any, max_blocks: int = MAX_BLOCKS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_blocks = check_int("max_blocks", max_blocks, 1, 4)
        self.held = Blocks()  # packets received above the cumulative ACK
        self._recent: list[int] = []  # one packet of each block last reported, in order
        self._trigger = -1

    def on_packet(self, event: Call) -> None:
        seq = event._value[1]
        if seq > self.next_expected:
            self.held.add(seq, seq + 1)
            self._trigger = seq
        else:
            self._trigger = -1
        super().on_packet(event)

    def blocks(self) -> tuple[tuple[int, int], ...]:
        """The SACK blocks of an ACK sent now (and remember them as the most recent)."""
        nxt, held = self.next_expected, self.held
        held.drop_below(nxt)
        if not held:
            self._recent.clear()
            return ()
        marks = [self._trigger, *self._recent] if self._trigger > nxt else self._recent
        blocks: list[tuple[int, int]] = []
        recent: list[int] = []
        for mark in marks:
            block = held.range_of(mark)
            if block is None or block in blocks:
                continue
            blocks.append(block)
            recent.append(mark)
            if len(blocks) == self.max_blocks:
                break
        self._recent = recent
        return tuple(blocks)

    def _ack(self) -> None:
        self._held = 0
        self._acks_sent += 1
        blocks = self.blocks() if self.held.lefts else ()
        send: Callable[[Any], object] = self.ack_path  # an ACK with its blocks, 4 fields
        send((self.flow, self.next_expected, self.ack_bytes, blocks))


class SackSender(TcpSender):
    """NewReno with a SACK scoreboard and RFC 6675 loss recovery (see the module docstring).

    ``scoreboard`` holds the SACKed packets above ``snd_una``; ``high_rxt`` is the highest
    packet retransmitted in this recovery (RFC 6675's HighRxt); ``maxseq - 1`` is HighData.
    """

    sack = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._newreno, self._tahoe = True, False  # the recover check of RFC 6675 5.1
        self.scoreboard = Blocks()
        self.high_rxt = -1
        self._lost_below = 0  # after a time-out: every unSACKed packet below it is lost

    # -- RFC 6675 section 4 -----------------------------------------------------------------
    def lost_limit(self) -> int:
        """Unsacked packets below this number are lost: DupThresh SACKed packets lie above
        them (IsLost), or they were outstanding at a time-out."""
        return max(self.scoreboard.nth_highest(DUPTHRESH), self._lost_below)

    def pipe(self) -> int:
        """SetPipe: each unSACKed outstanding packet counts once if it is not lost and once
        more if it was retransmitted."""
        una, top, board = self.snd_una, self.maxseq, self.scoreboard
        limit = min(max(self.lost_limit(), una), top)
        rxt = min(max(self.high_rxt + 1, una), top)
        return (top - limit - board.count(limit, top)) + (rxt - una - board.count(una, rxt))

    def next_seg(self) -> int:
        """NextSeg: the first lost hole above HighRxt (rule 1), else new data (rule 2), else
        the first unSACKed packet above HighRxt below the highest SACKed one (rule 3); -1 if
        none."""
        board = self.scoreboard
        seq = board.first_gap(max(self.high_rxt + 1, self.snd_una))
        if seq < self.lost_limit():
            return seq
        if self.maxseq < self._end and self.maxseq < self.snd_una + self._maxw:
            return self.maxseq
        if seq < board.nth_highest(1):
            return seq
        return -1

    def _send_window(self) -> None:
        if self.stopped:
            return
        if not self.in_recovery and self.snd_una >= self._lost_below:
            super()._send_window()  # no hole known to be lost: the plain window rule
            return
        pipe = self.pipe()
        while self.cwnd - pipe >= 1.0:  # RFC 6675 (C)
            seq = self.next_seg()
            if seq < 0:
                break
            if seq < self.maxseq:
                self.high_rxt = seq  # (C.2)
            self._transmit(seq)
            if self.snd_nxt < self.maxseq:
                self.snd_nxt = self.maxseq  # (C.3)
            pipe += 1  # (C.4)

    # -- loss responses -----------------------------------------------------------------------
    def _fast_retransmit(self) -> None:
        self.fast_retransmits += 1
        self._cut()  # ssthresh from the window; RecoveryPoint = HighData (4.1, 4.2)
        self.cwnd = self.ssthresh
        self.in_recovery = True
        self.high_rxt = self.snd_una  # (4.3)
        self._transmit(self.snd_una)
        if self.config.restart_rto_at_fast_retransmit:
            self._arm()
        self._note_cwnd()
        self._send_window()  # (4.4), (4.5)

    def _timeout(self) -> None:
        self._lost_below = self.maxseq
        self.high_rxt = self.snd_una - 1
        super()._timeout()  # cwnd = 1, back-off; the pipe rule resends the holes
        self.snd_nxt = self.maxseq

    # -- ACK processing ---------------------------------------------------------------------
    def _record(self, blocks: Any) -> int:
        una, board, new = self.snd_una, self.scoreboard, 0
        for left, right in blocks:
            if right > una:
                new += board.add(left if left > una else una, right)
        return new

    def on_ack(self, event: Call) -> None:
        if self.stopped:
            return
        value = event._value
        ack = value[1]
        blocks = value[3] if len(value) > 3 else ()
        if ack > self.snd_una:
            self.snd_una = ack
            if self.snd_nxt < ack:
                self.snd_nxt = ack
            if 0 <= self._timing_seq < ack:
                self._rtt_sample(self.env._now - self._timing_sent)
                self._timing_seq = -1
            if self.scoreboard.lefts:
                self.scoreboard.drop_below(ack)
            if blocks:
                self._record(blocks)
            if self.in_recovery:
                if ack > self.recover:  # (A): RecoveryPoint acknowledged
                    self.in_recovery = False
                    self.cwnd = self.ssthresh
            elif self.cwnd < self.ssthresh:
                self.cwnd += 1.0
            else:
                self.cwnd += self._a / self.cwnd
            if self.cwnd > self._maxw:
                self.cwnd = float(self._maxw)
            self.dupacks = 0
            self._note_cwnd()
            if ack >= self.maxseq:
                self._deadline = None
                if ack >= self._end:
                    self._finish()
            else:
                self._arm()
            self._send_window()
        elif ack == self.snd_una and self.snd_una < self.maxseq and blocks and self._record(blocks):
            self.dupacks += 1  # a duplicate ACK in RFC 6675's sense: new SACK information
            if self.in_recovery:
                self._send_window()  # (B), (C)
            elif ack > self.recover and (
                self.dupacks >= DUPTHRESH or self.snd_una < self.lost_limit()
            ):
                self._fast_retransmit()  # section 5, steps (1), (2), (4)
            elif self.snd_una < self._lost_below:
                self._send_window()  # after a time-out: the pipe decides


class RecordingSackSender(RecordingSender, SackSender):
    """A :class:`SackSender` that logs every event (see :mod:`tcplab.packet.events`)."""


def endpoints(variant: str) -> tuple[type[TcpSender], type[Receiver]]:
    """The sender and receiver classes of a TCP variant."""
    if variant == "sack":
        return SackSender, SackReceiver
    return TcpSender, Receiver
