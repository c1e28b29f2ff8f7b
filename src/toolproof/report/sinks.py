"""Fan events out to several sinks, and write report files without ever failing the run."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TextIO

from toolproof.model.events import Event, Sink
from toolproof.report.sanitize import clean


def warn(message: str, stderr: TextIO | None = None) -> None:
    """Print `toolproof: <message>` on stderr; a stderr that cannot be written is ignored."""
    stream = sys.stderr if stderr is None else stderr
    try:
        stream.write(f"toolproof: {clean(message)}\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def silence(stream: IO[str]) -> None:
    """Point `stream`'s descriptor at /dev/null once its reader has gone (a closed pipe), so that what is
    still buffered for it, and anything written later, is dropped quietly instead of failing again at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` as UTF-8 to a temporary file beside `path`, then rename it over `path`, creating parent
    directories: a reader never sees half a file. Raises OSError."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_best_effort(
    path: str | os.PathLike[str], text: str, *, atomic: bool = False, stderr: TextIO | None = None
) -> bool:
    """Write `text` as UTF-8 to `path` (with `atomic`, as `write_atomic` does), creating parent directories;
    on failure warn once and return False."""
    target = Path(path)
    try:
        if atomic:
            write_atomic(target, text)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except OSError as exc:
        warn(f"could not write {target}: {exc.strerror or exc}", stderr)
        return False
    return True


class Broadcast:
    """A sink that forwards each event to every sink in turn.

    A sink that raises is reported once on stderr and gets no further events; the others carry on.
    """

    def __init__(self, sinks: Iterable[Sink], *, stderr: TextIO | None = None) -> None:
        self._sinks = list(sinks)
        self._stderr = stderr

    def handle(self, event: Event) -> None:
        for sink in list(self._sinks):
            try:
                sink.handle(event)
            except Exception as exc:
                self._sinks = [other for other in self._sinks if other is not sink]
                problem = f"{type(exc).__name__}: {exc}"
                warn(
                    f"the {type(sink).__name__} report failed and is off for this run: {problem}",
                    self._stderr,
                )
