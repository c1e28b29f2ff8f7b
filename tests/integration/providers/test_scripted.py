"""The scripted provider: its file format, where its answers come from, and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.load.script_file import ScriptError
from toolproof.model.transcript import Usage
from toolproof.providers.base import Message, ModelReply, ModelRequest, ProviderError, ToolUse
from toolproof.providers.scripted import ScriptedProvider, step_index
from toolproof.run.providers import load_scripted

SCRIPT = """\
scenarios:
  refund:
    - steps:
        - tools:
            - name: lookup_order
              arguments: {order: ORD-9921}
            - {name: check_policy, id: policy-1}
          reply: Let me look.
        - reply: Your refund is on its way.
          usage: {input_tokens: 120, output_tokens: 14}
    - steps:
        - reply: You're welcome.
  "*":
    - steps:
        - reply: I answer every other scenario.
"""

USER = Message("user", "I was charged twice")
CALLS = Message(
    "assistant", "Let me look.", (ToolUse("call_0_0_0", "lookup_order", {"order": "ORD-9921"}),)
)


def request(*messages: Message, scenario: str = "refund", turn: int = 0) -> ModelRequest:
    return ModelRequest("scripted", messages, scenario=scenario, turn=turn)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "model.yaml"
    path.write_text(text)
    return path


@pytest.fixture
def scripted(tmp_path: Path) -> ScriptedProvider:
    return load_scripted(write(tmp_path, SCRIPT))


async def test_a_turn_walks_through_its_steps(scripted: ScriptedProvider) -> None:
    first = await scripted.complete(request(USER))
    assert first == ModelReply(
        text="Let me look.",
        tool_uses=(
            ToolUse("call_0_0_0", "lookup_order", {"order": "ORD-9921"}),
            ToolUse("policy-1", "check_policy", {}),
        ),
        stop_reason="tool_use",
    )
    results = (
        Message("tool", "paid twice", tool_use_id="call_0_0_0"),
        Message("tool", "ok", tool_use_id="policy-1"),
    )
    second = await scripted.complete(request(USER, CALLS, *results))
    assert second == ModelReply(
        text="Your refund is on its way.",
        usage=Usage(input_tokens=120, output_tokens=14),
        stop_reason="end_turn",
    )
    assert len(scripted.requests) == 2
    assert scripted.requests[1].messages[-1].text == "ok"


async def test_the_turn_number_picks_the_turn(scripted: ScriptedProvider) -> None:
    history = (USER, CALLS, Message("assistant", "Your refund is on its way."), Message("user", "thanks"))
    reply = await scripted.complete(request(*history, turn=1))
    assert reply.text == "You're welcome."


async def test_other_scenarios_get_the_wildcard(scripted: ScriptedProvider) -> None:
    reply = await scripted.complete(request(USER, scenario="something else"))
    assert reply.text == "I answer every other scenario."


@pytest.mark.parametrize(
    ("turn", "messages", "named"),
    [
        (0, (USER, CALLS, Message("tool", "x"), Message("assistant", "done")), "no step 2 in turn 0"),
        (2, (USER,), "no step 0 in turn 2"),
    ],
)
async def test_a_request_without_a_scripted_step_is_an_error(
    scripted: ScriptedProvider, turn: int, messages: tuple[Message, ...], named: str
) -> None:
    with pytest.raises(ProviderError) as caught:
        await scripted.complete(request(*messages, turn=turn))
    message = str(caught.value)
    assert "model.yaml" in message
    assert f"scenario 'refund' has {named}" in message
    assert "the script has 2 turn(s)" in message


async def test_an_unknown_scenario_without_wildcard_is_an_error(tmp_path: Path) -> None:
    provider = load_scripted(write(tmp_path, "scenarios:\n  a:\n    - steps: [{reply: hi}]\n"))
    with pytest.raises(ProviderError, match=r"no script for scenario 'b' \(scripted scenarios: 'a'\)"):
        await provider.complete(request(USER, scenario="b"))


def test_step_index_counts_assistant_messages_since_the_last_user_message() -> None:
    assert step_index([]) == 0
    assert step_index([USER]) == 0
    assert step_index([USER, CALLS, Message("tool", "r", tool_use_id="x")]) == 1
    assert step_index([USER, CALLS, Message("tool", "r"), Message("assistant", "a"), USER]) == 0


async def test_in_memory_turns() -> None:
    provider = ScriptedProvider.from_turns(
        [ModelReply(tool_uses=(ToolUse("1", "add", {"a": 1}),)), ModelReply(text="2")],
        [ModelReply(text="bye")],
    )
    assert (await provider.complete(request(USER, scenario="any"))).tool_uses[0].name == "add"
    assert (await provider.complete(request(USER, CALLS, scenario="any"))).text == "2"
    assert (await provider.complete(request(USER, CALLS, USER, scenario="any", turn=1))).text == "bye"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "scenarios:\n  a:\n    - steps:\n        - replay: hi\n",
            "model.yaml:4:11: scenarios.a[0].steps[0].replay: unknown key (did you mean 'reply'?)",
        ),
        (
            "scenarios:\n  a:\n    - steps:\n        - usage: {input_tokens: 3}\n",
            "model.yaml:4:11: scenarios.a[0].steps[0]: a step needs `reply` or `tools`",
        ),
        (
            "scenarios:\n  a:\n    - steps:\n        - tools: [{arguments: {}}]\n",
            "model.yaml:4:19: scenarios.a[0].steps[0].tools[0].name: required key missing",
        ),
        (
            "scenarios:\n  a:\n    - steps:\n        - reply: hi\n          usage: {input_tokens: lots}\n",
            "model.yaml:5:19: scenarios.a[0].steps[0].usage.input_tokens: Input should be a valid integer",
        ),
        (
            "scenarios:\n  a:\n    - steps: []\n",
            "model.yaml:3:7: scenarios.a[0].steps: List should have at least 1 item",
        ),
        ("scenario: {}\n", "model.yaml:1:1: scenario: unknown key (did you mean 'scenarios'?)"),
        ("scenarios: {a: [\n", "model.yaml:2:1: YAML syntax error"),
        ("scenarios: {}\n---\nscenarios: {}\n", "model.yaml:3:1: a script file holds exactly one YAML"),
    ],
)
def test_file_errors_name_file_line_and_field(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(ScriptError) as caught:
        load_scripted(write(tmp_path, text))
    assert expected in str(caught.value)
    assert all(error.file.name == "model.yaml" for error in caught.value.errors)


def test_a_missing_file_is_a_script_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match="cannot read file"):
        load_scripted(tmp_path / "absent.yaml")
