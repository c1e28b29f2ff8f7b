"""The value matchers of toolproof's own scenario format (a literal, or a mapping with one of `exact`,
`contains`, `regex`, `date`, `one_of`, `any`, `schema`, `text`, `expr`), read into matcher classes."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from toolproof.load.reader import ISO_DATE, Reader
from toolproof.load.yaml_source import KeyPath
from toolproof.model.scenario import (
    AnyMatcher,
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    Matcher,
    OneOfMatcher,
    RegexMatcher,
    SchemaMatcher,
    TextMatcher,
)

MATCHER_KEYS = frozenset({"exact", "contains", "regex", "date", "one_of", "any", "schema", "text", "expr"})
MATCHER_OPTIONS = frozenset({"optional", "tolerance_minutes", "flavor", "ignore_case"})


class MatcherReader:
    """Reads matchers of one document; `context` holds the case's variables, which expressions may name."""

    r: Reader
    context: dict[str, Any]

    def matchers(self, value: Any, path: KeyPath) -> dict[str, Matcher]:
        data = self.r.mapping(value, path)
        found: dict[str, Matcher] = {}
        for name, item in (data or {}).items():
            matcher = self.matcher(item, (*path, name))
            if matcher is not None:
                found[name] = matcher
        return found

    def matcher(self, value: Any, path: KeyPath) -> Matcher | None:
        """A literal (exact) or a matcher mapping."""
        if not isinstance(value, dict) or not (MATCHER_KEYS & set(value)):
            return ExactMatcher(value=value)
        r = self.r
        kinds = [key for key in value if key in MATCHER_KEYS]
        if len(kinds) != 1:
            r.fail(path, f"a matcher has one of {', '.join(sorted(MATCHER_KEYS))}, found {', '.join(kinds)}")
            return None
        r.keys(value, path, {*MATCHER_KEYS, *MATCHER_OPTIONS})
        kind = kinds[0]
        given = value[kind]
        here = (*path, kind)
        options: dict[str, Any] = {}
        if "optional" in value:
            options["optional"] = r.boolean(value["optional"], (*path, "optional"))
        try:
            return self._matcher(kind, given, here, value, options)
        except ValidationError as error:
            r.fail(path, f"invalid matcher: {error.errors()[0]['msg']}")
            return None

    def _matcher(
        self, kind: str, given: Any, here: KeyPath, value: dict[str, Any], options: dict[str, Any]
    ) -> Matcher | None:
        r = self.r
        if kind == "exact":
            return ExactMatcher(value=given, **options)
        if kind == "expr":
            text = r.expression(given, here, self.context)
            return None if text is None else ExactMatcher(expression=text, **options)
        if kind == "contains":
            return ContainsMatcher(value=given, **options)
        if kind == "text":
            return TextMatcher(value=given, **options)
        if kind == "any":
            return AnyMatcher(**options)
        if kind == "schema":
            schema = r.mapping(given, here)
            return None if schema is None else SchemaMatcher(json_schema=schema, **options)
        if kind == "regex":
            pattern = r.text(given, here, scalars=False)
            extra = {key: value[key] for key in ("flavor", "ignore_case") if key in value}
            return (
                None
                if pattern is None
                else RegexMatcher(pattern=pattern, **{"flavor": "re2", **extra}, **options)
            )
        if kind == "date":
            text = r.text(given, here, scalars=False)
            if text is None:
                return None
            tolerance = (
                r.number(value.get("tolerance_minutes", 0), (*here[:-1], "tolerance_minutes"), low=0) or 0
            )
            if ISO_DATE.fullmatch(text.strip()):
                key, checked = "value", r.date(text, here)
            else:
                key, checked = "expression", r.expression(text, here, self.context)
            if checked is None:
                return None
            return DateMatcher(**{key: checked}, tolerance_minutes=tolerance, **options)
        if not isinstance(given, list) or not given:
            r.fail(here, "must be a non-empty list of values or matchers")
            return None
        variants = [self.matcher(item, (*here, index)) for index, item in enumerate(given)]
        if any(variant is None for variant in variants):
            return None
        return OneOfMatcher(variants=tuple(v for v in variants if v is not None), **options)
