"""`expect:` checks: order, verdicts (many verified with mcp-assert 0.12.3), messages, failure fields."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolproof.check.expect import CHECKS, check_expect
from toolproof.model.observation import Observation
from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import Expect


def check(expect: dict[str, Any], text: str = "", **observed: Any) -> Failure | None:
    return check_expect(Expect.model_validate(expect), Observation(text=text, **observed))


def failed(expect: dict[str, Any], text: str = "", **observed: Any) -> Failure:
    failure = check(expect, text, **observed)
    assert failure is not None
    return failure


def test_registry_follows_mcp_assert_order() -> None:
    assert [name for name, _ in CHECKS] == [
        "task.status", "task.states", "task.error_code", "task.message", "task.min_ms", "task.max_ms",
        "not_error", "is_error", "not_empty", "equals", "contains", "contains_any", "not_contains",
        "matches_regex", "json_path", "min_results", "max_results", "net_delta", "file_contains",
        "file_not_contains", "file_not_exists", "in_order", "file_unchanged", "min_progress",
        "structured", "structured_schema",  # toolproof's own, after mcp-assert's
        "ttl_ms", "cache_scope", "error_code", "error_data",
    ]


def test_every_expect_field_has_a_check() -> None:
    assert {name.split(".")[0] for name, _ in CHECKS} == set(Expect.model_fields)  # task.*: fields of task


def test_an_empty_expect_passes_anything() -> None:
    assert check({}, "whatever", is_error=True) is None


def test_first_failure_short_circuits() -> None:
    failure = failed({"not_error": True, "contains": ["nope"], "min_progress": 3}, "boom", is_error=True)
    assert failure.check == "not_error"
    failure = failed({"in_order": ["z"], "contains": ["nope"]}, "abc")
    assert failure.check == "contains"


# (text, expect, passes) as mcp-assert 0.12.3 judged them, run against a raw echo server on 2026-11-22.
# A text starting with "ERR:" came back with isError: true.
MCP_ASSERT_VERDICTS: list[tuple[str, dict[str, Any], bool]] = [
    ("ERR: boom", {"is_error": False}, True),  # is_error: false checks nothing
    ("ERR: boom", {"not_error": False}, True),
    ("ERR: boom", {"is_error": True, "contains": ["boom"]}, True),
    ("ERR: boom", {"is_error": True, "not_error": True}, False),
    ("ERR: boom", {}, True),
    ("  \n\t ", {"not_empty": True}, False),
    (" [] ", {"not_empty": True}, False),
    ("[ ]", {"not_empty": True}, True),
    ("{}", {"not_empty": False}, True),
    ("\u00a0", {"not_empty": True}, False),  # Go's TrimSpace removes U+00A0
    ("a  b", {"equals": "a b"}, False),
    ("\n hello \n", {"equals": "  hello"}, True),
    ("   ", {"equals": ""}, True),
    ("abc", {"contains": [""]}, True),
    ("abc", {"contains_any": []}, True),
    ("x", {"not_contains": [""]}, False),
    ("abc", {"matches_regex": ["(?=a)"]}, False),
    ("ab", {"matches_regex": [r"(a)\1"]}, False),
    ("abc", {"matches_regex": ["^b"]}, False),
    ("a\nb", {"matches_regex": ["(?m)^b$"]}, True),
    ("Hello", {"matches_regex": ["(?i)hello"]}, True),
    ("é", {"matches_regex": [r"^\w$"]}, False),
    ("é", {"matches_regex": ["^.$"]}, True),
    ("abab", {"in_order": ["ab", "ab"]}, True),
    ("aba", {"in_order": ["ab", "ba"]}, False),
    ("abc", {"in_order": ["", "c"]}, True),
    ('{"a": 36}', {"json_path": {"$.a": "36"}}, True),
    ('{"a": "36"}', {"json_path": {"$.a": 36}}, True),
    ('{"a": true}', {"json_path": {"$.a": "true"}}, True),
    ('{"a": 1.5}', {"json_path": {"$.a": 1.5}}, True),
    ('{"a": 1.0}', {"json_path": {"$.a": 1}}, True),
    ('{"a": 0.1}', {"json_path": {"$.a": 0.1}}, True),
    ('{"a": 100000}', {"json_path": {"$.a": 100000}}, True),
    ('{"a": 100000.5}', {"json_path": {"$.a": "100000.5"}}, True),
    ('{"a": 1e-7}', {"json_path": {"$.a": "1e-07"}}, True),
    ('{"a": null}', {"json_path": {"$.a": None}}, True),
    ('{"a": null}', {"json_path": {"$.a": "<nil>"}}, True),
    ('{"a": "é"}', {"json_path": {"$.a": "é"}}, True),
    ('{"a": {"y": 2, "x": [1, "s"]}}', {"json_path": {"$.a": "map[x:[1 s] y:2]"}}, True),
    ('{"a": [1,2]}', {"json_path": {"$.a": [1, 2]}}, True),
    ('{"a": [1, 2]}', {"json_path": {"$.a": "[1 2]"}}, True),
    ('{"a": {}}', {"json_path": {"$.a": "map[]"}}, True),
    ('{"a": {"b": [1, {"c": true}]}}', {"json_path": {"$.a.b[1].c": True}}, True),
    ('{"a": [{"b": 7}]}', {"json_path": {"$.a[0].b": 7}}, True),
    ('{"a": 5}', {"json_path": {"a": 5}}, True),
    ('{"b": 1, "a": 2}', {"json_path": {"$.b": 2, "$.a": 1}}, False),
    ('{"a": {"b": 7}}', {"json_path": {"$.a.c": 7}}, False),
    ('{"a": [1]}', {"json_path": {"$.a[3]": 7}}, False),
    ('"str"', {"json_path": {"$.a": 1}}, False),
    ("not json", {"json_path": {"$.a": 5}}, False),
    ("", {"json_path": {"$.a": 5}}, False),
    ("x\ny", {"json_path": {"$.a": 5}}, False),
    ("{bad", {"json_path": {"$.a": 5}}, False),
    ('{"a": NaN}', {"json_path": {"$.a": "NaN"}}, False),
    ('{"a": 1e400}', {"json_path": {"$.a": 1}}, False),
    ('head line\n{"a": 5}\n{"a": 6}', {"json_path": {"$.a": 5}}, True),
    ('{"a":\n 5}', {"json_path": {"$.a": 5}}, True),
    ('{"a": 5}\ntrailing', {"json_path": {"$.a": 5}}, True),
    ('  {"a": 5}  ', {"json_path": {"$.a": 5}}, True),
    ('x\n   {"a": 5}   \n', {"json_path": {"$.a": 5}}, True),
    ('x\r\n{"a": 5}\r\n', {"json_path": {"$.a": 5}}, True),
    ('x\n42\n{"a": 5}', {"json_path": {"$.a": 5}}, False),  # the first JSON line is 42
    ('x\n"s"\n{"a": 5}', {"json_path": {"$.a": 5}}, False),
    ("[1,2,3]", {"min_results": 3, "max_results": 3}, True),
    ("[1,2,3]", {"min_results": 4}, False),
    ("[1,2,3]", {"max_results": 2}, False),
    ("[]", {"max_results": 0}, True),
    ('{"items": [1], "results": [1,2]}', {"min_results": 2}, False),  # "items" comes first
    ('{"results": [1,2], "items": 5}', {"min_results": 2}, True),  # a non-array field is passed over
    ('{"items": []}', {"min_results": 1}, False),
    ('{"items": []}', {"max_results": 0}, True),
    ('{"items": null}', {"min_results": 0}, False),
    ('{"entities": [], "relations": []}', {"max_results": 5}, False),
    ('{"entities": [], "relations": []}', {"min_results": 0}, False),
    ("not json", {"min_results": 0}, False),
    ('"str"', {"min_results": 0}, False),
    ("null", {"min_results": 0}, True),  # JSON null counts as no results
    ("x\n[1,2]", {"min_results": 2}, True),  # the first-line fallback applies here too
    ('x\n{"items": [1, 2]}', {"min_results": 2}, True),
    ("x\nnull", {"min_results": 0}, True),
    ("x\nnull", {"min_results": 1}, False),
    ('{"net_delta": 2}', {"net_delta": 2}, True),
    ('{"net_delta": 2.7}', {"net_delta": 2}, True),  # Go's int() truncates
    ('{"net_delta": -2.7}', {"net_delta": -2}, True),
    ('{"net_delta": 3}', {"net_delta": 2}, False),
    ('{"net_delta": "2"}', {"net_delta": 2}, False),
    ('{"net_delta": true}', {"net_delta": 1}, False),
    ('x\n{"net_delta": 2}', {"net_delta": 2}, False),  # no first-line fallback for net_delta
    ("[1]", {"net_delta": 2}, False),
    ('{"a": 1}', {"net_delta": 2}, False),
    ("null", {"net_delta": 0}, False),
]


@pytest.mark.parametrize(("text", "expect", "passes"), MCP_ASSERT_VERDICTS)
def test_verdicts_match_mcp_assert(text: str, expect: dict[str, Any], passes: bool) -> None:
    assert (check(expect, text, is_error=text.startswith("ERR:")) is None) is passes


# Where toolproof deliberately differs from mcp-assert 0.12.3 (which FAILs every one of these).
@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ('{"a": 1234567}', {"json_path": {"$.a": 1234567}}),  # Go: "1.234567e+06" != "1234567"
        ('{"a": 12345678901234567890}', {"json_path": {"$.a": 12345678901234567890}}),
        ("[[1,2],[3,4]]", {"json_path": {"$[1][0]": 3}}),  # Go: cannot index a top-level array
        ('x\n[1,2]\n{"a": 5}', {"json_path": {"$[0]": 1}}),
        ('{"a": 5}', {"json_path": {"$": "map[a:5]"}}),  # Go: looks for a key named "$"
    ],
)
def test_deliberate_differences_from_mcp_assert(text: str, expect: dict[str, Any]) -> None:
    assert check(expect, text) is None


def test_not_error_is_a_tool_error_quoting_the_text() -> None:
    failure = failed({"not_error": True}, "file not found: /x", is_error=True)
    assert failure.kind is FailureKind.TOOL_ERROR
    assert failure.check == "not_error"
    assert failure.message == (
        'not_error: the tool returned isError=true; text (18 chars): "file not found: /x"'
    )
    assert (failure.expected, failure.actual) == ("isError: false", "isError: true")


def test_is_error_failure() -> None:
    failure = failed({"is_error": True}, "fine")
    assert failure.kind is FailureKind.EXPECTATION
    assert failure.message == 'is_error: expected isError=true, the tool succeeded; text (4 chars): "fine"'


def test_not_empty_failure() -> None:
    assert failed({"not_empty": True}, " null\n").message == (
        'not_empty: expected a non-empty result, got text (6 chars): " null\\n"'
    )


def test_contains_quotes_an_excerpt_of_long_text() -> None:
    text = "Hello wor" + "x" * 303
    failure = failed({"contains": ["Hello", "absent", "gone"]}, text)
    assert failure.kind is FailureKind.EXPECTATION
    assert failure.check == "contains"
    assert failure.message == f'contains: "absent", "gone" not found in text (312 chars): "{text[:300]}…"'
    assert failure.expected == ["Hello", "absent", "gone"]
    assert failure.actual == text
    assert failure.details == {"missing": ["absent", "gone"]}


def test_contains_unicode_and_single_string() -> None:
    assert check({"contains": "naïve ☃"}, "a naïve ☃ snowman") is None
    assert failed({"contains": "☃☃"}, "☃").message == 'contains: "☃☃" not found in text (1 char): "☃"'


def test_contains_any_and_not_contains_messages() -> None:
    assert failed({"contains_any": ["a", "b"]}, "xyz").message == (
        'contains_any: none of "a", "b" found in text (3 chars): "xyz"'
    )
    text = "." * 500 + "secret" + "." * 10
    failure = failed({"not_contains": ["secret", "nope", "."]}, text)
    assert failure.message.startswith(
        'not_contains: "secret" found at char 500 (also found: ".") in text (516 chars): "…'
    )
    assert '…' + "." * 100 + "secret" + "." * 10 + '"' in failure.message
    assert failure.details == {"found": ["secret", "."]}


def test_equals_points_at_the_first_difference() -> None:
    failure = failed({"equals": "hello world"}, "  hello there\n")
    assert failure.message == (
        'equals: text differs from the expected value at char 6 (both trimmed): '
        'expected (11 chars) "hello world", got (11 chars) "hello there"'
    )
    assert (failure.expected, failure.actual) == ("hello world", "  hello there\n")


def test_equals_reads_a_yaml_number_as_go_does() -> None:
    assert check({"equals": 42}, "42\n") is None


def test_matches_regex_messages() -> None:
    failure = failed({"matches_regex": ["a+", "(?=x)"]}, "aaa")
    assert failure.message == 'matches_regex: invalid RE2 pattern "(?=x)": invalid perl operator: (?='
    assert failure.expected == "(?=x)"
    failure = failed({"matches_regex": [r"\d+", "z", "a"]}, "abc")
    assert failure.message == 'matches_regex: patterns "\\\\d+", "z" did not match text (3 chars): "abc"'
    assert failure.details == {"unmatched": [r"\d+", "z"]}


def test_json_path_messages() -> None:
    text = '{"user": {"name": "alice", "age": 36}}'
    failure = failed({"json_path": {"$.user.age": 36, "$.user.name": "bob"}}, text)
    assert failure.message == 'json_path: $.user.name: expected "bob", got "alice"'
    assert (failure.expected, failure.actual, failure.details) == ("bob", "alice", {"path": "$.user.name"})
    assert failed({"json_path": {"$.a": 5}}, "nope").message == (
        'json_path: the text is not JSON (Expecting value: line 1 column 1 (char 0)); text (4 chars): "nope"'
    )
    assert failed({"json_path": {"$.a.b": 1}}, 'Result:\n{"a": {"c": 1}}').message == (
        'json_path: $.a.b: no key "b" in the object at $.a (keys: "c") '
        "(JSON read from line 2, the first line of the text that is JSON)"
    )
    assert failed({"json_path": {"$.a": True}}, '{"a": "True"}').message == (
        'json_path: $.a: expected true, got "True"'
    )


def test_json_path_bad_syntax_fails_the_check() -> None:
    assert failed({"json_path": {"$.a[x]": 1}}, '{"a": [1]}').message == (
        'json_path: bad path "$.a[x]": index [x] is not a non-negative integer'
    )


def test_results_messages() -> None:
    assert failed({"min_results": 4}, "[1, 2, 3]").message == (
        "min_results: expected at least 4 results, got 3 in the top-level array"
    )
    assert failed({"max_results": 1}, '{"symbols": [1, 2]}').message == (
        'max_results: expected at most 1 result, got 2 in the array "symbols"'
    )
    assert failed({"min_results": 1}, '{"entities": []}').message == (
        "min_results: cannot count results: the JSON object has none of the array fields locations, items, "
        'results, references, symbols (its keys: "entities")'
    )
    assert failed({"max_results": 1}, "7").message == (
        "max_results: cannot count results: the JSON is a number, not an array or an object; "
        'text (1 char): "7"'
    )


def test_net_delta_messages() -> None:
    assert failed({"net_delta": 0}, '{"net_delta": 2}').message == "net_delta: expected 0, got 2"
    assert failed({"net_delta": 0}, '{"net": 2}').message == (
        'net_delta: no number field "net_delta" in the JSON object; text (10 chars): "{\\"net\\": 2}"'
    )


def test_in_order_messages() -> None:
    assert failed({"in_order": ["first", "second"]}, "second then first").message == (
        'in_order: "second" not found after "first" (which ends at char 17), it occurs only earlier, '
        'at char 0, in text (17 chars): "second then first"'
    )
    assert failed({"in_order": ["zzz"]}, "abc").message == (
        'in_order: "zzz" not found in text (3 chars): "abc"'
    )


@given(st.lists(st.text(max_size=4), max_size=5), st.lists(st.text(max_size=4), max_size=6))
def test_in_order_passes_on_its_parts_interleaved_with_filler(parts: list[str], filler: list[str]) -> None:
    text = "".join(part + (filler[i] if i < len(filler) else "") for i, part in enumerate(parts))
    assert check({"in_order": parts}, text) is None


@given(st.lists(st.text(alphabet="ab", max_size=3), min_size=1, max_size=4), st.text(alphabet="ab"))
def test_in_order_fails_when_a_part_is_absent(parts: list[str], text: str) -> None:
    failure = check({"in_order": [*parts, "c"]}, text)
    assert failure is not None
    assert failure.check == "in_order"


def test_file_checks_read_the_recorded_contents() -> None:
    files = {"/f/a.txt": "héllo wörld".encode(), "/f/gone": None}
    expect = {
        "file_contains": {"/f/a.txt": "wörld"}, "file_not_contains": {"/f/a.txt": "bye"},
        "file_not_exists": ["/f/gone"],
    }
    assert check(expect, files_after=files) is None
    assert failed({"file_contains": {"/f/a.txt": "bye"}}, files_after=files).message == (
        'file_contains: "bye" not found in /f/a.txt (13 bytes): "héllo wörld"'
    )
    assert failed({"file_contains": {"/f/gone": "x"}}, files_after=files).message == (
        "file_contains: /f/gone does not exist after the call"
    )
    assert failed({"file_not_contains": {"/f/a.txt": "wö"}}, files_after=files).message == (
        'file_not_contains: "wö" found in /f/a.txt (13 bytes): "héllo wörld"'
    )
    assert failed({"file_not_contains": {"/f/gone": "x"}}, files_after=files).check == "file_not_contains"
    failure = failed({"file_not_exists": ["/f/a.txt"]}, files_after=files)
    assert failure.message == "file_not_exists: /f/a.txt exists after the call (13 bytes)"
    assert failure.details == {"path": "/f/a.txt"}


def test_file_contains_compares_bytes() -> None:
    assert check({"file_contains": {"/bin": "ok"}}, files_after={"/bin": b"\xff\xfeok\x00"}) is None


def test_a_path_the_runner_did_not_read_is_a_bug() -> None:
    with pytest.raises(LookupError, match="the runner did not read /x after the call"):
        check({"file_not_exists": ["/x"]})


def test_file_unchanged() -> None:
    same = {"/a": b"one"}
    assert check({"file_unchanged": ["/a"]}, files_before=same, files_after=same) is None
    assert failed({"file_unchanged": ["/a"]}, files_before=same, files_after={"/a": b"onE!"}).message == (
        "file_unchanged: /a was modified by the call (3 -> 4 bytes, first difference at byte 2)"
    )
    assert failed({"file_unchanged": ["/a"]}, files_before=same, files_after={"/a": None}).message == (
        "file_unchanged: /a was deleted by the call"
    )
    # mcp-assert fails a file that did not exist before the call ("no snapshot"): so does toolproof
    absent = {"/a": None}
    assert failed({"file_unchanged": ["/a"]}, files_before=absent, files_after=absent).message == (
        "file_unchanged: /a did not exist before the call"
    )


def test_min_progress() -> None:
    assert check({"min_progress": 2}, progress_count=2) is None
    failure = failed({"min_progress": 2}, progress_count=1)
    assert failure.message == (
        "min_progress: expected at least 2 notifications/progress during the call, got 1"
    )
    assert (failure.expected, failure.actual) == (2, 1)
