"""The expression language of expected values (`AT_TIME(DATE_ADD(TODAY, 1, 'day'), '09:00')`).

Expressions are parsed into a small tree and evaluated by a whitelist of functions; nothing is ever passed to
Python's `eval`. An expression is a function call, a bare name (a built-in such as `TODAY`, or a context
variable), a quoted string (single or double quotes, backslash escapes) or a number.

Dates are `datetime.date` values (a whole calendar day) and instants are time-zone-aware `datetime` values,
both in the evaluation time zone.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Any

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<number>-?\d+(?:\.\d+)?)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<punct>[(),])
    )""",
    re.VERBOSE | re.DOTALL,
)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_UNITS = {
    "minute": timedelta(minutes=1),
    "minutes": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "hours": timedelta(hours=1),
    "day": timedelta(days=1),
    "days": timedelta(days=1),
    "week": timedelta(weeks=1),
    "weeks": timedelta(weeks=1),
}
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?")
_SHIFT_ARGS = "(date, count, unit)"


class ExpressionError(ValueError):
    """An expression that cannot be parsed or evaluated, with the reason."""

    def __init__(self, expression: str, reason: str) -> None:
        super().__init__(f"expression {expression!r}: {reason}")
        self.expression = expression
        self.reason = reason


Node = tuple[Any, ...]  # ("lit", value) | ("name", name) | ("call", name, (args...))


@dataclass
class _Parser:
    expression: str
    tokens: list[tuple[str, str]]
    index: int = 0

    def fail(self, reason: str) -> ExpressionError:
        return ExpressionError(self.expression, reason)

    def next(self) -> tuple[str, str]:
        if self.index >= len(self.tokens):
            raise self.fail("unexpected end")
        token = self.tokens[self.index]
        self.index += 1
        return token

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def value(self) -> Node:
        kind, text = self.next()
        if kind == "number":
            return ("lit", float(text) if "." in text else int(text))
        if kind == "string":
            return ("lit", _ESCAPE.sub(r"\1", text[1:-1]))
        if kind != "name":
            raise self.fail(f"unexpected {text!r}")
        if self.peek() != ("punct", "("):
            return ("name", text)
        self.next()
        args: list[Node] = []
        if self.peek() == ("punct", ")"):
            self.next()
            return ("call", text, tuple(args))
        while True:
            args.append(self.value())
            kind, separator = self.next()
            if separator == ")":
                return ("call", text, tuple(args))
            if separator != ",":
                raise self.fail(f"expected ',' or ')' after an argument of {text}, got {separator!r}")


def _tokens(expression: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    position = 0
    stripped = expression.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None or match.end() == position:
            raise ExpressionError(expression, f"cannot read {stripped[position : position + 20]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match[kind]))
        position = match.end()
    return tokens


@lru_cache(maxsize=4096)
def parse(expression: str) -> Node:
    """The expression's tree; raises `ExpressionError` on a syntax error."""
    parser = _Parser(expression, _tokens(expression))
    tree = parser.value()
    if parser.peek() is not None:
        raise parser.fail(f"unexpected {parser.tokens[parser.index][1]!r} after the expression")
    return tree


@dataclass(frozen=True)
class Clock:
    """When and where expressions are evaluated: `now` (time-zone aware) and the zone dates belong to."""

    now: datetime
    zone: tzinfo

    @property
    def today(self) -> date:
        return self.now.astimezone(self.zone).date()


@dataclass
class Scope:
    """The clock, the case's context variables, the warnings raised while evaluating, and a memo of values
    computed once per evaluation (expression results, prepared expectations)."""

    clock: Clock
    variables: Mapping[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    memo: dict[Any, Any] = field(default_factory=dict)


def text_of(value: Any) -> str:
    """A value as text: dates in ISO 8601, `true`/`false`, `null`, containers as compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, date):  # also datetime
        return value.isoformat()
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def parse_temporal(value: Any, zone: tzinfo) -> date | datetime | None:
    """A date (ISO `2026-03-10`) or an instant (ISO date-time with optional offset or `Z`, read in `zone`
    when it has none; or epoch seconds, or milliseconds from 1e11 on), else None."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=zone)
    if isinstance(value, date):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        seconds = value / 1000 if abs(value) >= 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, zone)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) <= 10:
        try:
            return date.fromisoformat(text)
        except ValueError:
            pass
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        return None
    return instant if instant.tzinfo else instant.replace(tzinfo=zone)


def _temporal(expression: str, value: Any, zone: tzinfo, what: str) -> date | datetime:
    found = parse_temporal(value, zone)
    if found is None:
        raise ExpressionError(expression, f"{what} is not a date or date-time: {text_of(value)!r}")
    return found


def _count(expression: str, value: Any) -> float:
    """The count argument of DATE_ADD and DATE_SUB."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ExpressionError(expression, f"the count must be a number, got {text_of(value)!r}") from None


def _unit(expression: str, value: Any) -> timedelta:
    """The unit argument of DATE_ADD and DATE_SUB (`day`, `hours`, ...) as a duration."""
    unit = _UNITS.get(str(value).strip().lower())
    if unit is None:
        raise ExpressionError(
            expression, f"unknown unit {text_of(value)!r} (use {', '.join(sorted(_UNITS))})"
        )
    return unit


def _time_of_day(expression: str, value: Any) -> time:
    """The time argument of AT_TIME: `HH:MM`, `HH:MM:SS` or `h:MM AM/PM`."""
    clock = _CLOCK.fullmatch(str(value).strip())
    if clock is None:
        raise ExpressionError(expression, f"time {text_of(value)!r} is not HH:MM, HH:MM:SS or h:MM AM/PM")
    hour, minute, second = int(clock[1]), int(clock[2]), int(clock[3] or 0)
    if clock[4]:
        if not 1 <= hour <= 12:
            raise ExpressionError(expression, f"hour {hour} is not 1-12 in {value!r}")
        hour = hour % 12 + (12 if clock[4].lower() == "pm" else 0)
    try:
        return time(hour, minute, second)
    except ValueError as error:
        raise ExpressionError(expression, f"time {value!r}: {error}") from None


def _shift(expression: str, scope: Scope, args: Sequence[Any], sign: int) -> date | datetime:
    start = _temporal(expression, args[0], scope.clock.zone, "the first argument")
    delta = _unit(expression, args[2]) * _count(expression, args[1]) * sign
    if not isinstance(start, datetime) and delta % timedelta(days=1) == timedelta(0):
        return start + delta
    if not isinstance(start, datetime):
        start = datetime.combine(start, time(), scope.clock.zone)
    return start + delta


def _at_time(expression: str, scope: Scope, args: Sequence[Any]) -> datetime:
    day = _temporal(expression, args[0], scope.clock.zone, "the first argument")
    if isinstance(day, datetime):
        day = day.astimezone(scope.clock.zone).date()
    return datetime.combine(day, _time_of_day(expression, args[1]), scope.clock.zone)


def _format_date(expression: str, scope: Scope, args: Sequence[Any]) -> str:
    moment = _temporal(expression, args[0], scope.clock.zone, "the first argument")
    return moment.strftime(str(args[1]))


def _json_extract(expression: str, args: Sequence[Any]) -> Any:
    data = args[0]
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except ValueError:
            raise ExpressionError(expression, "JSON_EXTRACT: the data is text that is not JSON") from None
    try:
        return dot_path(data, str(args[1]))
    except LookupError as error:
        raise ExpressionError(expression, f"JSON_EXTRACT: {error.args[0]}") from None


def dot_path(data: Any, path: str) -> Any:
    """The value at a dot path (`items.0.sku`; numeric segments index lists); raises LookupError."""
    current = data
    walked: list[str] = []
    for segment in path.split(".") if path else []:
        if isinstance(current, Mapping) and segment in current:
            current = current[segment]
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            current = current[int(segment)]
        else:
            where = ".".join(walked) or "the top level"
            raise LookupError(f"no {segment!r} at {where} of path {path!r}")
        walked.append(segment)
    return current


@dataclass(frozen=True)
class _Builtin:
    """A function of the language: what it does, how many arguments it takes (None: any), and how its
    arguments read in messages."""

    apply: Callable[[str, Scope, Sequence[Any]], Any]
    arity: int | None
    signature: str


_FUNCTIONS: dict[str, _Builtin] = {
    "TODAY": _Builtin(lambda expression, scope, args: scope.clock.today, 0, "()"),
    "NOW": _Builtin(lambda expression, scope, args: scope.clock.now.astimezone(scope.clock.zone), 0, "()"),
    "DATE_ADD": _Builtin(lambda expression, scope, args: _shift(expression, scope, args, 1), 3, _SHIFT_ARGS),
    "DATE_SUB": _Builtin(lambda expression, scope, args: _shift(expression, scope, args, -1), 3, _SHIFT_ARGS),
    "AT_TIME": _Builtin(_at_time, 2, "(date, time)"),
    "FORMAT_DATE": _Builtin(_format_date, 2, "(date, format)"),
    "CONCAT": _Builtin(
        lambda expression, scope, args: "".join(text_of(arg) for arg in args), None, "(a, b, ...)"
    ),
    "UPPER": _Builtin(lambda expression, scope, args: text_of(args[0]).upper(), 1, "(text)"),
    "LOWER": _Builtin(lambda expression, scope, args: text_of(args[0]).lower(), 1, "(text)"),
    "JSON_EXTRACT": _Builtin(
        lambda expression, scope, args: _json_extract(expression, args), 2, "(data, path)"
    ),
}
_BARE = frozenset({"TODAY", "NOW"})
# literal arguments a function rejects whatever the clock: (function, argument position) -> reader
_LITERAL_ARGUMENTS: dict[tuple[str, int], Callable[[str, Any], Any]] = {
    ("DATE_ADD", 1): _count,
    ("DATE_ADD", 2): _unit,
    ("DATE_SUB", 1): _count,
    ("DATE_SUB", 2): _unit,
    ("AT_TIME", 1): _time_of_day,
}
_UNKNOWN = object()  # an argument whose value is known only when the expression is evaluated


def shadowed(variables: Mapping[str, Any]) -> list[str]:
    """Context variables hidden by a built-in of the same name (the built-in wins)."""
    return sorted(name for name in variables if name in _FUNCTIONS)


def _warn_shadowed(name: str, scope: Scope) -> None:
    warning = f"the built-in {name} hides the context variable of that name"
    if name in scope.variables and warning not in scope.warnings:
        scope.warnings.append(warning)


def _function(expression: str, name: str, count: int) -> _Builtin:
    """The built-in `name`, called with `count` arguments; raises `ExpressionError` if there is none or the
    count is wrong."""
    function = _FUNCTIONS.get(name)
    if function is None:
        raise ExpressionError(expression, f"unknown function {name} (known: {', '.join(sorted(_FUNCTIONS))})")
    if function.arity is not None and count != function.arity:
        raise ExpressionError(expression, f"{name} takes {function.signature}, got {count} arguments")
    return function


def _unknown_name(expression: str, name: str, variables: Mapping[str, Any]) -> ExpressionError:
    """The error for a bare name that is neither a built-in nor a context variable."""
    known = ", ".join(sorted(variables)) or "none"
    return ExpressionError(expression, f"unknown name {name} (context variables: {known})")


def check_expression(expression: str, variables: Mapping[str, Any]) -> None:
    """Raise `ExpressionError` for what would fail however the expression is evaluated: a syntax error, an
    unknown function, a name that is neither a built-in nor one of the context `variables`, a wrong number
    of arguments, or a unit, count or time of day (given literally or by a variable) that its function
    rejects."""
    _check(expression, parse(expression), variables)


def _check(expression: str, node: Node, variables: Mapping[str, Any]) -> None:
    """`check_expression` for one node of the tree and those below it."""
    if node[0] == "lit":
        return
    name = node[1]
    if node[0] == "name":
        if name not in _BARE and name not in variables:
            raise _unknown_name(expression, name, variables)
        return
    _function(expression, name, len(node[2]))
    for position, argument in enumerate(node[2]):
        _check(expression, argument, variables)
        reader = _LITERAL_ARGUMENTS.get((name, position))
        value = _known(argument, variables)
        if reader is not None and value is not _UNKNOWN:
            reader(expression, value)


def _known(node: Node, variables: Mapping[str, Any]) -> Any:
    """The value of a literal or a context variable, else `_UNKNOWN`."""
    if node[0] == "lit":
        return node[1]
    if node[0] == "name" and node[1] not in _BARE and node[1] in variables:
        return variables[node[1]]
    return _UNKNOWN


def evaluate(expression: str, scope: Scope) -> Any:
    """The value of `expression` (computed once per scope); raises `ExpressionError`."""
    key = ("expression", expression)
    if key not in scope.memo:
        scope.memo[key] = _evaluate(expression, parse(expression), scope)
    return scope.memo[key]


def _evaluate(expression: str, node: Node, scope: Scope) -> Any:
    if node[0] == "lit":
        return node[1]
    name = node[1]
    if node[0] == "name":
        if name in _BARE:
            _warn_shadowed(name, scope)
            return _FUNCTIONS[name].apply(expression, scope, ())
        if name in scope.variables:
            return scope.variables[name]
        raise _unknown_name(expression, name, scope.variables)
    function = _function(expression, name, len(node[2]))
    _warn_shadowed(name, scope)
    args = [_evaluate(expression, arg, scope) for arg in node[2]]
    return function.apply(expression, scope, args)
