"""Read an input file safely: regular files only (a FIFO or a device never blocks the run), size-bounded."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The largest input file read: far above any suite, trace or script, far below a memory problem."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class UnreadableFile(Exception):
    """A file that is missing, unreadable, not a regular file or too large; `reason` says which, briefly
    ("a directory", "Permission denied"), the message in full."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def read_regular_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path`; raises UnreadableFile. Opening never waits for a FIFO's writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise UnreadableFile(f"cannot read file: {error.strerror}", str(error.strerror)) from None
    try:
        mode = os.fstat(fd).st_mode
        for test, kind in _KINDS:
            if test(mode):
                raise UnreadableFile(f"cannot read file: it is {kind}, not a regular file", kind)
        chunks, size = [], 0
        while size <= limit and (chunk := os.read(fd, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise UnreadableFile(f"cannot read file: {error.strerror}", str(error.strerror)) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        too_large = f"larger than the {limit // (1024 * 1024)} MiB limit"
        raise UnreadableFile(f"file is {too_large}", too_large)
    return data
