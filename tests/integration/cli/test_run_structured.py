"""structuredContent expectations, automatic outputSchema validation and `assert_tools:` through
`toolproof run`, against server-everything and our own servers; and one suite run in both protocol eras."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

pytestmark = pytest.mark.servers

ROOT = Path(__file__).resolve().parents[3]
CONTRACT = f"server: {{command: {sys.executable}, args: [{ROOT / 'tests/servers/contract_server.py'}]}}\n"
EVERYTHING = "server: {command: mcp-server-everything, args: [stdio]}\n"
WEATHER_SCHEMA = "{type: object, required: [temperature, conditions, humidity]}"

CASES = {
    # server-everything's get-structured-content declares an outputSchema and keeps it
    "everything structured": (EVERYTHING, "PASS", "assert: {tool: get-structured-content, args: {location: "
                              "New York}, expect: {structured: {'$.conditions': Cloudy, '$.humidity': 82},"
                              f" structured_schema: {WEATHER_SCHEMA}}}}}"),
    "everything structured wrong": (EVERYTHING, "FAIL", "assert: {tool: get-structured-content, args: "
                                    "{location: New York}, expect: {structured: {'$.humidity': '82'}}}"),
    "everything schema wrong": (EVERYTHING, "FAIL", "assert: {tool: get-structured-content, args: {location:"
                                " New York}, expect: {structured_schema: {properties: {humidity: "
                                "{maximum: 50}}}}}"),
    "everything no structured": (EVERYTHING, "FAIL", "assert: {tool: echo, args: {message: hi},"
                                 " expect: {structured: {'$': hi}}}"),
    "everything listing": (EVERYTHING, "PASS", "assert_tools: {expect: {tools: {echo: {input: [message],"
                           " annotations: {readOnlyHint: true}},"
                           " get-structured-content: {output_schema: true}},"
                           " absent: [rm-rf], min_tools: 5}}"),
    "everything listing wrong": (EVERYTHING, "FAIL", "assert_tools: {expect: {tools: {gzip-file-as-resource:"
                                 " {annotations: {readOnlyHint: true}}}}}"),
    # our contract server keeps or breaks the outputSchema it declares
    "contract kept": (CONTRACT, "PASS", "assert: {tool: weather,"
                      " expect: {structured: {'$.temperature': 21.5}}}"),
    "contract wrong type": (CONTRACT, "FAIL", "assert: {tool: wrong_type, expect: {not_error: true}}"),
    "contract missing field": (CONTRACT, "FAIL", "assert: {tool: missing_field}"),
    "contract no structured": (CONTRACT, "FAIL", "assert: {tool: no_structured,"
                               " expect: {contains: [plain], structured_schema: {type: object}}}"),
    # a plain result with no structured expectation sends no tools/list, so nothing is checked against it
    "contract plain call": (CONTRACT, "PASS", "assert: {tool: no_structured, expect: {contains: [plain]}}"),
    "contract error exempt": (CONTRACT, "PASS", "assert: {tool: failing, expect: {is_error: true}}"),
    "contract no schema": (CONTRACT, "PASS", "assert: {tool: plain, expect: {equals: plain text}}"),
    "contract notifications block": (CONTRACT, "FAIL", "assert_notifications: {tool: wrong_type,"
                                     " expect: {max_count: 5}}"),
}


def test_structured_and_listing_expectations(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    files = {f"{n:02d}.yaml": f"name: {name}\n{server}{body}\n" for n, (name, (server, _, body)) in
             enumerate(CASES.items())}
    outcome = toolproof(str(write_suite(files)))
    expected = {name: verdict for name, (_, verdict, _) in CASES.items()}
    assert outcome.verdicts() == expected, [
        (r["name"], r["failure"]) for r in outcome.report["results"] if r["status"] != expected[r["name"]]
    ]

    def failure(name: str) -> dict[str, str]:
        found = outcome.result(name)["failure"]
        assert isinstance(found, dict)
        return found

    assert failure("everything structured wrong")["kind"] == "expectation"
    assert failure("everything structured wrong")["message"] == (
        'structured: $.humidity: expected "82", got 82 (JSON equality, no coercion)'
    )
    schema_message = failure("everything schema wrong")["message"]
    assert "at $.humidity: 82 is greater than the maximum of 50" in schema_message
    assert "the result has no structuredContent" in failure("everything no structured")["message"]
    assert failure("everything listing wrong")["message"] == (
        "assert_tools: tool 'gzip-file-as-resource' readOnlyHint: expected true, it declares false"
    )
    for name in ("contract wrong type", "contract missing field", "contract no structured",
                 "contract notifications block"):
        assert failure(name)["kind"] == "protocol", name
        assert failure(name)["check"] == "output_schema", name
    assert failure("contract wrong type")["message"].startswith(
        "output_schema: tool 'wrong_type' returned structuredContent that breaks its own outputSchema at "
        "$.temperature: 'hot' is not of type 'number'"
    )
    assert "at $: 'conditions' is a required property" in failure("contract missing field")["message"]
    assert failure("contract no structured")["message"].startswith(
        "output_schema: tool 'no_structured' declares an outputSchema but its result has no structuredContent"
    )


ERAS = [("2025-11-25", "2025-11-25"), ("2026-07-28", "2026-07-28"), ("auto", "2026-07-28")]


@pytest.mark.parametrize(("protocol", "spoken"), ERAS)
def test_the_example_suite_passes_in_both_eras(
    toolproof: Callable[..., Outcome], protocol: str, spoken: str, tmp_path: Path
) -> None:
    suite = ROOT / "examples" / "structured" / "03_client_requests.yaml"
    junit = tmp_path / "junit.xml"
    outcome = toolproof(str(suite), "--protocol", protocol, "-v", "--junit", str(junit))
    assert outcome.status == 0, outcome.report["results"]
    assert len(outcome.verdicts()) == 4
    # every report says which era was spoken with each case's server
    assert {result["protocol"] for result in outcome.report["results"]} == {spoken}
    assert junit.read_text().count(f'<property name="protocol" value="{spoken}"') == 4
    assert outcome.out.count(f"protocol {spoken}") == 4
