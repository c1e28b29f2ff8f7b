"""The mcp-assert dialect: one YAML document is one case.

Where mcp-assert is lenient this loader is strict: unknown keys, an unparsable `timeout`, an unknown transport
and a document without any block are load errors. Everything else follows mcp-assert: the block is chosen by
its precedence when several are present, `name` defaults to the file name, `transport` is case-insensitive.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from toolproof.core.durations import parse_duration
from toolproof.load import shapes
from toolproof.load.errors import LoadError, default_case_name
from toolproof.load.shapes import MCP_ASSERT_BLOCKS
from toolproof.load.syntax import syntax_errors
from toolproof.load.validation import Loc, drop_null_fields, unknown_key, validation_errors
from toolproof.load.yaml_source import Document, KeyPath, as_document
from toolproof.model.envelope import SourceRef
from toolproof.model.server_case import Case, TrajectoryCheck
from toolproof.model.server_config import go_string, one_or_many

if TYPE_CHECKING:  # the agent checks load only for a file with a trajectory
    from toolproof.model.scenario import Assertion

detect = shapes.mcp_assert
"""The shape test of this dialect (`load/shapes.py`)."""

BLOCKS = MCP_ASSERT_BLOCKS
"""Block keys in mcp-assert's order of precedence: the first one present is the case's request."""

TRAJECTORY_KEYS = {"checks": "trajectory", "trace": "trace", "audit_log": "audit_log"}
"""TrajectoryBlock fields and the top-level keys they are written as."""

KEYS = frozenset(
    {
        "name",
        "server",
        "setup",
        "timeout",
        "skip",
        "skip_unless_env",
        "snapshot_masks",
        "isolate",
        *BLOCKS,
        *TRAJECTORY_KEYS.values(),
    }
)


def chosen_block(data: dict[str, Any]) -> str | None:
    """The block mcp-assert runs: the first present by precedence (an empty `trajectory` list is absent)."""
    for key in BLOCKS:
        value = data.get(key)
        if value is not None and not (key == "trajectory" and value == []):
            return key
    return None


def default_name(document: Document) -> str:
    """mcp-assert names an unnamed case after its file; later documents of a file get ` [n]` appended."""
    return default_case_name(document.file, document.index)


class _Trajectory(BaseModel):
    """The `trajectory:` list as mcp-assert writes it (validator built for a file with a trajectory only)."""

    model_config = ConfigDict(defer_build=True)

    trajectory: list[TrajectoryCheck]


def _assertion(check: TrajectoryCheck, line: int, column: int) -> Assertion:
    """The agent assertion that checks what one `trajectory:` check does, labelled with its type (a check
    naming no tool looks for calls of the tool ``, which never occur: it fails, as in mcp-assert)."""
    from toolproof.model.scenario import CallCheck, SequenceCheck, TextMatcher, ToolsCalled, ToolsNotCalled

    where = {"label": check.type, "line": line, "column": column}
    if check.type == "order":
        return SequenceCheck(mode="ordered", sequences=(tuple(check.tools),), **where)
    if check.type == "presence":
        return ToolsCalled(tools=tuple(check.tools), **where)
    if check.type == "absence":
        return ToolsNotCalled(tools=tuple(check.tools), **where)
    arguments = {name: TextMatcher(value=value) for name, value in check.args.items()}
    return CallCheck(name=check.tool or "", arguments=arguments, **where)


def _trajectory(document: Document, errors: list[LoadError]) -> list[Assertion]:
    """The document's `trajectory:` checks as assertions; a malformed one adds its errors."""
    try:
        written = _Trajectory.model_validate({"trajectory": document.data["trajectory"]}).trajectory
    except ValidationError as error:
        errors.extend(validation_errors(error, _Trajectory, document, lambda loc: loc))
        return []
    where = [document.position(("trajectory", index)) for index in range(len(written))]
    return [_assertion(check, *at) for check, at in zip(written, where, strict=True)]


def _block_input(document: Document, key: str, errors: list[LoadError]) -> dict[str, Any]:
    data = document.data
    if key == "trajectory":
        block = {field: data[yaml_key] for field, yaml_key in TRAJECTORY_KEYS.items() if yaml_key in data}
        return {"kind": key, **block, "checks": _trajectory(document, errors)}
    return {"kind": key, **data[key]}


def _to_yaml(block_key: str) -> Callable[[Loc], KeyPath]:
    """Maps a pydantic location inside Case to the document's key path."""

    def convert(loc: Loc) -> KeyPath:
        if loc[:1] != ("block",):
            return loc
        rest = loc[2:]  # drop "block" and the union tag
        if block_key == "trajectory" and rest:
            return (TRAJECTORY_KEYS.get(str(rest[0]), str(rest[0])), *rest[1:])
        return (block_key, *rest)

    return convert


def load(document: object, source: Path) -> list[Case | LoadError]:
    """The case written in `document` (read from `source`), or every error found in it."""
    document = as_document(document, source)
    data = document.data
    errors = [unknown_key(document, (key,), KEYS) for key in data if key not in KEYS]
    block_key = chosen_block(data)
    if block_key is None:
        listed = "/".join(reversed(BLOCKS))
        errors.append(document.error((), f"no {listed} block", "a case needs one of these keys"))
        return list(errors)
    if block_key != "trajectory" and not isinstance(data[block_key], dict):
        errors.append(document.error((block_key,), "must be a mapping"))
        return list(errors)

    timeout: float | None = None
    if data.get("timeout") is not None:
        try:
            timeout = parse_duration(str(go_string(data["timeout"])))
        except ValueError as error:
            errors.append(document.error(("timeout",), str(error)))
        else:
            if timeout <= 0:
                errors.append(document.error(("timeout",), f"must be positive, got {data['timeout']!r}"))

    server = data.get("server")
    if isinstance(server, dict) and isinstance(server.get("transport"), str):
        server = {**server, "transport": server["transport"].lower()}
    name = go_string(data.get("name"))
    skip_unless_env = go_string(data.get("skip_unless_env"))
    fields: dict[str, Any] = {
        "name": default_name(document) if name in (None, "") else name,
        "source": SourceRef(
            file=document.file,
            line=document.line,
            column=document.column,
            document=document.index,
            expect_lines=_expect_lines(document, block_key),
        ),
        "block": _block_input(document, block_key, errors),
        "timeout": timeout,
        "skip_unless_env": None if skip_unless_env in (None, "") else skip_unless_env,
        "server": server,
        "setup": data.get("setup"),
        "skip": data.get("skip"),
        "isolate": data.get("isolate"),
        "snapshot_masks": one_or_many(data.get("snapshot_masks")),
    }
    try:
        case = Case.model_validate(drop_null_fields(fields, Case))
    except ValidationError as error:
        errors.extend(validation_errors(error, Case, document, _to_yaml(block_key)))
    else:
        errors.extend(syntax_errors(document, block_key, case))
        case = case.model_copy(update={"server": case.server.anchored(document.file.parent)})
    if errors:
        return list(errors)
    return [case]


def _expect_lines(document: Document, block_key: str) -> dict[str, int]:
    """The line of each key of the block's `expect:`, so a failure can point at the expectation."""
    return {
        str(path[2]): line
        for path, (line, _) in document.positions.items()
        if len(path) == 3 and path[:2] == (block_key, "expect")
    }
