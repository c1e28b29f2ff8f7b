"""A transient one-line status on a terminal, such as `[12/50] case name`."""

from __future__ import annotations

import os
from typing import TextIO

from rich.cells import cell_len, set_cell_size

_ERASE_LINE = "\r\x1b[2K"


class StatusLine:
    """Redrawn in place on a terminal stream and erased before anything else is printed."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._shown = False

    def show(self, text: str) -> None:
        """Replace the status with `text`, cut to the terminal width so that it never wraps."""
        width = _columns(self._stream) - 1
        if cell_len(text) > width:
            text = set_cell_size(text, width)
        self._write(_ERASE_LINE + text)
        self._shown = True

    def clear(self) -> None:
        """Erase the status, if one is shown."""
        if self._shown:
            self._write(_ERASE_LINE)
            self._shown = False

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            pass


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80
