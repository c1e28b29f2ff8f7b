"""A suite file or document that cannot be loaded, located precisely enough to fix."""

from __future__ import annotations

import dataclasses
from pathlib import Path


def default_case_name(file: Path, document: int) -> str:
    """mcp-assert's name for an unnamed case: the file name, with ` [n]` appended for the nth document after
    the first (`document` counts from 0)."""
    return file.name if document == 0 else f"{file.name} [{document + 1}]"


@dataclasses.dataclass(frozen=True)
class LoadError:
    """What is wrong, where: 1-based line and column, and the dotted field path (`""` for the whole file).

    `document` is the 0-based ordinal of the YAML document it was found in, `case` the document's `name:`
    when that much could be read: context the position already implies, so not compared.
    """

    file: Path
    line: int
    column: int
    field: str
    message: str
    hint: str | None = None
    document: int = dataclasses.field(default=0, compare=False)
    case: str | None = dataclasses.field(default=None, compare=False)

    @property
    def case_name(self) -> str:
        """The name of the case the error stands for: its `name:`, else the name mcp-assert would give it."""
        return self.case or default_case_name(self.file, self.document)

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}:"
        what = f"{self.field}: {self.message}" if self.field else self.message
        return f"{where} {what} ({self.hint})" if self.hint else f"{where} {what}"
