"""`toolproof eval` with the real OpenAI and Anthropic adapters, against the local wire-format model server
and the real notes MCP server: the model's tool call really runs, its result goes back on the wire, usage is
summed, and the API key (read from a variable whose name does not look secret) is masked everywhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import NOTES
from tests.support.llm_wire import ANTHROPIC_PATH, OPENAI_PATH, LlmWire, WireCall, llm_wire

from toolproof.cli import main
from toolproof.model.transcript import Usage
from toolproof.sources.traces import read_traces

__all__ = ["llm_wire"]  # the fixture

pytestmark = pytest.mark.servers
KEY_ENV = "WIRE_LLM_PASS"  # no KEY/TOKEN/SECRET in the name: only --api-key-env says it holds a key
KEY = "sk-wire-dummy-5e7a1c9b"

CASE = f"""\
name: shopping over the wire
id: shopping
servers:
  notes: {{command: "{sys.executable}", args: ["{NOTES}"]}}
prompt: What do I need to buy?
expect:
  - called: {{tool: get_note, args: {{note_id: 2}}, error: false}}
  - reply: {{contains: [milk, eggs], case_sensitive: false}}
  - tokens: {{max_total: 82}}
  - reply: {{not_contains: sk-wire}}
"""


def tool_result_text(path: str, body: dict[str, Any]) -> str:
    """The tool result the model got back in its last message, in either wire format."""
    last = body["messages"][-1]
    if path == OPENAI_PATH:
        assert last["role"] == "tool"
        return str(last["content"])
    (block,) = last["content"]
    assert (last["role"], block["type"]) == ("user", "tool_result")
    content = block["content"]
    return content if isinstance(content, str) else "".join(part["text"] for part in content)


def offered(path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The tools offered in a request, by name, with their input schemas."""
    if path == OPENAI_PATH:
        return {tool["function"]["name"]: tool["function"]["parameters"] for tool in body["tools"]}
    return {tool["name"]: tool["input_schema"] for tool in body["tools"]}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_live_run_through_the_provider_adapter(
    provider: str, llm_wire: LlmWire, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    case = tmp_path / "shopping.yaml"
    case.write_text(CASE)
    llm_wire.reply(calls=[WireCall("get_note", {"note_id": 2})], usage=(30, 7))
    llm_wire.reply(f"You need milk, eggs and coffee. (debug: my key is {KEY})", usage=(40, 5))
    base_url = llm_wire.openai_base_url if provider == "openai" else llm_wire.anthropic_base_url
    report, junit, traces = tmp_path / "report.json", tmp_path / "junit.xml", tmp_path / "traces"
    status = main(
        [
            "eval", str(case), "--provider", provider, "--model", "wire-model", "--base-url", base_url,
            "--api-key-env", KEY_ENV, "--json", str(report), "--junit", str(junit),
            "--save-traces", str(traces), "-q",
        ]
    )  # fmt: skip

    assert status == 1
    (result,) = json.loads(report.read_text())["results"]
    assert (result["status"], result["failure"]["check"]) == ("FAIL", "1 of 4")
    outcomes = result["failure"]["details"]["assertions"]
    assert [outcome["status"] for outcome in outcomes] == ["PASS", "PASS", "PASS", "FAIL"]
    assert "my key is ***" in result["failure"]["message"]

    path = OPENAI_PATH if provider == "openai" else ANTHROPIC_PATH
    assert [request.path for request in llm_wire.requests] == [path, path]
    first, second = (request.body for request in llm_wire.requests)
    sent = {value.removeprefix("Bearer ") for value in llm_wire.requests[0].headers.values()}
    assert KEY in sent  # the key came from the variable --api-key-env names
    assert first["model"] == "wire-model"
    tools = offered(path, first)
    assert {"add_note", "get_note", "search_notes", "delete_note"} <= set(tools)
    assert "note_id" in tools["get_note"]["properties"]
    assert "Milk, eggs, coffee." in tool_result_text(path, second)  # the notes server's seeded note

    (run,) = read_traces(next(traces.glob("*.trace.json")))
    assert run.scenario == "shopping"
    assert [tool.name for tool in run.tools or ()] == list(tools)
    (turn,) = run.turns
    assert turn.usage == Usage(input_tokens=70, output_tokens=12, total_tokens=82)
    assert [(call.tool, call.arguments) for call in turn.calls] == [("get_note", {"note_id": 2})]
    assert turn.reply.endswith("my key is ***)")
    for written in (report, junit, *traces.iterdir()):
        assert KEY not in written.read_text(), written
