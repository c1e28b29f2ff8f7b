"""HTTP-agent exchanges in cassettes, without a server: stable keys, masking, ordered replay, loud misses."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from toolproof.sources.agent.cassette import (
    Cassette,
    CassetteError,
    CassetteMiss,
    RecordingSender,
    ReplaySender,
)
from toolproof.sources.agent.cassette_codec import http_record, key_of
from toolproof.sources.http_target import HttpAnswer, HttpRequest

SECRET = "tok-5f1d2c3b4a"
NO_ENV: dict[str, str] = {}


def request(
    user: str, ids: tuple[str, str] = ("rid-1", "sid-1"), turn: int = 1, **fields: Any
) -> HttpRequest:
    """A turn's request whose body carries the request and session ids, as a template would place them."""
    request_id, session_id = ids
    body = {"input": user, "meta": [{"id": request_id}, f"session {session_id}/{request_id}"], "n": 3}
    base = HttpRequest(turn, user, "POST", "http://agent/chat", body, request_id, session_id)
    return replace(base, **fields)


class Agent:
    """A stand-in Send that numbers its answers and echoes the message, so replays can be told apart."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, sent: HttpRequest) -> HttpAnswer:
        self.count += 1
        return HttpAnswer(status=200, body={"reply": f"{sent.user} #{self.count}"}, duration_ms=12.5)


def test_the_key_is_what_was_sent_without_the_runs_ids() -> None:
    first = http_record(request("hi"))
    assert first["body"] == {
        "input": "hi",
        "meta": [{"id": "{request_id}"}, "session {session_id}/{request_id}"],
        "n": 3,
    }
    again = replace(request("hi", ("rid-2", "sid-2"), turn=4), user="not part of the key")
    assert key_of(http_record(again)) == key_of(first)
    for changed in (request("ho"), request("hi", method="PUT"), request("hi", url="http://agent/other")):
        assert key_of(http_record(changed)) != key_of(first)


async def test_replay_serves_repeats_in_order_with_fresh_ids(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    recording = Cassette.recording(path, environ=NO_ENV)
    sender = RecordingSender(Agent(), recording)
    assert (await sender(request("hi"))).body == {"reply": "hi #1"}
    assert (await sender(request("hi", turn=2))).body == {"reply": "hi #2"}

    replay = ReplaySender(Cassette.replaying(path, environ=NO_ENV))
    fresh = ("rid-9", "sid-9")
    answers = [await replay(request("hi", fresh, turn)) for turn in (1, 2)]
    assert answers == [
        HttpAnswer(status=200, body={"reply": "hi #1"}, duration_ms=12.5),
        HttpAnswer(status=200, body={"reply": "hi #2"}, duration_ms=12.5),
    ]
    with pytest.raises(CassetteMiss, match=r"\(recorded 2 times, asked again\)"):
        await replay(request("hi", fresh, 3))


async def test_a_miss_names_the_cassette_the_turn_the_message_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    await RecordingSender(Agent(), Cassette.recording(path, environ=NO_ENV))(request("hi"))
    replay = ReplaySender(Cassette.replaying(path, environ=NO_ENV))
    asked = request("bye", turn=2)
    with pytest.raises(CassetteMiss) as raised:
        await replay(asked)
    assert str(raised.value) == (
        f"{path}: no recorded answer for the HTTP request of turn 2 (POST http://agent/chat, user message "
        f"'bye') (key {key_of(http_record(asked))}); record the run again"
    )


async def test_secrets_are_masked_in_what_was_sent_and_answered(tmp_path: Path) -> None:
    path = tmp_path / "c.json"

    async def leaky(sent: HttpRequest) -> HttpAnswer:
        return HttpAnswer(status=200, body={"echo": f"Bearer {SECRET}"}, duration_ms=1.0)

    recording = Cassette.recording(path, secrets=[SECRET], environ=NO_ENV)
    answer = await RecordingSender(leaky, recording)(request(f"my token is {SECRET}"))
    assert answer.body == {"echo": f"Bearer {SECRET}"}  # the live run is not changed
    text = path.read_text()
    assert SECRET not in text
    assert "my token is ***" in text and "Bearer ***" in text

    replay = ReplaySender(Cassette.replaying(path, secrets=[SECRET], environ=NO_ENV))
    assert (await replay(request(f"my token is {SECRET}"))).body == {"echo": "Bearer ***"}


async def test_a_hand_broken_answer_names_its_field(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    await RecordingSender(Agent(), Cassette.recording(path, environ=NO_ENV))(request("hi"))
    data = json.loads(path.read_text())
    data["exchanges"][0]["response"]["status"] = "ok"
    path.write_text(json.dumps(data))
    with pytest.raises(
        CassetteError, match=r"exchanges\[0\]\.response\.status: Input should be a valid integer"
    ):
        await ReplaySender(Cassette.replaying(path, environ=NO_ENV))(request("hi"))
