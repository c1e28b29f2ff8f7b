"""`toolproof coverage` against real servers: tools, arguments, resources and prompts, JSON, --min."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from tests.integration.author.conftest import NOTES, Toolproof, python_server, write

pytestmark = pytest.mark.servers


def test_server_everything_tools_and_arguments(tmp_path: Path, toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {
        "echo.yaml": "name: echo\nassert: {tool: echo, args: {message: hi}}\n",
        "sum.yaml": "name: sum\nassert: {tool: get-sum, args: {a: 1}}\n",
        "sum2.yaml": "name: sum again\nassert: {tool: get-sum, args: {a: 1, b: 2}}\n",
        "skipped.yaml": "name: skipped\nskip: true\nassert: {tool: get-env}\n",
        "setup.yaml": "name: setup\nsetup: [{tool: get-tiny-image}]\n"
                      "assert: {tool: echo, args: {message: x}}\n",
        "ghost.yaml": "name: ghost\nassert: {tool: no-such-tool}\n",
    })
    out = tmp_path / "coverage.json"
    outcome = toolproof("coverage", str(suite), "--server", "mcp-server-everything", "--output", str(out))
    assert outcome.status == 0, outcome.err
    data = json.loads(out.read_text())
    assert {key: data[key] for key in ("covered", "percentage")} == {
        "covered": 2, "percentage": 2 * 100 // data["total"]
    }
    tools = {tool["name"]: tool for tool in data["covered_tools"]}
    assert tools["echo"]["assertions"] == 2
    assert tools["get-sum"] == {"name": "get-sum", "assertions": 2, "arguments": ["a", "b"],
                                "uncovered_arguments": []}
    assert "get-env" in data["uncovered_tools"]  # a skipped case covers nothing (mcp-assert counts it)
    assert "get-tiny-image" in data["uncovered_tools"]  # setup steps are not tests
    assert data["unknown_tools"] == ["no-such-tool"]
    assert data["resources"]["total"] > 0
    assert "+ get-sum (2 cases)" in outcome.out


def test_suite_servers_resources_prompts_json_and_min(tmp_path: Path, toolproof: Toolproof) -> None:
    head = python_server(NOTES)
    suite = write(tmp_path / "suite", {
        "a.yaml": head + "name: add\nassert: {tool: add_note, args: {title: t}}\n",
        "b.yaml": head + "name: read\nassert_resources: {read: 'notes://note/1'}\n",
        "c.yaml": head + "name: prompt\nassert_prompts: {get: {name: review, arguments: {note_id: '1'}}}\n",
    })
    outcome = toolproof("coverage", "--suite", str(suite), "--json", "-", "--min", "90")
    assert outcome.status == 1
    data = json.loads(outcome.out)
    assert data["covered_tools"][0]["uncovered_arguments"] == ["body", "tags"]
    assert data["resources"]["covered_items"] == [{"name": "notes://note/{note_id}", "assertions": 1}]
    assert data["prompts"]["covered"] == 1
    assert "under --min 90%" in outcome.err
    assert toolproof("coverage", str(suite), "--min", "5").status == 0


def test_a_server_that_cannot_start_is_exit_2(tmp_path: Path, toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {"a.yaml": "name: a\nassert: {tool: echo}\n"})
    outcome = toolproof("coverage", str(suite), "--server", "no-such-server-command")
    assert outcome.status == 2
    assert "toolproof coverage:" in outcome.err


@pytest.mark.parity
def test_same_numbers_as_mcp_assert(tmp_path: Path, toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {
        "echo.yaml": "name: echo\nserver: {command: mcp-server-everything}\n"
                     "assert: {tool: echo, args: {message: hi}}\n",
        "sum.yaml": "name: sum\nserver: {command: mcp-server-everything}\n"
                    "assert: {tool: get-sum, args: {a: 1}}\n",
        "sum2.yaml": "name: sum 2\nserver: {command: mcp-server-everything}\nassert: {tool: get-sum}\n",
    })
    theirs_file, ours_file = tmp_path / "theirs.json", tmp_path / "ours.json"
    theirs_run = subprocess.run(
        ["mcp-assert", "coverage", "--suite", str(suite), "--server", "mcp-server-everything",
         "--coverage-json", str(theirs_file)], capture_output=True, text=True, timeout=60,
    )
    assert theirs_run.returncode == 0, theirs_run.stderr
    ours_run = toolproof("coverage", "--suite", str(suite), "--server", "mcp-server-everything",
                         "--coverage-json", str(ours_file))
    assert ours_run.status == 0, ours_run.err
    theirs, ours = json.loads(theirs_file.read_text()), json.loads(ours_file.read_text())
    for key in ("total", "covered", "percentage", "uncovered_tools"):
        assert ours[key] == theirs[key], key
    assert [{"name": t["name"], "assertions": t["assertions"]} for t in ours["covered_tools"]] == theirs[
        "covered_tools"]
