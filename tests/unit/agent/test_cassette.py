"""Cassettes without servers: keys, masking, ordered replay, loud misses, atomic writes, malformed files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolproof.core.sanitize import mask
from toolproof.model.envelope import SourceRef
from toolproof.model.scenario import AgentCase
from toolproof.model.transcript import Usage
from toolproof.providers.base import Message, ModelReply, ModelRequest, ProviderError, ToolSpec, ToolUse
from toolproof.sources.agent.cassette import (
    Cassette,
    CassetteError,
    CassetteMiss,
    RecordingProvider,
    RecordingToolHost,
    ReplayProvider,
    ReplayToolHost,
    cassette_file,
)
from toolproof.sources.agent.cassette_codec import key_of, request_record
from toolproof.sources.agent.host import ToolOutcome

SECRET = "tok-123456789"
NO_ENV: dict[str, str] = {}


def ask(text: str, **fields: Any) -> ModelRequest:
    return ModelRequest(model="m", messages=(Message("user", text),), **fields)


class Counting:
    """A provider and tool host that number their answers, so replays can be told apart."""

    name = "counting"

    def __init__(self) -> None:
        self.count = 0

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.count += 1
        return ModelReply(text=f"answer {self.count}", usage=Usage(input_tokens=self.count))

    async def list_tools(self) -> tuple[ToolSpec, ...]:
        return (ToolSpec("echo", "says it back", {"type": "object"}),)

    async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        self.count += 1
        return ToolOutcome(text=f"{name} {self.count}", content=[{"type": "text"}], duration_ms=1.5)


def test_the_key_is_the_request_content_not_where_it_was_made() -> None:
    base = key_of(request_record(ask("hi")))
    assert key_of(request_record(ask("hi", scenario="other", turn=3))) == base
    for changed in (ask("hi", temperature=0.5), ask("hi", max_tokens=10), ask("hi", system="s"), ask("ho")):
        assert key_of(request_record(changed)) != base
    assert key_of(request_record(ask("hi", tools=(ToolSpec("t"),)))) != base


def test_mask_reaches_every_string_and_key() -> None:
    value = {"a": [f"x {SECRET} y", 3, None], SECRET: {"b": (SECRET,)}}
    assert mask(value, [SECRET]) == {"a": ["x *** y", 3, None], "***": {"b": ["***"]}}
    assert mask(value, []) is value


async def test_replay_serves_repeats_in_recorded_order(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    live = Counting()
    recording = Cassette.recording(path, environ=NO_ENV)
    provider, host = RecordingProvider(live, recording), RecordingToolHost(live, recording, "s")
    assert provider.name == "counting"
    await host.list_tools()
    first, second = await provider.complete(ask("hi")), await provider.complete(ask("hi"))
    assert (first.text, second.text) == ("answer 1", "answer 2")
    await host.call("echo", {"b": 1, "a": [1, 2]})
    await host.call("echo", {"a": [1, 2], "b": 1})  # the same arguments in another order

    cassette = Cassette.replaying(path, environ=NO_ENV)
    replay, tools = ReplayProvider(cassette), ReplayToolHost(cassette, "s")
    assert [(await replay.complete(ask("hi"))).text for _ in range(2)] == ["answer 1", "answer 2"]
    assert [(await tools.call("echo", {"a": [1, 2], "b": 1})).text for _ in range(2)] == ["echo 3", "echo 4"]
    outcome = ToolOutcome(text="echo 3", content=[{"type": "text"}], duration_ms=1.5)
    assert await ReplayToolHost(Cassette.replaying(path), "s").call("echo", {"a": [1, 2], "b": 1}) == outcome
    listed = (ToolSpec("echo", "says it back", {"type": "object"}),)
    assert await tools.list_tools() == await tools.list_tools() == listed
    with pytest.raises(CassetteMiss, match=r"\(recorded 2 times, asked again\)") as raised:
        await replay.complete(ask("hi"))
    assert not isinstance(raised.value, ProviderError)  # the agent loop lets it end the run


async def test_secrets_are_masked_before_writing_and_replay_still_matches(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    environ = {"SERVICE_TOKEN": SECRET, "HOME": "/home/someone"}

    class Leaky(Counting):
        async def complete(self, request: ModelRequest) -> ModelReply:
            return ModelReply(tool_uses=(ToolUse("u1", "echo", {"auth": SECRET}),))

        async def call(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
            return ToolOutcome(text=f"used {arguments['auth']}")

    recording = Cassette.recording(path, secrets=["extra-secret"], environ=environ)
    reply = await RecordingProvider(Leaky(), recording).complete(ask(f"my token is {SECRET}, extra-secret"))
    assert reply.tool_uses[0].arguments == {"auth": SECRET}  # the live run is not changed
    await RecordingToolHost(Leaky(), recording).call("echo", {"auth": SECRET})
    text = path.read_text()
    assert SECRET not in text and "extra-secret" not in text
    assert "my token is ***, ***" in text and "used ***" in text

    cassette = Cassette.replaying(path, secrets=["extra-secret"], environ=environ)
    replayed = await ReplayProvider(cassette).complete(ask(f"my token is {SECRET}, extra-secret"))
    assert replayed.tool_uses[0].arguments == {"auth": "***"}
    # The replayed (masked) arguments find the call recorded with the real ones.
    assert (await ReplayToolHost(cassette).call("echo", {"auth": "***"})).text == "used ***"


async def test_writes_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "deep" / "c.json"
    cassette = Cassette.recording(path, environ=NO_ENV)
    await RecordingProvider(Counting(), cassette).complete(ask("one"))
    before = path.read_text()

    def broken(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(
        CassetteError, match=rf"{path}: cannot write the cassette \(No space left on device\)"
    ):
        await RecordingProvider(Counting(), cassette).complete(ask("two"))
    assert path.read_text() == before  # the old cassette is whole
    assert sorted(entry.name for entry in path.parent.iterdir()) == ["c.json"]  # no temporary file left


def test_unreadable_cassettes_are_errors_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(CassetteError, match=r"missing.json: no cassette recorded here"):
        Cassette.replaying(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "toolproof_cassette": 1,\n  "exchanges": [,]\n}\n')
    with pytest.raises(CassetteError, match=r"bad.json:3:17: not JSON"):
        Cassette.replaying(bad)
    bad.write_text(json.dumps({"exchanges": []}))
    with pytest.raises(CassetteError, match=r"not a toolproof cassette"):
        Cassette.replaying(bad)
    bad.write_text(json.dumps({"toolproof_cassette": 1, "exchanges": [{"kind": "chat"}]}))
    with pytest.raises(
        CassetteError, match=r"exchanges\[0\]: must be a mapping with kind model, tools, call or http"
    ):
        Cassette.replaying(bad)


async def test_a_hand_broken_entry_names_its_field(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    await RecordingProvider(Counting(), Cassette.recording(path, environ=NO_ENV)).complete(ask("hi"))
    data = json.loads(path.read_text())
    data["exchanges"][0]["reply"]["tool_uses"] = [{"id": "x"}]
    path.write_text(json.dumps(data))
    with pytest.raises(CassetteError, match=r"exchanges\[0\]\.reply\.tool_uses\.0\.name: Field required"):
        await ReplayProvider(Cassette.replaying(path, environ=NO_ENV)).complete(ask("hi"))


def test_cassette_files_are_readable_and_distinct(tmp_path: Path) -> None:
    def case(file: str, name: str) -> AgentCase:
        return AgentCase(name=name, source=SourceRef(file=Path(file), line=1), dialect="toolproof")

    first = cassette_file(tmp_path, case("evals/refunds.yaml", "refund: double charge?"))
    assert first.parent == tmp_path
    assert first.name.startswith("refunds--refund-double-charge--") and first.suffix == ".json"
    assert cassette_file(tmp_path, case("other/refunds.yaml", "refund: double charge?")) != first
