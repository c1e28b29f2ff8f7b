"""Fan events out to several sinks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from toolproof.core.writing import warn
from toolproof.model.events import Event, Sink


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
