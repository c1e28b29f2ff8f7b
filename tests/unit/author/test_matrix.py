"""The matrix expands cases per server and folds verdicts into a table."""

from __future__ import annotations

from pathlib import Path

from toolproof.author.matrix import grid, matrix_items
from toolproof.load.errors import LoadError
from toolproof.model.envelope import SourceRef
from toolproof.model.result import CaseResult, Status
from toolproof.model.server_case import Case
from toolproof.model.server_config import ServerConfig


def test_expand_and_fold() -> None:
    case = Case.model_validate({"name": "c", "source": SourceRef(file=Path("s.yaml")),
                                "server": {"command": "old", "env": {"K": "v"}},
                                "block": {"kind": "assert", "tool": "t"}})
    broken = LoadError(Path("bad.yaml"), 1, 1, "", "broken")
    servers = [("one", ServerConfig(command="a")), ("two", ServerConfig(transport="http", url="http://x/mcp"))]
    items = matrix_items([case, broken], servers)
    names = [item.name if isinstance(item, Case) else "error" for item in items]
    assert names == ["error", "c [one]", "c [two]"]
    second = items[2]
    assert isinstance(second, Case)
    assert (second.server.url, second.server.env) == ("http://x/mcp", {"K": "v"})
    results = [CaseResult(name="c [one]", file=Path("s.yaml"), status=Status.PASS)]
    table = grid([case], ["one", "two"], results)
    assert table.json() == {"servers": ["one", "two"], "cases": [{"name": "c", "results": {"one": "PASS",
                                                                                          "two": None}}]}
    assert table.lines() == ["| case | one  | two |", "|------|------|-----|", "| c    | PASS | -   |"]
