"""The pure parts of `toolproof conformance`: elicitation forms (SEP-1034, SEP-1330), content blocks, the
--inputs file, the expected-failures baseline and the official scenario table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.probe.conformance.capability_status import status_verdict
from toolproof.probe.conformance.expected_failures import as_judged
from toolproof.probe.conformance.http_checks import visible_ascii
from toolproof.probe.conformance.inputs import InputsError, read_inputs
from toolproof.probe.conformance.listen import SUBSCRIPTION_ID, acknowledgement
from toolproof.probe.conformance.modern_http import Exchange
from toolproof.probe.conformance.official import ALPHA, STABLE, UNTESTED, official
from toolproof.probe.conformance.reads import fill
from toolproof.probe.conformance.server_messages import default_problem, enum_problem
from toolproof.probe.conformance.tool_calls import block_problem
from toolproof.report.baseline import Entry

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        ({"type": "string", "default": "John"}, ""),
        ({"type": "integer", "default": 30}, ""),
        ({"type": "number", "default": 95.5}, ""),
        ({"type": "boolean", "default": True}, ""),
        ({"type": "string", "enum": ["a", "b"], "default": "a"}, ""),
        ({"type": "integer", "default": "30"}, "default '30' is not a integer"),
        ({"type": "integer", "default": True}, "default True is not a integer"),
        ({"type": "string", "enum": ["a", "b"], "default": "c"}, "default 'c' is not one of its enum values"),
        ({"type": "array", "default": []}, "a default on a field of type 'array'"),
    ],
)
def test_an_elicitation_default_has_its_fields_type(field: dict[str, Any], problem: str) -> None:
    assert default_problem(field) == problem


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        ({"type": "string", "enum": ["a", "b"]}, ""),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, ""),
        ({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}, ""),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, ""),
        ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}, ""),
        (
            {"type": "string", "enum": ["a", "b"], "enumNames": ["A"]},
            "enumNames must list one name per enum value",
        ),
        ({"type": "string", "oneOf": [{"const": "a"}]}, "each oneOf option needs a string const and a title"),
        ({"type": "string", "enum": [1, 2]}, "enum values must be strings"),
        ({"type": "number", "enum": [1, 2]}, "a single-select enum must be of type string, not 'number'"),
        ({"type": "array", "items": {"enum": []}}, "enum is not a non-empty list"),
    ],
)
def test_an_elicitation_enum_takes_one_of_the_sep_1330_forms(field: dict[str, Any], problem: str) -> None:
    assert enum_problem(field) == problem


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"type": "image", "data": PNG, "mimeType": "image/png"}, ""),
        (
            {"type": "image", "data": "not base64!", "mimeType": "image/png"},
            "image content whose data is not base64",
        ),
        ({"type": "image", "data": PNG, "mimeType": "text/plain"}, "image content has mimeType 'text/plain'"),
        ({"type": "audio", "data": PNG}, "audio content is not valid: mimeType: Field required"),
        ({"type": "resource", "resource": {"uri": "x://a", "text": "t"}}, ""),
        ({"type": "video", "data": PNG}, "unknown content type 'video'"),
        (
            {"type": "resource", "resource": {"uri": "x://a", "blob": "%%"}},
            "the embedded resource x://a has a blob",
        ),
    ],
)
def test_a_content_block_is_checked_by_its_type(block: dict[str, Any], problem: str) -> None:
    found = block_problem(block, "image/" if block["type"] == "image" else "audio/")
    assert found.startswith(problem) and bool(found) == bool(problem)


def test_a_template_is_filled_with_the_values_given_and_a_placeholder_for_the_rest() -> None:
    assert fill("test://template/{id}/data{?page}", {"id": "123"}) == "test://template/123/datatoolproof"


def test_the_inputs_file_is_read_and_a_mistake_names_file_line_and_field(tmp_path: Path) -> None:
    good = tmp_path / "inputs.yaml"
    good.write_text("tools:\n  echo: {text: hi}\nprompts:\n  greet: {name: Ada}\n")
    inputs = read_inputs(good)
    assert inputs.tools == {"echo": {"text": "hi"}} and inputs.prompts == {"greet": {"name": "Ada"}}
    bad = tmp_path / "bad.yaml"
    bad.write_text("tools:\n  echo: {text: hi}\n  add: 3\n")
    with pytest.raises(InputsError, match=r"bad.yaml:3.*tools.add: expected a mapping of arguments"):
        read_inputs(bad)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("tool:\n  echo: {}\n")
    with pytest.raises(InputsError, match=r"unknown.yaml:1.*tool: unknown section"):
        read_inputs(unknown)


def _result(name: str, status: Status) -> CaseResult:
    failure = Failure(kind=FailureKind.PROTOCOL, message="broken") if status is Status.FAIL else None
    return CaseResult(name=name, file=Path("server"), status=status, failure=failure)


def test_a_failure_the_baseline_expects_does_not_count_and_a_new_one_does() -> None:
    baseline = {"ping": Entry(name="ping", status="FAIL"), "ids": Entry(name="ids", status="PASS")}
    judged = as_judged([_result("ping", Status.FAIL), _result("ids", Status.FAIL)], baseline)
    assert [result.status for result in judged] == [Status.PASS, Status.FAIL]
    assert judged[0].reason == "expected to fail: broken"
    assert as_judged([_result("ping", Status.FAIL)], None)[0].status is Status.FAIL


def test_each_result_names_the_official_scenarios_of_both_releases_or_says_none_tests_it() -> None:
    image = official("image content is well-formed")
    assert image == {
        "scenarios": [
            {"scenario": "tools-call-image", "checks": ["tools-call-image"], "releases": [STABLE, ALPHA]}
        ]
    }
    enums = official("elicitation enums are well-formed (SEP-1330)")["scenarios"][0]
    assert "elicitation-sep1330-legacy-enumnames" in enums["checks"]
    assert official("request ids are echoed") == {"scenarios": [], "note": UNTESTED}


@pytest.mark.parametrize(
    ("session", "problem"),
    [("3f2a-9c~!", ""), ("a b", "the Mcp-Session-Id holds U+0020"), ("sess-ü\x7f", "U+007F, U+00FC")],
)
def test_a_session_id_holds_onlyvisible_ascii(session: str, problem: str) -> None:
    verdict = visible_ascii(session)
    assert verdict.status is (Status.FAIL if problem else Status.PASS)
    assert problem in verdict.message


ACK = "notifications/subscriptions/acknowledged"


@pytest.mark.parametrize(
    ("first", "offered", "status", "said"),
    [
        ({"method": ACK, "params": {"_meta": {SUBSCRIPTION_ID: 7}}}, True, Status.PASS, ""),
        (
            {"method": ACK, "params": {"_meta": {SUBSCRIPTION_ID: 8}}},
            True,
            Status.FAIL,
            "not the request's 7",
        ),
        ({"method": ACK, "params": {}}, True, Status.FAIL, "carries no"),
        ({"method": "notifications/tools/list_changed"}, True, Status.FAIL, "the first message is"),
        (None, True, Status.FAIL, "nothing came"),
        (
            {"id": 7, "error": {"code": -32601, "message": "no"}},
            False,
            Status.SKIP,
            "declares no list changes",
        ),
        (
            {"id": 7, "error": {"code": -32601, "message": "no"}},
            True,
            Status.FAIL,
            "yet subscriptions/listen",
        ),
    ],
)
def test_a_subscription_is_acknowledged_first_with_its_own_id(
    first: dict[str, Any] | None, offered: bool, status: Status, said: str
) -> None:
    (verdict,) = acknowledgement(first, offered, 7)
    assert verdict.status is status
    assert said in verdict.message
    assert verdict.official == ("server-stateless/sep-2575-server-sends-subscription-ack",)


def _exchange(status: int, code: int | None) -> Exchange:
    message = {"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "m"}} if code else {"result": {}}
    return Exchange(httpx2.Response(status), message)


@pytest.mark.parametrize(
    ("made", "status", "said"),
    [
        ([("tasks/get", _exchange(400, -32021)), ("tools/call t", _exchange(400, -32021))], Status.PASS, "t"),
        ([("tasks/get", _exchange(200, -32021))], Status.FAIL, "tasks/get: HTTP 200 with error -32021"),
        ([("tasks/get", _exchange(400, -32602))], Status.SKIP, "no request was refused with -32021"),
        ([], Status.SKIP, "neither declares the tasks extension"),
    ],
)
def test_a_missing_client_capability_is_http_400(
    made: list[tuple[str, Exchange]], status: Status, said: str
) -> None:
    (verdict,) = status_verdict(made)
    assert verdict.status is status
    assert said in verdict.message
    assert verdict.official == ("server-stateless/sep-2575-missing-capability-http-400",)
