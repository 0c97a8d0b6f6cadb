"""Why papermill could wait forever on a live panel: a deterministic reproduction.

nbclient (behind papermill and the book build) waits for a cell's reply by awaiting a poll on
the shell socket, a ``zmq.asyncio`` socket whose file descriptor is edge-triggered: it signals
once when messages arrive, and any operation on the socket that reads the socket's command
queue consumes that signal. Meanwhile nbclient's IOPub task mimics a front end for ipywidgets'
``Output`` widget: each output captured in one is sent back to the kernel as a ``comm_msg`` on
the *shell* socket. jupyter_client's ``Session.send`` sends it through
``zmq.Socket.shadow(socket.underlying)``, a synchronous view of the same socket, bypassing
pyzmq's asyncio bookkeeping. If the reply has arrived but the event loop has not yet run when
that send happens, the send consumes the wake-up and the awaiting poll never returns (with a
cell timeout it returns at the timeout, reply in hand, so the cell just looks slow).

This script builds that sequence with a DEALER (the runner) and a ROUTER (the kernel) on
localhost. It prints how often the awaiting poll wakes up when the extra message goes through
the synchronous shadow (never) and through the asyncio socket itself (always).

    .venv/bin/python tools/zmq_shadow_send_race.py [trials]
"""

from __future__ import annotations

import asyncio
import sys
import time

import zmq
import zmq.asyncio


async def trial(shadow_send: bool) -> bool:
    """One request/reply with a comm message sent while the reply waits; did the poll wake?"""
    context = zmq.asyncio.Context()
    kernel = zmq.Context.instance().socket(zmq.ROUTER)
    port = kernel.bind_to_random_port("tcp://127.0.0.1")
    runner = context.socket(zmq.DEALER)
    runner.connect(f"tcp://127.0.0.1:{port}")
    await runner.send(b"execute_request")
    identity, _ = kernel.recv_multipart()
    waiting = asyncio.ensure_future(runner.poll(timeout=None))  # the reply task
    await asyncio.sleep(0.05)  # it is now parked on the socket's file descriptor
    kernel.send_multipart([identity, b"execute_reply"])
    time.sleep(0.05)  # the reply has arrived; the event loop has not run since
    if shadow_send:  # what Session.send does with an asyncio socket
        zmq.Socket.shadow(runner.underlying).send(b"comm_msg")
    else:
        await runner.send(b"comm_msg")
    try:
        await asyncio.wait_for(waiting, 2.0)
        woke = True
    except TimeoutError:
        woke = False
    runner.close(0)
    kernel.close(0)
    context.term()
    return woke


async def main(trials: int) -> None:
    for shadow, label in ((True, "synchronous shadow send"), (False, "asyncio send")):
        woke = [await trial(shadow) for _ in range(trials)]
        print(f"{label:>24}: the waiting poll woke up in {sum(woke)} of {trials} trials")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
