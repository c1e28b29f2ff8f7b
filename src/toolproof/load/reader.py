"""The reader shared by the agent dialect loaders: typed values out of a YAML document, every problem
kept as a LoadError naming file, line and field."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import UTC
from typing import Any, cast

from pydantic import ValidationError

from toolproof.core.expressions import ExpressionError, check_expression, parse_temporal
from toolproof.core.re2_patterns import RE2PatternError, compile_re2
from toolproof.load.errors import LoadError
from toolproof.load.validation import suggest
from toolproof.load.yaml_source import Document, KeyPath
from toolproof.model.envelope import SourceRef
from toolproof.model.scenario import (
    AgentCase,
    Assertion,
    Check,
    Precondition,
)

PRECONDITION_KEYS = ("tool_called", "tool_called_pattern", "any_tool_called", "min_tool_calls")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?")


class Reader:
    """Reads values out of one document, collecting a LoadError (file, line, column, field) per problem."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.errors: list[LoadError] = []

    def fail(self, path: KeyPath, message: str, hint: str | None = None) -> None:
        self.errors.append(self.document.error(path, message, hint))

    def where(self, path: KeyPath) -> tuple[int, int]:
        return self.document.position(path)

    def mapping(self, value: Any, path: KeyPath, what: str = "a mapping") -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.fail(path, f"must be {what}, got {kind_of(value)}")
        return None

    def keys(
        self, data: Mapping[str, Any], path: KeyPath, allowed: Iterable[str], required: Iterable[str] = ()
    ) -> bool:
        """Unknown keys (with a "did you mean") and missing required keys are errors; True when none."""
        allowed = sorted(set(allowed))
        fine = True
        for key in data:
            if key not in allowed:
                hint = suggest(key, allowed) or f"known keys: {', '.join(allowed)}"
                self.fail((*path, key), "unknown key", hint)
                fine = False
        for key in required:
            if key not in data:
                self.fail(path, f"required key {key!r} missing")
                fine = False
        return fine

    def text(self, value: Any, path: KeyPath, *, scalars: bool = True) -> str | None:
        """A string; with `scalars`, numbers and booleans are accepted as their text (`3`, `true`)."""
        if isinstance(value, str):
            return value
        if scalars and isinstance(value, bool):
            return "true" if value else "false"
        if scalars and isinstance(value, int | float):
            return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        self.fail(path, f"must be a string, got {kind_of(value)}")
        return None

    def expression(self, value: Any, path: KeyPath, variables: Mapping[str, Any]) -> str | None:
        """An expression (text) that can succeed: it parses, and names only built-ins and the context
        `variables`, with argument counts and literal units and times its functions accept."""
        text = self.text(value, path, scalars=False)
        if text is None:
            return None
        try:
            check_expression(text, variables)
        except ExpressionError as error:
            self.fail(path, str(error))
            return None
        return text

    def date(self, value: Any, path: KeyPath) -> str | None:
        """An ISO 8601 date or date-time (text)."""
        text = self.text(value, path, scalars=False)
        if text is not None and parse_temporal(text, UTC) is None:
            self.fail(path, f"{text!r} is not an ISO 8601 date or date-time")
            return None
        return text

    def texts(self, value: Any, path: KeyPath, *, one_or_many: bool = True) -> list[str] | None:
        """A list of strings (or, with `one_or_many`, a single string)."""
        if one_or_many and not isinstance(value, list):
            single = self.text(value, path)
            return None if single is None else [single]
        if not isinstance(value, list):
            self.fail(path, f"must be a list of strings, got {kind_of(value)}")
            return None
        found = [self.text(item, (*path, index)) for index, item in enumerate(value)]
        return None if any(item is None for item in found) else [item for item in found if item is not None]

    def integer(self, value: Any, path: KeyPath, minimum: int | None = 0) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            self.fail(path, f"must be a whole number, got {kind_of(value)}")
            return None
        if minimum is not None and value < minimum:
            self.fail(path, f"must be at least {minimum}, got {value}")
            return None
        return int(value)

    def number(
        self, value: Any, path: KeyPath, low: float | None = None, high: float | None = None
    ) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(path, f"must be a number, got {kind_of(value)}")
            return None
        if (low is not None and value < low) or (high is not None and value > high):
            self.fail(
                path,
                f"must be between {low:g} and {high:g}, got {value}"
                if high is not None
                else f"must be at least {low:g}, got {value}",
            )
            return None
        return float(value)

    def boolean(self, value: Any, path: KeyPath) -> bool | None:
        if isinstance(value, bool):
            return value
        self.fail(path, f"must be true or false, got {kind_of(value)}")
        return None

    def depends(self, value: Any, path: KeyPath) -> tuple[str, ...]:
        """`depends_on`: one id or a list of ids."""
        found = self.texts(value, path)
        return tuple(found or ())

    def precondition(self, value: Any, path: KeyPath) -> Precondition | None:
        """`when: {tool_called, tool_called_pattern, any_tool_called, min_tool_calls}`; the pattern must be
        valid Go RE2. An empty mapping is no precondition."""
        data = self.mapping(value, path)
        if data is None or not self.keys(data, path, PRECONDITION_KEYS):
            return None
        fields: dict[str, Any] = {}
        for key in ("tool_called", "tool_called_pattern"):
            if key in data:
                fields[key] = self.text(data[key], (*path, key), scalars=False)
        if "any_tool_called" in data:
            fields["any_tool_called"] = self.boolean(data["any_tool_called"], (*path, "any_tool_called"))
        if "min_tool_calls" in data:
            fields["min_tool_calls"] = self.integer(data["min_tool_calls"], (*path, "min_tool_calls"))
        if any(value is None for value in fields.values()):
            return None
        pattern = fields.get("tool_called_pattern")
        if pattern is not None:
            try:
                compile_re2(pattern)
            except RE2PatternError as error:
                self.fail((*path, "tool_called_pattern"), error.reason, "patterns are Go RE2 syntax")
                return None
        return Precondition(**fields) if fields else None

    def build(
        self, at: KeyPath, factory: type[Check], checked: bool = False, /, **fields: Any
    ) -> Assertion | None:
        """A check placed at `at` (its line and column), or None with an error if the fields are invalid;
        `checked`: the reader checked and typed every field, so the check is made without its validator."""
        line, column = self.where(at)
        if checked:
            return cast("Assertion", factory.model_construct(line=line, column=column, **fields))
        try:
            return cast("Assertion", factory(line=line, column=column, **fields))
        except ValidationError as error:
            for detail in error.errors():
                self.fail(at, f"{'.'.join(map(str, detail['loc']))}: {detail['msg']}")
            return None

    def finish(self, case: AgentCase | None, checks_at: Mapping[int, KeyPath]) -> list[AgentCase | LoadError]:
        """The case, or its errors: those collected, then dependency problems (unknown ids, cycles)."""
        if case is None or self.errors:
            return list(self.errors)
        problems = case.dependency_problems()
        for check, message in problems:
            self.fail(checks_at.get(id(check), ()), message)
        return list(self.errors) if self.errors else [case]


def kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f"a string ({value!r})" if len(value) < 40 else "a string"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


def source_ref(document: Document, path: KeyPath = ()) -> SourceRef:
    line, column = document.position(path)
    return SourceRef(file=document.file, line=line, column=column, document=document.index)


def default_name(document: Document) -> str:
    """A case without a name is named after its file (` [n]` for later documents of the file)."""
    name = document.file.name
    return name if document.index == 0 else f"{name} [{document.index + 1}]"
