"""This process's own stdin and stdout as async byte streams, without threads.

A read waits until the descriptor is readable and then takes what is there, so it never blocks the event
loop (and can be cancelled, unlike a read in a worker thread). Descriptors the event loop cannot watch
(regular files, /dev/null) never block and are read or written directly. For writing, a pipe or socket is
made non-blocking until `restore()`, so a slow reader holds up only the writer that waits for it.
"""

from __future__ import annotations

import os
import stat

import anyio
import anyio.lowlevel

READ_CHUNK = 64 * 1024


def _watchable(fd: int) -> bool:
    """Whether the event loop can wait on `fd`: a pipe, a socket or a terminal."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


def _pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class FdReader:
    """Reads a file descriptor chunk by chunk; `b""` means the other side closed it (or it failed)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._watchable = _watchable(fd)

    async def receive(self) -> bytes:
        while True:
            if self._watchable:
                await anyio.wait_readable(self.fd)
            else:
                await anyio.lowlevel.checkpoint()
            try:
                return os.read(self.fd, READ_CHUNK)
            except BlockingIOError:
                continue  # someone else made it non-blocking and took the data: wait again
            except OSError:
                return b""


class FdWriter:
    """Writes whole chunks to a file descriptor; raises OSError (BrokenPipeError) once the reader is gone."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._was_blocking: bool | None = None
        if _pipe(fd):
            self._was_blocking = os.get_blocking(fd)
            os.set_blocking(fd, False)

    async def send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self.fd)
                continue
            view = view[written:]
        await anyio.lowlevel.checkpoint()

    def restore(self) -> None:
        """Give the descriptor back the blocking mode it had."""
        if self._was_blocking is not None:
            os.set_blocking(self.fd, self._was_blocking)
