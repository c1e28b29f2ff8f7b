"""A trace file that cannot be read: broken, or of no recorded-run format toolproof knows."""

from __future__ import annotations


class TraceError(ValueError):
    """What is wrong with a trace file, and where (1-based line and column when known, else 0)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        where = f"line {line}, column {column}: " if line and column else f"line {line}: " if line else ""
        super().__init__(where + message)
        self.line = line
        self.column = column


class UnknownFormat(TraceError):
    """A readable file that holds no recorded-run format toolproof knows (e.g. a report beside a trace)."""
