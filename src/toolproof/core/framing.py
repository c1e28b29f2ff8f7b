"""Newline framing of a byte stream, as MCP's stdio transport uses it. No dependencies, so light commands
(the intercept proxy) can use it without loading the MCP SDK."""

from __future__ import annotations


class LineBuffer:
    """Splits a byte stream into lines (without their newline), scanning each byte once.

    With a `limit`, a line longer than `limit` bytes is dropped whole, so memory stays bounded.
    """

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit
        self._data = bytearray()
        self._scanned = 0
        self._skipping = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """Add a chunk; return the lines it completed."""
        data = self._data
        data += chunk
        lines = []
        start = 0
        while (end := data.find(b"\n", max(start, self._scanned))) != -1:
            if not self._skipping and (self.limit is None or end - start <= self.limit):
                lines.append(bytes(data[start:end]))
            self._skipping = False
            start = end + 1
        del data[:start]
        self._scanned = len(data)
        if self.limit is not None and len(data) > self.limit:
            self._skipping = True
            data.clear()
            self._scanned = 0
        return lines

    @property
    def pending(self) -> int:
        """Bytes of the line not yet completed."""
        return len(self._data)

    def rest(self) -> bytes:
        """The last line when the stream ended without a newline (empty if none, or if it was too long)."""
        rest = b"" if self._skipping else bytes(self._data)
        self._data.clear()
        self._scanned = 0
        return rest
