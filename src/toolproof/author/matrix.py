"""One suite against several servers: every case once per server, and the case x server table.

Each case's copy is named `case [server]`, so every report (terminal, JSON, JUnit) holds the whole cross
product; `grid` folds the verdicts back into one row per case and one column per server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolproof.load.errors import LoadError
from toolproof.model.result import CaseResult, Status
from toolproof.model.server_case import Case
from toolproof.model.server_config import ServerConfig

_CELLS = {Status.PASS: "PASS", Status.FAIL: "FAIL", Status.SKIP: "skip", Status.ERROR: "ERROR"}


def column_name(case: str, server: str) -> str:
    return f"{case} [{server}]"


def matrix_items(
    items: Sequence[Case | LoadError], servers: Sequence[tuple[str, ServerConfig]]
) -> list[Case | LoadError]:
    """Every case once per server (pointed at it, its env, cwd and client capabilities kept, named
    `case [server]`); each load error once."""
    expanded: list[Case | LoadError] = [item for item in items if isinstance(item, LoadError)]
    fields = ("command", "args", "transport", "url", "headers")
    for name, server in servers:
        replaced = {key: getattr(server, key) for key in fields}
        expanded.extend(
            item.model_copy(
                update={
                    "name": column_name(item.name, name),
                    "server": item.server.model_copy(update=replaced),
                }
            )
            for item in items
            if isinstance(item, Case)
        )
    return expanded


@dataclass(frozen=True)
class Grid:
    """Rows of (case name, one status per server, None where the case did not finish)."""

    servers: list[str]
    rows: list[tuple[str, list[Status | None]]]

    def lines(self) -> list[str]:
        """A Markdown table (also readable as plain text)."""
        header = ["case", *self.servers]
        body = [[name, *(_CELLS[cell] if cell else "-" for cell in cells)] for name, cells in self.rows]
        widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

        def line(row: list[str]) -> str:
            cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            return "| " + " | ".join(cells) + " |"

        return [line(header), "|" + "|".join("-" * (width + 2) for width in widths) + "|", *map(line, body)]

    def json(self) -> dict[str, Any]:
        return {
            "servers": self.servers,
            "cases": [
                {
                    "name": name,
                    "results": {
                        server: cell.value if cell else None
                        for server, cell in zip(self.servers, cells, strict=True)
                    },
                }
                for name, cells in self.rows
            ],
        }


def grid(cases: Sequence[Case], servers: Sequence[str], results: Sequence[CaseResult]) -> Grid:
    """The table of the cases (as loaded, before expansion) against the servers."""
    found = {(result.file, result.name): result.status for result in results}
    rows = [
        (case.name, [found.get((case.source.file, column_name(case.name, server))) for server in servers])
        for case in cases
    ]
    return Grid(list(servers), rows)
