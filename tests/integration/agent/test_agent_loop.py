"""The agent loop over real MCP servers with a scripted model: turns, tool errors, the step limit, clashes."""

from __future__ import annotations

import pytest
from tests.integration.agent.conftest import Listening, everything_spec, notes_spec

from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import FailureKind
from toolproof.model.server_config import Transport
from toolproof.providers.base import ModelReply, ToolUse
from toolproof.providers.scripted import ScriptedProvider
from toolproof.sources.agent.loop import AgentSettings, run_conversation
from toolproof.sources.agent.mcp_tools import open_tool_host

SETTINGS = AgentSettings(model="scripted", max_steps=5)


def call(name: str, id_: str, **arguments: object) -> ModelReply:
    return ModelReply(tool_uses=(ToolUse(id=id_, name=name, arguments=dict(arguments)),))


async def test_two_turns_carry_the_conversation_and_record_every_call() -> None:
    script = ScriptedProvider.from_turns(
        [
            call("add_note", "a1", title="Plumber", body="Friday at 9", tags=["home"]),
            ModelReply(text="Saved."),
        ],
        [call("get_note", "g1", note_id=3), ModelReply(text="The plumber comes Friday at 9.")],
        scenario="plumber",
    )
    model = Listening(script)
    async with open_tool_host({"notes": notes_spec()}) as host:
        run = await run_conversation("plumber", ["Remember the plumber", "When?"], model, host, SETTINGS)

    assert [turn.reply for turn in run.turns] == ["Saved.", "The plumber comes Friday at 9."]
    calls = [call for turn in run.turns for call in turn.calls]
    assert [(c.tool, c.position, c.is_error) for c in calls] == [
        ("add_note", 0, False),
        ("get_note", 1, False),
    ]
    assert calls[1].arguments == {"note_id": 3}
    assert "Friday at 9" in calls[1].result
    assert calls[0].duration_ms is not None and calls[0].duration_ms >= 0
    # the second turn's first request carries the whole first turn, and says where it was made
    second = next(request for request in model.requests if request.turn == 1)
    assert second.scenario == "plumber"
    assert [m.role for m in second.messages] == ["user", "assistant", "tool", "assistant", "user"]
    assert {tool.name for tool in second.tools} >= {"add_note", "get_note", "search_notes"}
    assert run.stop is None
    assert run.tools is not None and any(tool.name == "add_note" for tool in run.tools)
    assert (run.provider, run.model) == ("listening", "scripted")


async def test_a_tool_error_and_a_json_rpc_error_go_back_to_the_model() -> None:
    script = ScriptedProvider.from_turns(
        [
            call("get_note", "g1", note_id=99),
            call("export_notes", "e1", format="xml"),
            call("no_such_tool", "n1"),
            ModelReply(text="Could not find it."),
        ]
    )
    model = Listening(script)
    async with open_tool_host({"notes": notes_spec()}) as host:
        run = await run_conversation("errors", ["Show note 99"], model, host, SETTINGS)

    calls = run.turns[0].calls
    assert [c.is_error for c in calls] == [True, True, True]
    assert "no note with id 99" in calls[0].result
    assert "unsupported format" in calls[1].result
    assert "unknown tool 'no_such_tool'" in calls[2].result
    last = model.requests[-1].messages
    tool_messages = [m for m in last if m.role == "tool"]
    assert [(m.tool_use_id, m.is_error) for m in tool_messages] == [("g1", True), ("e1", True), ("n1", True)]
    assert run.final.reply == "Could not find it."


async def test_reaching_max_steps_stops_the_run_with_a_reason() -> None:
    looping = ScriptedProvider.from_turns([call("list_notes", f"l{i}") for i in range(3)])
    settings = AgentSettings(model="scripted", max_steps=3)
    async with open_tool_host({"notes": notes_spec()}) as host:
        run = await run_conversation("loop", ["List forever", "never sent"], looping, host, settings)

    assert len(run.turns) == 1  # the second turn is never played
    assert len(run.turns[0].calls) == 3
    assert run.turns[0].reply == ""
    assert run.stop is not None and (run.stop.reason, run.stop.turn, run.stop.step) == ("max_steps", 1, 3)
    assert "after 3 model steps" in run.stop.message


async def test_a_script_that_runs_out_is_a_configuration_error_not_a_transport_failure() -> None:
    script = ScriptedProvider.from_turns([call("list_notes", "l1")])  # no second step: the script runs out
    async with open_tool_host({"notes": notes_spec()}) as host:
        run = await run_conversation("short", ["List"], script, host, SETTINGS)
    assert run.stop is not None and run.stop.reason == "provider_error"
    assert run.stop.kind is FailureKind.CONFIG
    stop = run.stopped
    assert stop is not None and stop.kind is FailureKind.CONFIG
    assert "no step 1" in run.stop.message
    assert len(run.turns[0].calls) == 1


async def test_tools_that_clash_across_servers_are_namespaced() -> None:
    script = ScriptedProvider.from_turns(
        [
            call("work__add_note", "a", title="Report", body="due Monday"),
            call("home__search_notes", "s", query="Report"),
            ModelReply(text="done"),
        ]
    )
    model = Listening(script)
    async with open_tool_host(
        {"work": notes_spec(), "home": notes_spec(), "demo": everything_spec()}
    ) as host:
        names = {tool.name for tool in await host.list_tools()}
        run = await run_conversation("clash", ["Add a report note"], model, host, SETTINGS)

    assert {"work__add_note", "home__add_note", "echo"} <= names
    assert "add_note" not in names
    calls = run.turns[0].calls
    assert calls[0].is_error is False
    assert "no notes match" in calls[1].result  # the home server is another process: it has no such note


async def test_the_everything_server_answers_through_the_host() -> None:
    script = ScriptedProvider.from_turns([call("echo", "e", message="hello there"), ModelReply(text="ok")])
    async with open_tool_host({"everything": everything_spec()}) as host:
        run = await run_conversation("echo", ["Echo hello"], script, host, SETTINGS)
    assert "hello there" in run.turns[0].calls[0].result


async def test_a_server_that_cannot_start_is_named() -> None:
    broken = ConnectSpec(transport=Transport.STDIO, command="/nonexistent/toolproof-server")
    with pytest.raises(RequestFailed) as raised:
        async with open_tool_host({"notes": notes_spec(), "broken": broken}):
            pass
    assert raised.value.failure.message.startswith("server 'broken':")
