"""`toolproof snapshot` against real servers: record, compare, changed answers and schemas, interop with
mcp-assert 0.12.3's own snapshot files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.integration.author.conftest import Toolproof, python_server, write

pytestmark = pytest.mark.servers


def tiny_suite(directory: Path, server: Path) -> Path:
    head = python_server(server)
    return write(directory, {
        "echo.yaml": head + "name: echo\nassert: {tool: echo, args: {text: hi}, expect: {not_error: true}}\n",
        "describe.yaml": head + "name: describe\nassert: {tool: describe, args: {zeta: 1}}\n",
        "fail.yaml": head + "name: fail\nassert: {tool: fail, args: {reason: nope}}\n",
    })


def test_recorded_then_compared_passes(tmp_path: Path, tiny_copy: Path, toolproof: Toolproof) -> None:
    suite = tiny_suite(tmp_path / "suite", tiny_copy)
    missing = toolproof("snapshot", str(suite), report=True)
    assert missing.status == 1
    assert "no snapshot recorded" in missing.result("echo")["failure"]["message"]
    recorded = toolproof("snapshot", "--update", "--suite", str(suite))
    assert recorded.status == 0, recorded.out
    assert "3 recorded (3 new, 0 changed)" in recorded.out
    data = json.loads((suite / ".snapshots.json").read_text())
    assert {item["name"]: item["is_error"] for item in data["snapshots"]} == {
        "describe": False, "echo": False, "fail": True
    }
    assert [tool["name"] for tool in data["tool_lists"][0]["tools"]][:2] == ["echo", "add"]
    compared = toolproof("snapshot", str(suite), report=True)
    assert compared.status == 0, compared.out
    assert set(compared.verdicts().values()) == {"PASS"}


def test_a_changed_answer_and_a_changed_schema_fail_naming_the_field(
    tmp_path: Path, tiny_copy: Path, toolproof: Toolproof
) -> None:
    suite = tiny_suite(tmp_path / "suite", tiny_copy)
    assert toolproof("snapshot", str(suite), "--update").status == 0
    source = tiny_copy.read_text()
    source = source.replace('"count": len(arguments)', '"count": len(arguments) + 1')
    source = source.replace('"properties": {"text": TEXT}', '"properties": {"text": NUMBER}')
    tiny_copy.write_text(source)
    outcome = toolproof("snapshot", str(suite), report=True)
    assert outcome.status == 1
    verdicts = outcome.verdicts()
    assert verdicts["echo"] == "PASS"
    assert verdicts["describe"] == "FAIL"
    assert "$.count: 1 -> 2" in outcome.result("describe")["failure"]["message"]
    drift = next(name for name in verdicts if name.startswith("tools/list of "))
    assert verdicts[drift] == "FAIL"
    assert '$.echo.inputSchema.properties.text.type: "string" -> "number"' in outcome.out


def test_volatile_values_are_masked_on_mcp_server_time(tmp_path: Path, toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {
        "now.yaml": """\
            name: current time in UTC
            server: {command: mcp-server-time}
            assert: {tool: get_current_time, args: {timezone: UTC}}
            """,
        "masked.yaml": """\
            name: current time with a user mask
            server: {command: mcp-server-time}
            snapshot_masks: ['(?<="is_dst": )\\w+']
            assert: {tool: get_current_time, args: {timezone: Europe/Paris}}
            """,
    })
    assert toolproof("snapshot", "--update", str(suite)).status == 0
    saved = json.loads((suite / ".snapshots.json").read_text())
    utc, paris = (next(item for item in saved["snapshots"] if item["name"] == name)
                  for name in ("current time in UTC", "current time with a user mask"))
    utc["text"] = utc["text"].replace(json.loads(utc["text"])["datetime"], "2001-02-03T04:05:06+00:00")
    paris["text"] = paris["text"].replace(json.loads(paris["text"])["day_of_week"], "Sunday")  # built-in
    paris["text"] = paris["text"].replace('"is_dst": false', '"is_dst": true')  # the case's own mask
    (suite / ".snapshots.json").write_text(json.dumps(saved))
    outcome = toolproof("snapshot", str(suite), report=True)
    assert outcome.status == 0, outcome.out
    paris["text"] = paris["text"].replace('"Europe/Paris"', '"Europe/Rome"')
    (suite / ".snapshots.json").write_text(json.dumps(saved))
    changed = toolproof("snapshot", str(suite), report=True)
    assert changed.status == 1
    assert '$.timezone: "Europe/Rome" -> "Europe/Paris"' in changed.result(
        "current time with a user mask")["failure"]["message"]


def test_cases_that_cannot_run_exit_2(tmp_path: Path, tiny_copy: Path, toolproof: Toolproof) -> None:
    suite = tiny_suite(tmp_path / "suite", tiny_copy)
    assert toolproof("snapshot", "--update", str(suite)).status == 0
    outcome = toolproof("snapshot", str(suite), "--server", "no-such-server-command", report=True)
    assert outcome.status == 2
    assert set(outcome.verdicts().values()) == {"ERROR"}
    assert "cannot take a snapshot" in outcome.result("echo")["failure"]["message"]


def test_a_bad_user_mask_is_an_error_naming_the_field(tmp_path: Path, tiny_copy: Path,
                                                     toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {
        "echo.yaml": python_server(tiny_copy) + "name: echo\nsnapshot_masks: ['(']\nassert: {tool: echo}\n"
    })
    outcome = toolproof("snapshot", str(suite), "--update", report=True)
    assert outcome.status == 2
    assert outcome.result("echo")["failure"]["check"] == "snapshot_masks"


def test_files_interoperate_with_mcp_assert(tmp_path: Path, tiny_copy: Path, toolproof: Toolproof) -> None:
    ours = tiny_suite(tmp_path / "ours", tiny_copy)
    assert toolproof("snapshot", "--update", str(ours)).status == 0
    theirs_verify = subprocess.run(
        ["mcp-assert", "snapshot", "--suite", str(ours)], capture_output=True, text=True, timeout=60
    )
    assert theirs_verify.returncode == 0, theirs_verify.stdout + theirs_verify.stderr
    assert "3 matched" in theirs_verify.stdout

    theirs = tiny_suite(tmp_path / "theirs", tiny_copy)
    made = subprocess.run(
        ["mcp-assert", "snapshot", "--suite", str(theirs), "--update"], capture_output=True, text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    outcome = toolproof("snapshot", str(theirs), report=True)
    assert outcome.status == 0, outcome.out
    drift = next(name for name in outcome.verdicts() if name.startswith("tools/list of "))
    assert outcome.verdicts()[drift] == "SKIP"
