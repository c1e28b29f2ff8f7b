"""Passing messages between the transport, the wire tap and the SDK without a task switch per message.

anyio's stream `send` and `receive` each yield to the event loop, so a flood of small messages cost one
loop turn per message per hop. A producer puts into a buffered stream at once while it has room; a
consumer takes everything already queued in one turn.
"""

from __future__ import annotations

from typing import Any, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectSendStream

BUFFER = 256
"""Messages a stream holds before its producer waits: bounded, so a fast server cannot outrun memory."""

T = TypeVar("T")


async def put(sink: MemoryObjectSendStream[T], item: T) -> None:
    """Send `item`, without yielding while `sink` has room."""
    try:
        sink.send_nowait(item)
    except anyio.WouldBlock:
        await sink.send(item)


def queued(first: T, source: Any) -> list[T]:
    """`first` and whatever `source` (a memory stream, or any stream) already holds behind it."""
    items = [first]
    take = getattr(source, "receive_nowait", None)
    while take is not None:
        try:
            items.append(take())
        except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
            break
    return items
