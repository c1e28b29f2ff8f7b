"""Durations, failure kinds, values and failure details in words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolproof.core.sanitize import Scrubber
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.report.describe import (
    capped,
    case_ids,
    display_name,
    failure_lines,
    format_duration,
    jsonable,
    kind_label,
    one_line,
    shorten,
    stderr_tail,
    value_text,
)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.0, "0ms"), (0.0004, "0ms"), (0.012, "12ms"), (0.9994, "999ms"), (0.9996, "1.0s"), (3.21, "3.2s")],
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize(
    ("failure", "label"),
    [
        (Failure(kind=FailureKind.TOOL_ERROR, message=""), "tool error"),
        (Failure(kind=FailureKind.RPC_ERROR, message="", details={"code": -32602}), "JSON-RPC error -32602"),
        (Failure(kind=FailureKind.RPC_ERROR, message="", details={"code": "x"}), "JSON-RPC error"),
        (Failure(kind=FailureKind.TRANSPORT, message=""), "transport failure"),
        (Failure(kind=FailureKind.TIMEOUT, message=""), "timeout"),
        (Failure(kind=FailureKind.PROTOCOL, message=""), "protocol violation"),
        (Failure(kind=FailureKind.EXPECTATION, message=""), "expectation failed"),
        (Failure(kind=FailureKind.EXPECTATION, message="", check="equals"), "expectation failed (equals)"),
        (Failure(kind=FailureKind.SETUP, message=""), "setup failed"),
        (Failure(kind=FailureKind.CONFIG, message=""), "configuration error"),
    ],
)
def test_kind_label(failure: Failure, label: str) -> None:
    assert kind_label(failure) == label


def test_display_name_numbers_trials_on_request() -> None:
    result = CaseResult(name="n", file=Path("f.yaml"), status=Status.PASS, trial=2)
    assert display_name(result, numbered=True) == "n [trial 2]"
    assert display_name(result, numbered=False) == "n"


def test_one_line() -> None:
    assert one_line("a\nb\tc") == "a b c"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (b"caf\xc3\xa9 \xff", "café \ufffd"),
        (float("nan"), "nan"),
        ({1: (1, 2), "s": {3, 1}}, {"1": [1, 2], "s": [1, 3]}),
        (Path("p"), "p"),
        (
            Failure(kind=FailureKind.TIMEOUT, message="m"),
            {
                "kind": "timeout",
                "message": "m",
                "check": None,
                "expected": None,
                "actual": None,
                "details": {},
            },
        ),
    ],
)
def test_jsonable(value: Any, expected: Any) -> None:
    assert jsonable(value) == expected


def test_value_text() -> None:
    assert value_text("as is") == "as is"
    assert value_text("as is", as_json=True) == '"as is"'
    assert value_text({"a": [1, "é"]}) == '{"a": [1, "é"]}'


def test_capped_keeps_small_values_and_cuts_large_ones_saying_how_much() -> None:
    assert capped("abc", 3) == "abc"
    assert capped({"a": 1}, 8) == {"a": 1}
    assert capped("abcdef", 4) == "abcd... (2 more characters)"
    assert capped({"a": "xyz"}, 8) == '{"a": "x... (4 more characters)'


def test_case_ids_number_same_named_cases_of_a_file_in_order() -> None:
    results = [
        CaseResult(name=name, file=Path(file), line=line, status=Status.PASS)
        for file, name, line in [
            ("f.yaml", "x", 1), ("f.yaml", "x [2]", 3), ("f.yaml", "x", 5), ("g.yaml", "x", 1)
        ]
    ]
    assert case_ids(results) == ["f.yaml::x", "f.yaml::x [2]", "f.yaml::x [3]", "g.yaml::x"]


def test_shorten() -> None:
    assert shorten("abc", 5, 2) == "abc"
    assert shorten("abcdef", 3, None) == "abc... (3 more characters)"
    assert shorten("a\nb\nc", None, 2) == "a\nb\n... (2 more characters)"
    assert shorten("ab\ncd", 4, None) == "ab\nc\n... (1 more character)"


def test_failure_lines_with_multiline_values_and_details() -> None:
    failure = Failure(
        kind=FailureKind.EXPECTATION,
        check="equals",
        message="text differs\nsee below",
        expected="one",
        actual="two\nlines",
        details={"n": 1},
    )
    assert failure_lines(failure, Scrubber(), details=True) == [
        "expectation failed (equals): text differs",
        "see below",
        "expected: one",
        "actual:",
        "  two",
        "  lines",
        'details: {"n": 1}',
    ]
    assert failure_lines(failure, Scrubber()) == failure_lines(failure, Scrubber(), details=True)[:-1]


def test_failure_lines_show_values_that_read_alike_as_json() -> None:
    """A string and a number with the same digits: the lines say which is which."""
    failure = Failure(kind=FailureKind.EXPECTATION, check="structured", message="m", expected="36", actual=36)
    assert failure_lines(failure, Scrubber())[1:] == ['expected: "36"', "actual: 36"]
    same = failure.model_copy(update={"actual": 37})
    assert failure_lines(same, Scrubber())[1:] == ["expected: 36", "actual: 37"]


def test_failure_lines_without_a_message() -> None:
    failure = Failure(kind=FailureKind.TIMEOUT, message=" \n")
    assert failure_lines(failure, Scrubber()) == ["timeout"]


def test_failure_lines_scrub_before_cutting() -> None:
    failure = Failure(kind=FailureKind.TOOL_ERROR, message="m", actual="xx SECRET-VALUE yy")
    lines = failure_lines(failure, Scrubber(["SECRET-VALUE"]), max_chars=6)
    assert lines == ["tool error: m", "actual: xx ***... (3 more characters)"]


def test_stderr_tail() -> None:
    assert stderr_tail("", 10) == ([], 0)
    assert stderr_tail("a\nb\nc\n", 2) == (["b", "c"], 3)
