"""What every case has, whatever it tests: a name, where it was written, and whether it is skipped."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from toolproof.model.base import Frozen


class SourceRef(Frozen):
    """Where a case was written: file, 1-based line, and the document's index within the file."""

    file: Path
    line: int = 1
    column: int = 1
    document: int = 0
    expect_lines: dict[str, int] = Field(default_factory=dict)  # line of each key of the block's expect:


class CaseEnvelope(Frozen):
    """The envelope of a server `Case` and an `AgentCase`: its name, where it was written, whether it is
    skipped; `node_id` names it as pytest does (`file::name`)."""

    name: str
    source: SourceRef
    skip: bool = False

    @property
    def node_id(self) -> str:
        """pytest-style identifier: `file::name`."""
        return f"{self.source.file}::{self.name}"
