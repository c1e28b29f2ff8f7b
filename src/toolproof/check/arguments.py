"""Argument and value matchers: does an observed value satisfy an expected one?

`match` answers for one value; `argument_violations` checks a call's whole argument object against a
`CallCheck` (expected arguments, strict, forbidden names and values) and lists every violation in PromptKit's
shape (`type`, `argument`, `expected` or `pattern`, `actual`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any

from toolproof.check.json_text import as_text, compact_json
from toolproof.check.patterns import PatternError, PatternTimeout, regex_search
from toolproof.core.expressions import ExpressionError, Scope, evaluate, parse_temporal, text_of
from toolproof.core.gofmt import go_v
from toolproof.model.scenario import (
    AnyMatcher,
    CallCheck,
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    Matcher,
    OneOfMatcher,
    RegexMatcher,
    SchemaMatcher,
    TextMatcher,
)

__all__ = [  # the text forms and patterns moved to json_text and patterns; importers of them here still work
    "ANY_ARGUMENT",
    "WILDCARD",
    "Miss",
    "PatternError",
    "PatternTimeout",
    "argument_violations",
    "as_text",
    "compact_json",
    "count_violations",
    "deep_equal",
    "describe_matcher",
    "expected_value",
    "match",
    "regex_search",
    "violation",
]

WILDCARD = "*"
ANY_ARGUMENT = "*"  # a `forbidden_values` key that applies to every top-level argument


# --- exact equality ---------------------------------------------------------------------------------------


def _canonical(value: Any) -> Any:
    """A hashable form in which multiset-equal values are equal (no wildcards inside)."""
    if isinstance(value, bool) or value is None:
        return ("b", value)
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return ("n", int(value))
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, Mapping):
        return ("o", tuple(sorted(((str(k), _canonical(v)) for k, v in value.items()), key=repr)))
    if isinstance(value, list | tuple):
        return ("a", tuple(sorted((_canonical(item) for item in value), key=repr)))
    return ("x", repr(value))


def _has_wildcard(value: Any) -> bool:
    if value == WILDCARD:
        return True
    if isinstance(value, Mapping):
        return any(_has_wildcard(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_has_wildcard(item) for item in value)
    return False


def _canonical_once(value: Any, scope: Scope, wildcards: bool) -> Any:
    """The canonical form of `value` (None when `wildcards` and it has one), computed once per scope; the
    memo keeps the value itself so that its id stays its own."""
    if not isinstance(value, Mapping | list | tuple):
        return None if wildcards and value == WILDCARD else _canonical(value)
    key = ("canonical", id(value), wildcards)
    if key not in scope.memo:
        scope.memo[key] = (value, None if wildcards and _has_wildcard(value) else _canonical(value))
    return scope.memo[key][1]


def _equal_to_expected(wanted: Any, actual: Any, scope: Scope) -> bool:
    """`deep_equal`, with canonical forms computed once per scope."""
    canonical = _canonical_once(wanted, scope, wildcards=True)
    if canonical is None:
        return deep_equal(wanted, actual)
    return bool(canonical == _canonical_once(actual, scope, wildcards=False))


def deep_equal(expected: Any, actual: Any) -> bool:
    """Recursive equality: lists as multisets at every depth, a leaf `"*"` matches anything, no coercion."""
    if not _has_wildcard(expected):
        return bool(_canonical(expected) == _canonical(actual))
    if expected == WILDCARD:
        return True
    if isinstance(expected, Mapping):
        return (
            isinstance(actual, Mapping)
            and set(map(str, expected)) == set(map(str, actual))
            and all(deep_equal(value, actual[key]) for key, value in expected.items())
        )
    if isinstance(expected, list | tuple):
        return isinstance(actual, list | tuple) and _multiset_equal(list(expected), list(actual))
    return False


def _multiset_equal(expected: list[Any], actual: list[Any]) -> bool:
    """A one-to-one pairing of equal items exists (bipartite matching, as wildcards may match several)."""
    if len(expected) != len(actual):
        return False
    partner: dict[int, int] = {}  # actual index -> expected index

    def place(index: int, seen: set[int]) -> bool:
        for other, item in enumerate(actual):
            if other in seen or not deep_equal(expected[index], item):
                continue
            seen.add(other)
            if other not in partner or place(partner[other], seen):
                partner[other] = index
                return True
        return False

    return all(place(index, set()) for index in range(len(expected)))


# --- dates --------------------------------------------------------------------------------------------------

Interval = tuple[datetime, datetime]


def _interval(moment: date | datetime, scope: Scope) -> Interval:
    """An instant as a point, a date as its whole day in the evaluation zone."""
    if isinstance(moment, datetime):
        return moment, moment
    start = datetime.combine(moment, time(), scope.clock.zone)
    return start, start + timedelta(days=1) - timedelta(microseconds=1)


def _gap(a: Interval, b: Interval) -> timedelta:
    return max(timedelta(0), b[0] - a[1], a[0] - b[1])


def _describe_moment(moment: date | datetime) -> str:
    return f"the day {moment.isoformat()}" if not isinstance(moment, datetime) else moment.isoformat()


# --- matching -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Miss:
    """Why a value did not match: a sentence (built only when read), and the expected value as shown to a
    person."""

    why: str | Callable[[], str]
    expected: Any
    pattern: bool = False  # a regex did not match (PromptKit's `pattern_mismatch`)

    @property
    def reason(self) -> str:
        return self.why if isinstance(self.why, str) else self.why()


def expected_value(matcher: ExactMatcher | ContainsMatcher, scope: Scope) -> Any:
    """The matcher's expected value: its expression evaluated, else its literal; raises ExpressionError."""
    return evaluate(matcher.expression, scope) if matcher.expression is not None else matcher.value


def match(matcher: Matcher, actual: Any, scope: Scope, *, present: bool = True) -> Miss | None:
    """None when `actual` satisfies `matcher`, else why not. `present` False: the value is missing."""
    if matcher.optional and (not present or actual is None):
        return None
    if not present:
        return Miss("is missing", describe_matcher(matcher, scope))
    try:
        return _match_present(matcher, actual, scope)
    except ExpressionError as error:
        return Miss(f"cannot compute the expected value: {error}", None)
    except PatternError as error:
        return Miss(str(error), getattr(matcher, "pattern", None), pattern=True)


def _match_present(matcher: Matcher, actual: Any, scope: Scope) -> Miss | None:
    if isinstance(matcher, AnyMatcher):
        return None
    if isinstance(matcher, ExactMatcher):
        return _exact(matcher, actual, scope)
    if isinstance(matcher, ContainsMatcher):
        wanted = as_text(expected_value(matcher, scope))
        if wanted in as_text(actual):
            return None
        return Miss(lambda: f"does not contain {json.dumps(wanted, ensure_ascii=False)}", wanted)
    if isinstance(matcher, RegexMatcher):
        if regex_search(matcher.pattern, as_text(actual), matcher.flavor, matcher.ignore_case):
            return None
        return Miss(f"does not match /{matcher.pattern}/", matcher.pattern, pattern=True)
    if isinstance(matcher, DateMatcher):
        return _date(matcher, actual, scope)
    if isinstance(matcher, SchemaMatcher):
        from toolproof.core.schemas import schema_violation  # jsonschema: loaded only for schema checks

        problem = schema_violation(matcher.json_schema, actual)
        return (
            None
            if problem is None
            else Miss(f"is not valid against the schema: {problem}", matcher.json_schema)
        )
    if isinstance(matcher, TextMatcher):
        if go_v(actual) == go_v(matcher.value):
            return None
        return Miss(lambda: f"is not {json.dumps(go_v(matcher.value), ensure_ascii=False)}", matcher.value)
    return _one_of(matcher, actual, scope)


def _exact(matcher: ExactMatcher, actual: Any, scope: Scope) -> Miss | None:
    wanted = expected_value(matcher, scope)
    if isinstance(wanted, date):  # an expression gave a date or an instant: compare as such
        moment = parse_temporal(actual, scope.clock.zone)
        if (
            moment is not None
            and type(moment) is type(wanted)
            and _interval(moment, scope) == _interval(wanted, scope)
        ):
            return None
        return Miss(f"is not {_describe_moment(wanted)}", text_of(wanted))
    if _equal_to_expected(wanted, actual, scope):
        return None
    return Miss(lambda: f"is not {compact_json(wanted)}", wanted)


def _date(matcher: DateMatcher, actual: Any, scope: Scope) -> Miss | None:
    raw = evaluate(matcher.expression, scope) if matcher.expression is not None else matcher.value
    wanted = parse_temporal(raw, scope.clock.zone)
    if wanted is None:
        return Miss(f"the expected value {text_of(raw)!r} is not a date", text_of(raw))
    moment = parse_temporal(actual, scope.clock.zone)
    shown = text_of(wanted)
    if moment is None:
        return Miss("is not a date or date-time", shown)
    gap = _gap(_interval(moment, scope), _interval(wanted, scope))
    tolerance = timedelta(minutes=matcher.tolerance_minutes)
    if gap <= tolerance:
        return None
    minutes = gap.total_seconds() / 60
    within = f" (tolerance {matcher.tolerance_minutes:g} min)" if matcher.tolerance_minutes else ""
    return Miss(f"is {minutes:g} min away from {_describe_moment(wanted)}{within}", shown)


def _one_of(matcher: OneOfMatcher, actual: Any, scope: Scope) -> Miss | None:
    misses = []
    for variant in matcher.variants:
        miss = match(variant, actual, scope)
        if miss is None:
            return None
        misses.append(miss)

    def why() -> str:
        reasons = "; ".join(f"variant {number}: {miss.reason}" for number, miss in enumerate(misses, 1))
        return f"matches none of {len(misses)} variants ({reasons})"

    return Miss(why, [miss.expected for miss in misses])


def describe_matcher(matcher: Matcher, scope: Scope) -> Any:
    """The expected side of a matcher as a person reads it: an exact value as itself (expressions
    evaluated), any other matcher as `{kind: what}`."""
    if isinstance(matcher, ExactMatcher):
        try:
            return expected_value(matcher, scope)
        except ExpressionError:
            return {"expression": matcher.expression}
    if isinstance(matcher, ContainsMatcher):
        try:
            return {"contains": expected_value(matcher, scope)}
        except ExpressionError:
            return {"contains": {"expression": matcher.expression}}
    if isinstance(matcher, RegexMatcher):
        return {"regex": matcher.pattern}
    if isinstance(matcher, DateMatcher):
        shown = {"date": matcher.expression or matcher.value}
        return shown | ({"tolerance_minutes": matcher.tolerance_minutes} if matcher.tolerance_minutes else {})
    if isinstance(matcher, SchemaMatcher):
        return {"schema": matcher.json_schema}
    if isinstance(matcher, TextMatcher):
        return {"text": matcher.value}
    if isinstance(matcher, OneOfMatcher):
        return {"one_of": [describe_matcher(variant, scope) for variant in matcher.variants]}
    return "any value"


# --- whole argument objects --------------------------------------------------------------------------


def violation(
    kind: str, tool: str, argument: str, expected: Any, actual: Any, reason: str, pattern: bool = False
) -> dict[str, Any]:
    """One violation in PromptKit's shape, with a sentence saying what was expected and what was seen."""
    item: dict[str, Any] = {"type": kind, "tool": tool, "argument": argument}
    item["pattern" if pattern else "expected"] = expected
    item["actual"] = actual
    item["message"] = reason
    return item


Problem = tuple[str, str, Any, Any]  # (violation type, argument, Miss or matcher, actual value)


def _problems(check: CallCheck, arguments: Any, scope: Scope) -> Iterator[Problem]:
    """Each way `arguments` breaks the check's rules, cheaply: the sentences are built by the caller."""
    if not isinstance(arguments, Mapping):
        if check.arguments or check.strict or check.forbidden_arguments or check.forbidden_values:
            yield ("not_an_object", "", None, arguments)
        return
    for name, matcher in check.arguments.items():
        present = name in arguments
        miss = match(matcher, arguments.get(name), scope, present=present)
        if miss is not None:
            kind = (
                "missing_argument"
                if not present
                else "pattern_mismatch"
                if miss.pattern
                else "value_mismatch"
            )
            yield (kind, name, miss, arguments.get(name))
    if check.strict:
        for name in arguments:
            if name not in check.arguments:
                yield ("unexpected_argument", name, None, arguments[name])
    for name in check.forbidden_arguments:
        if name in arguments:
            yield ("forbidden_argument", name, None, arguments[name])
    for name, matcher in check.forbidden_values.items():
        for each in list(arguments) if name == ANY_ARGUMENT else [name] if name in arguments else []:
            if match(matcher, arguments[each], scope) is None:
                yield ("forbidden_value", each, matcher, arguments[each])


def count_violations(check: CallCheck, arguments: Any, scope: Scope, limit: int | None = None) -> int:
    """How many ways one call's arguments break the check's rules (no sentences built), counting no
    further than `limit`."""
    count = 0
    for _ in _problems(check, arguments, scope):
        count += 1
        if limit is not None and count >= limit:
            break
    return count


def argument_violations(check: CallCheck, arguments: Any, scope: Scope) -> list[dict[str, Any]]:
    """Every way `arguments` (one call's) breaks the check's expected, strict, forbidden rules."""
    found = []
    for kind, name, detail, actual in _problems(check, arguments, scope):
        if kind == "not_an_object":
            found.append(
                violation(
                    "value_mismatch",
                    check.name,
                    "",
                    "an argument object",
                    actual,
                    f"arguments are {as_text(actual)!r}, not an object",
                )
            )
        elif kind == "missing_argument":
            found.append(
                violation(kind, check.name, name, detail.expected, None, f"argument {name!r} is missing")
            )
        elif kind in ("pattern_mismatch", "value_mismatch"):
            found.append(
                violation(
                    kind,
                    check.name,
                    name,
                    detail.expected,
                    actual,
                    f"argument {name!r} = {compact_json(actual)} {detail.reason}",
                    pattern=detail.pattern,
                )
            )
        elif kind == "unexpected_argument":
            found.append(
                violation(kind, check.name, name, None, actual, f"argument {name!r} is not expected (strict)")
            )
        elif kind == "forbidden_argument":
            found.append(
                violation(kind, check.name, name, None, actual, f"argument {name!r} must not be passed")
            )
        else:
            found.append(
                violation(
                    kind,
                    check.name,
                    name,
                    describe_matcher(detail, scope),
                    actual,
                    f"argument {name!r} = {compact_json(actual)} is a forbidden value",
                )
            )
    return found
