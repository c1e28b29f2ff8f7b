"""A trace file that cannot be read: broken, or of no recorded-run format toolproof knows."""

from __future__ import annotations


class TraceError(ValueError):
    """What is wrong with a trace file, and where (1-based line when the format has lines, else 0)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


class UnknownFormat(TraceError):
    """A readable file that holds no recorded-run format toolproof knows (e.g. a report beside a trace)."""
