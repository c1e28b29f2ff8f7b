"""`expect:` checks on one answer, in mcp-assert's order; the first failure is the verdict.

Every check is a pure function `(Expect, Observation) -> Failure | None` that looks only at its own field and
passes when the field is unset. File checks read `Observation.files_before` / `files_after`, keyed by the
paths exactly as they stand in the `Expect`: the runner fills `{{fixture}}` in the Expect's file paths first,
then reads the files under those paths, so both sides agree. A path the runner did not read is a bug in
toolproof and raises `LookupError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolproof.check.failures import fail, listed
from toolproof.check.rpc import check_cache_scope, check_error_code, check_error_data, check_ttl_ms
from toolproof.check.structured import check_structured, check_structured_schema
from toolproof.check.tasks import (
    check_task_error_code,
    check_task_max_ms,
    check_task_message,
    check_task_min_ms,
    check_task_states,
    check_task_status,
)
from toolproof.core.dotpath import NotJSONError, PathError, json_type, lookup, parse_json, read_json
from toolproof.core.gofmt import (
    ELLIPSIS,
    counted,
    cut,
    go_json,
    go_number,
    go_trim,
    go_v,
    is_empty_result,
    quote,
)
from toolproof.core.re2_patterns import RE2PatternError, compile_re2
from toolproof.model.observation import Observation
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import Expect

ExpectChecker = Callable[[Expect, Observation], Failure | None]

RESULT_FIELDS = ("locations", "items", "results", "references", "symbols")


def _seen(text: str) -> str:
    return f"text ({counted(len(text), 'char')}): {quote(text)}"


def _from_line(line: int) -> str:
    """Where a JSON document came from, when it is not the whole text."""
    return f" (JSON read from line {line}, the first line of the text that is JSON)" if line else ""


def _window(text: str, start: int, end: int) -> str:
    """About 300 characters of `text` around `[start, end)`, quoted, with ellipses where cut."""
    left = max(0, start - 100)
    right = min(len(text), max(end + 100, left + 300))
    snippet = (ELLIPSIS if left else "") + text[left:right] + (ELLIPSIS if right < len(text) else "")
    return quote(snippet, limit=None)


def _first_difference(left: str | bytes, right: str | bytes) -> int:
    for index, (a, b) in enumerate(zip(left, right, strict=False)):
        if a != b:
            return index
    return min(len(left), len(right))


def _decoded(content: bytes) -> str:
    return content.decode("utf-8", "replace")


def _recorded(files: Mapping[str, bytes | str | None], path: str, when: str) -> bytes | str | None:
    """What the runner read at `path`: bytes, None (absent), or why it could not read what is there."""
    if path not in files:
        raise LookupError(f"the runner did not read {path} {when} the call")
    return files[path]


def _unreadable(check: str, path: str, why: str, expected: Any = None) -> Failure:
    message = f"{path} exists after the call but cannot be read as a file ({why})"
    return fail(check, message, expected, None, path=path)


def check_not_error(expect: Expect, obs: Observation) -> Failure | None:
    if not expect.not_error or not obs.is_error:
        return None
    return Failure(
        kind=FailureKind.TOOL_ERROR,
        check="not_error",
        expected="isError: false",
        actual="isError: true",
        message=f"not_error: the tool returned isError=true; {_seen(obs.text)}",
    )


def check_is_error(expect: Expect, obs: Observation) -> Failure | None:
    if not expect.is_error or obs.is_error:
        return None
    return fail(
        "is_error",
        f"expected isError=true, the tool succeeded; {_seen(obs.text)}",
        "isError: true",
        "isError: false",
    )


def check_not_empty(expect: Expect, obs: Observation) -> Failure | None:
    if not expect.not_empty or not is_empty_result(obs.text):
        return None
    return fail("not_empty", f"expected a non-empty result, got {_seen(obs.text)}", "non-empty", obs.text)


def check_equals(expect: Expect, obs: Observation) -> Failure | None:
    if expect.equals is None:
        return None
    want, got = go_trim(expect.equals), go_trim(obs.text)
    if want == got:
        return None
    at = _first_difference(want, got)
    shown_want = f"({counted(len(want), 'char')}) {_window(want, at, at)}"
    shown_got = f"({counted(len(got), 'char')}) {_window(got, at, at)}"
    message = (
        f"text differs from the expected value at char {at} (both trimmed): expected {shown_want}, "
        f"got {shown_got}"
    )
    return fail("equals", message, expect.equals, obs.text)


def check_contains(expect: Expect, obs: Observation) -> Failure | None:
    missing = [needle for needle in expect.contains or [] if needle not in obs.text]
    if not missing:
        return None
    return fail(
        "contains",
        f"{listed(missing)} not found in {_seen(obs.text)}",
        expect.contains,
        obs.text,
        missing=missing,
    )


def check_contains_any(expect: Expect, obs: Observation) -> Failure | None:
    options = expect.contains_any or []
    if not options or any(needle in obs.text for needle in options):
        return None
    return fail("contains_any", f"none of {listed(options)} found in {_seen(obs.text)}", options, obs.text)


def check_not_contains(expect: Expect, obs: Observation) -> Failure | None:
    found = [needle for needle in expect.not_contains or [] if needle in obs.text]
    if not found:
        return None
    first = found[0]
    at = obs.text.index(first)
    also = f" (also found: {listed(found[1:])})" if found[1:] else ""
    return fail(
        "not_contains",
        f"{quote(first, 80)} found at char {at}{also} in text ({counted(len(obs.text), 'char')}): "
        f"{_window(obs.text, at, at + len(first))}",
        expect.not_contains,
        obs.text,
        found=found,
    )


def check_matches_regex(expect: Expect, obs: Observation) -> Failure | None:
    patterns = expect.matches_regex or []
    try:
        compiled = [compile_re2(pattern) for pattern in patterns]
    except RE2PatternError as error:
        return fail("matches_regex", str(error), error.pattern, obs.text)
    unmatched = [regex.pattern for regex in compiled if regex.search(obs.text) is None]
    if not unmatched:
        return None
    noun = "pattern" if len(unmatched) == 1 else "patterns"
    return fail(
        "matches_regex",
        f"{noun} {listed(unmatched)} did not match {_seen(obs.text)}",
        patterns,
        obs.text,
        unmatched=unmatched,
    )


def check_json_path(expect: Expect, obs: Observation) -> Failure | None:
    """Each path's value must equal the expected one by Go `%v` text (`36` == `"36"`), numbers exact."""
    if not expect.json_path:
        return None
    try:
        document, line = read_json(obs.text)
    except NotJSONError as error:
        return fail("json_path", f"{error}; {_seen(obs.text)}", expect.json_path, obs.text)
    for path in sorted(expect.json_path):  # sorted, as mcp-assert, so the same path is reported first
        expected = expect.json_path[path]
        try:
            actual = lookup(document, path)
        except PathError as error:
            return fail("json_path", f"{error}{_from_line(line)}", expected, None, path=path)
        if go_v(actual) != go_v(expected):
            shown = f"expected {cut(go_json(expected), 200)}, got {cut(go_json(actual), 200)}"
            message = f"{path}: {shown}{_from_line(line)}"
            return fail("json_path", message, expected, actual, path=path)
    return None


def _result_count(check: str, obs: Observation) -> tuple[int, str] | Failure:
    """How many results the text holds, and where they were counted; or why they cannot be counted."""
    try:
        document, line = read_json(obs.text)
    except NotJSONError as error:
        return fail(check, f"cannot count results: {error}; {_seen(obs.text)}", None, obs.text)
    if document is None:
        return 0, f"JSON null{_from_line(line)}"
    if isinstance(document, list):
        return len(document), f"the top-level array{_from_line(line)}"
    if isinstance(document, Mapping):
        for field in RESULT_FIELDS:
            if isinstance(document.get(field), list):
                return len(document[field]), f"the array {quote(field)}{_from_line(line)}"
        fields = ", ".join(RESULT_FIELDS)
        keys = ", ".join(quote(str(key), 40) for key in list(document)[:20]) or "none"
        why = f"the JSON object has none of the array fields {fields} (its keys: {keys}){_from_line(line)}"
    else:
        kind = json_type(document)
        why = f"the JSON is a {kind}, not an array or an object{_from_line(line)}; {_seen(obs.text)}"
    return fail(check, f"cannot count results: {why}", None, obs.text)


def check_min_results(expect: Expect, obs: Observation) -> Failure | None:
    if expect.min_results is None:
        return None
    result = _result_count("min_results", obs)
    if isinstance(result, Failure):
        return result
    count, where = result
    if count >= expect.min_results:
        return None
    message = f"expected at least {counted(expect.min_results, 'result')}, got {count} in {where}"
    return fail("min_results", message, expect.min_results, count)


def check_max_results(expect: Expect, obs: Observation) -> Failure | None:
    if expect.max_results is None:
        return None
    result = _result_count("max_results", obs)
    if isinstance(result, Failure):
        return result
    count, where = result
    if count <= expect.max_results:
        return None
    message = f"expected at most {counted(expect.max_results, 'result')}, got {count} in {where}"
    return fail("max_results", message, expect.max_results, count)


def check_net_delta(expect: Expect, obs: Observation) -> Failure | None:
    """The integer part of the object's `net_delta` number; the whole text must be JSON (no line fallback)."""
    if expect.net_delta is None:
        return None
    try:
        document = parse_json(obs.text)
    except NotJSONError as error:
        why = f"the text is not JSON ({error}); {_seen(obs.text)}"
        return fail("net_delta", why, expect.net_delta, None)
    value = document.get("net_delta") if isinstance(document, Mapping) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return fail(
            "net_delta",
            f'no number field "net_delta" in the JSON {json_type(document)}; {_seen(obs.text)}',
            expect.net_delta,
            None,
        )
    if int(value) == expect.net_delta:
        return None
    return fail("net_delta", f"expected {expect.net_delta}, got {go_number(value)}", expect.net_delta, value)


def check_file_contains(expect: Expect, obs: Observation) -> Failure | None:
    for path, needle in (expect.file_contains or {}).items():
        content = _recorded(obs.files_after, path, "after")
        if content is None:
            return fail("file_contains", f"{path} does not exist after the call", needle, None, path=path)
        if isinstance(content, str):
            return _unreadable("file_contains", path, content, needle)
        if needle.encode() not in content:
            text = _decoded(content)
            size = counted(len(content), "byte")
            message = f"{quote(needle, 80)} not found in {path} ({size}): {quote(text)}"
            return fail("file_contains", message, needle, text, path=path)
    return None


def check_file_not_contains(expect: Expect, obs: Observation) -> Failure | None:
    for path, needle in (expect.file_not_contains or {}).items():
        content = _recorded(obs.files_after, path, "after")
        if content is None:
            why = f"{path} does not exist after the call"
            return fail("file_not_contains", why, needle, None, path=path)
        if isinstance(content, str):
            return _unreadable("file_not_contains", path, content, needle)
        if needle.encode() in content:
            text = _decoded(content)
            at = text.find(needle)
            size = counted(len(content), "byte")
            message = f"{quote(needle, 80)} found in {path} ({size}): {_window(text, at, at + len(needle))}"
            return fail("file_not_contains", message, needle, text, path=path)
    return None


def check_file_not_exists(expect: Expect, obs: Observation) -> Failure | None:
    for path in expect.file_not_exists or []:
        content = _recorded(obs.files_after, path, "after")
        if isinstance(content, str):
            why = f"{path} exists after the call ({content})"
            return fail("file_not_exists", why, None, None, path=path)
        if content is not None:
            return fail(
                "file_not_exists",
                f"{path} exists after the call ({counted(len(content), 'byte')})",
                None,
                _decoded(content),
                path=path,
            )
    return None


def check_in_order(expect: Expect, obs: Observation) -> Failure | None:
    """Each string must occur after the end of the previous one's first occurrence (greedy)."""
    text, position, previous = obs.text, 0, None
    for needle in expect.in_order or []:
        at = text.find(needle, position)
        if at < 0:
            where = ""
            if previous is not None:
                where = f" after {quote(previous, 80)} (which ends at char {position})"
                earlier = text.find(needle)
                if earlier >= 0:
                    where += f", it occurs only earlier, at char {earlier},"
            return fail(
                "in_order",
                f"{quote(needle, 80)} not found{where} in {_seen(text)}",
                expect.in_order,
                text,
                missing=needle,
            )
        position, previous = at + len(needle), needle
    return None


def check_file_unchanged(expect: Expect, obs: Observation) -> Failure | None:
    for path in expect.file_unchanged or []:
        before = _recorded(obs.files_before, path, "before")
        after = _recorded(obs.files_after, path, "after")
        if before is None:
            return fail("file_unchanged", f"{path} did not exist before the call", None, None, path=path)
        if isinstance(before, str) or isinstance(after, str):
            reason = before if isinstance(before, str) else str(after)
            why = f"{path} cannot be read as a file ({reason})"
            return fail("file_unchanged", why, None, None, path=path)
        if after is None:
            why = f"{path} was deleted by the call"
            return fail("file_unchanged", why, _decoded(before), None, path=path)
        if before != after:
            at = _first_difference(before, after)
            return fail(
                "file_unchanged",
                f"{path} was modified by the call ({len(before)} -> {len(after)} bytes, first difference at "
                f"byte {at})",
                _decoded(before),
                _decoded(after),
                path=path,
            )
    return None


def check_min_progress(expect: Expect, obs: Observation) -> Failure | None:
    if expect.min_progress is None or obs.progress_count >= expect.min_progress:
        return None
    return fail(
        "min_progress",
        f"expected at least {expect.min_progress} notifications/progress during the "
        f"call, got {obs.progress_count}",
        expect.min_progress,
        obs.progress_count,
    )


CHECKS: tuple[tuple[str, ExpectChecker], ...] = (
    ("task.status", check_task_status),
    ("task.states", check_task_states),
    ("task.error_code", check_task_error_code),
    ("task.message", check_task_message),
    ("task.min_ms", check_task_min_ms),
    ("task.max_ms", check_task_max_ms),
    ("not_error", check_not_error),
    ("is_error", check_is_error),
    ("not_empty", check_not_empty),
    ("equals", check_equals),
    ("contains", check_contains),
    ("contains_any", check_contains_any),
    ("not_contains", check_not_contains),
    ("matches_regex", check_matches_regex),
    ("json_path", check_json_path),
    ("min_results", check_min_results),
    ("max_results", check_max_results),
    ("net_delta", check_net_delta),
    ("file_contains", check_file_contains),
    ("file_not_contains", check_file_not_contains),
    ("file_not_exists", check_file_not_exists),
    ("in_order", check_in_order),
    ("file_unchanged", check_file_unchanged),
    ("min_progress", check_min_progress),
    ("structured", check_structured),
    ("structured_schema", check_structured_schema),
    ("ttl_ms", check_ttl_ms),
    ("cache_scope", check_cache_scope),
    ("error_code", check_error_code),
    ("error_data", check_error_data),
)
"""mcp-assert's order: its `Check` registry, then `file_unchanged`, then `min_progress`;
toolproof's own checks on structuredContent, then on cache hints and the JSON-RPC error, come last, and on the
task a call was answered with first (how the task ended decides whether there is a result to check)."""


def check_expect(expect: Expect, obs: Observation) -> Failure | None:
    """The first failing check in `CHECKS` order, or None when every expectation holds."""
    for _name, check in CHECKS:
        failure = check(expect, obs)
        if failure is not None:
            return failure
    return None
