"""`toolproof schema` as a Python call: a file format's JSON Schema, or the files that break it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.load import LoadError


@dataclass(frozen=True)
class SchemaResult:
    """The JSON Schema of a format (`text`, as shipped) and every way the files checked break it."""

    format: str
    text: str
    problems: tuple[LoadError, ...] = ()

    @property
    def exit_code(self) -> int:
        """1 when a file breaks the schema, else 0."""
        return ExitCode.FAILED if self.problems else ExitCode.OK


def schema(format: str, files: Sequence[str | Path] = ()) -> SchemaResult:
    """The JSON Schema (draft 2020-12) of the file format `format` (`toolproof.schemas.FORMATS`), with the
    problems of each of `files` against it. Raises UsageError for an unknown format or a missing file."""
    from toolproof.schemas import FORMATS, stored

    if format not in FORMATS:
        raise UsageError(f"no file format is named {format!r} (formats: {', '.join(FORMATS)})")
    paths = [Path(each) for each in files]
    missing = [path for path in paths if not path.is_file()]
    if missing:
        raise UsageError(f"{missing[0]}: no such file")
    if not paths:
        return SchemaResult(format, stored(format))
    from toolproof.schemas.validate import problems

    found = tuple(problem for path in paths for problem in problems(format, path))
    return SchemaResult(format, stored(format), found)
