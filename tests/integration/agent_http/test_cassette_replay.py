"""A real agent run (scripted model, the notes MCP server) recorded to a cassette and replayed with the server
gone; what the replay cannot answer fails loudly and ends the run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.integration.mcp.helpers import NOTES, stdio

from toolproof.model.envelope import SourceRef
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Transcript, Usage
from toolproof.providers.base import Message, ModelReply, ModelRequest, ProviderError, ToolUse
from toolproof.providers.scripted import ScriptedProvider
from toolproof.sources.agent.cassette import (
    Cassette,
    CassetteMiss,
    RecordingProvider,
    RecordingToolHost,
    ReplayProvider,
    ReplayToolHost,
    cassette_file,
)
from toolproof.sources.agent.loop import AgentSettings, run_conversation
from toolproof.sources.agent.mcp_tools import open_tool_host

pytestmark = pytest.mark.servers
SECRET = "sk-live-0f9e8d7c6b5a"
ENVIRON = {"NOTES_API_KEY": SECRET}
SETTINGS = AgentSettings(model="stand-in-model", system="You keep notes.", temperature=0)
USERS = ("Remember the deploy key.", "What do you have?")


def provider() -> ScriptedProvider:
    """Turn 1: add a note (whose body carries the secret), then answer; turn 2: list, search, answer."""
    return ScriptedProvider.from_turns(
        [
            ModelReply(
                tool_uses=(ToolUse("c1", "add_note", {"title": "deploy", "body": f"key {SECRET}"}),),
                usage=Usage(input_tokens=50, output_tokens=9),
            ),
            ModelReply(text="Saved it.", usage=Usage(input_tokens=80, output_tokens=3)),
        ],
        [
            ModelReply(
                tool_uses=(
                    ToolUse("c2", "list_notes", {}),
                    ToolUse("c3", "search_notes", {"query": "deploy"}),
                ),
            ),
            ModelReply(text="One note: deploy."),
        ],
    )


def case(tmp_path: Path) -> AgentCase:
    return AgentCase(
        name="keeps a note", source=SourceRef(file=tmp_path / "notes.yaml", line=1), dialect="toolproof"
    )


async def record(path: Path) -> Transcript:
    cassette = Cassette.recording(path, environ=ENVIRON)
    async with open_tool_host({"notes": stdio(sys.executable, str(NOTES))}) as live:
        host = RecordingToolHost(live, cassette, server_key="notes")
        return await run_conversation(
            "keeps a note", USERS, RecordingProvider(provider(), cassette), host, SETTINGS
        )


def essentials(run: Transcript) -> list[tuple[str, list[tuple[str, object, object, bool]]]]:
    return [
        (turn.reply, [(call.tool, call.arguments, call.result, call.is_error) for call in turn.calls])
        for turn in run.turns
    ]


async def test_a_recorded_run_replays_without_the_server(tmp_path: Path) -> None:
    path = cassette_file(tmp_path / "cassettes", case(tmp_path))
    recorded = await record(path)
    assert recorded.stop is None, recorded.stop
    assert [call.tool for turn in recorded.turns for call in turn.calls] == [
        "add_note",
        "list_notes",
        "search_notes",
    ]

    text = path.read_text()
    assert SECRET not in text and "key ***" in text
    exchanges = json.loads(text)["exchanges"]
    assert [entry["kind"] for entry in exchanges] == [
        "tools",
        "model",
        "call",
        "model",
        "model",
        "call",
        "call",
        "model",
    ]
    assert exchanges[2]["arguments"] == {"title": "deploy", "body": "key ***"}
    assert not list(path.parent.glob(".*"))  # no temporary file left behind

    # The server is closed now; the replay needs neither it nor a model.
    cassette = Cassette.replaying(path, environ=ENVIRON)
    replayed = await run_conversation(
        "keeps a note", USERS, ReplayProvider(cassette), ReplayToolHost(cassette, "notes"), SETTINGS
    )
    assert replayed.stop is None, replayed.stop
    masked = json.loads(json.dumps(essentials(recorded)).replace(SECRET, "***"))
    assert json.loads(json.dumps(essentials(replayed))) == masked
    assert [turn.usage for turn in replayed.turns] == [turn.usage for turn in recorded.turns]
    assert replayed.tools == recorded.tools


async def test_replay_misses_name_the_cassette_and_the_request(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    await record(path)
    cassette = Cassette.replaying(path, environ=ENVIRON)

    with pytest.raises(CassetteMiss) as raised:  # not a failed model call the run could go on from
        await run_conversation(
            "keeps a note",
            ("Forget everything.",),
            ReplayProvider(cassette),
            ReplayToolHost(cassette, "notes"),
            SETTINGS,
        )
    assert not isinstance(raised.value, ProviderError)
    assert f"{path}: no recorded model reply for this request" in str(raised.value)
    assert "last message user: 'Forget everything.'" in str(raised.value)

    request = ModelRequest(model="stand-in-model", messages=(Message("user", "Remember the deploy key."),))
    with pytest.raises(
        CassetteMiss, match=r"\(key [0-9a-f]{16}; last message user: 'Remember the deploy key.'\)"
    ):
        await ReplayProvider(cassette).complete(request)  # same text, no system prompt: another request

    host = ReplayToolHost(cassette, "notes")
    with pytest.raises(CassetteMiss, match=r"no recorded result for tool call get_note '\{\"note_id\": 7\}'"):
        await host.call("get_note", {"note_id": 7})
    await host.call("search_notes", {"query": "deploy"})
    with pytest.raises(CassetteMiss, match=r"search_notes .* \(recorded 1 time, asked again\)"):
        await host.call("search_notes", {"query": "deploy"})
    with pytest.raises(CassetteMiss, match="no recorded tool list for server 'other'"):
        await ReplayToolHost(cassette, "other").list_tools()
