"""A suite file or document that cannot be loaded, located precisely enough to fix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LoadError:
    """What is wrong, where: 1-based line and column, and the dotted field path (`""` for the whole file)."""

    file: Path
    line: int
    column: int
    field: str
    message: str
    hint: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}:"
        what = f"{self.field}: {self.message}" if self.field else self.message
        return f"{where} {what} ({self.hint})" if self.hint else f"{where} {what}"
