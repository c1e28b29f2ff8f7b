"""Syntax pydantic cannot check in a case's toolproof-only fields: JSONPaths, JSON Schemas, RE2 patterns.

Each problem is a LoadError at the field's position, so a typo in a path fails the file when it loads rather
than the case when it runs.
"""

from __future__ import annotations

from toolproof.check.re2_patterns import RE2PatternError, compile_re2
from toolproof.check.response import PathSyntaxError, jsonpath_values
from toolproof.check.schemas import schema_error
from toolproof.load.errors import LoadError
from toolproof.load.yaml_source import Document, KeyPath
from toolproof.model.suite import Block, Expect, ToolsBlock

PATH_HINT = "paths are RFC 9535 JSONPath, e.g. $.items[0].id"


def _path_errors(document: Document, at: KeyPath, paths: dict[str, object] | None) -> list[LoadError]:
    errors = []
    for path in paths or {}:
        try:
            jsonpath_values(path, None)
        except PathSyntaxError as error:
            errors.append(document.error((*at, path), str(error), PATH_HINT))
    return errors


def syntax_errors(document: Document, block_key: str, block: Block) -> list[LoadError]:
    """Every malformed JSONPath, JSON Schema or RE2 pattern in `block` (written under `block_key`)."""
    expect = getattr(block, "expect", None)
    if isinstance(expect, Expect):
        at: KeyPath = (block_key, "expect")
        errors = _path_errors(document, (*at, "structured"), expect.structured)
        if expect.structured_schema is not None and (problem := schema_error(expect.structured_schema)):
            errors.append(document.error((*at, "structured_schema"), problem))
        return errors
    if not isinstance(block, ToolsBlock):
        return []
    errors = []
    for name, tool in (block.expect.tools or {}).items():
        at = (block_key, "expect", "tools", name)
        errors += _path_errors(document, (*at, "declared"), tool.declared)
        if tool.description is not None:
            try:
                compile_re2(tool.description)
            except RE2PatternError as error:
                errors.append(document.error((*at, "description"), str(error)))
    return errors
