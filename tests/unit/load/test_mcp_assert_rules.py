"""How mcp-assert documents map onto cases: precedence, names, timeouts, transports."""

from __future__ import annotations

import pytest
from tests.unit.load.conftest import Write

from toolproof.load import load_file
from toolproof.load.mcp_assert import BLOCKS, chosen_block, detect
from toolproof.model.server_case import AssertBlock, Case
from toolproof.model.server_config import Transport

SERVER = "server: {command: srv}\n"


def _case(write: Write, text: str, name: str = "case.yaml") -> Case:
    (item,) = load_file(write(text, name))
    assert isinstance(item, Case), item
    return item


@pytest.mark.parametrize(
    ("present", "chosen"),
    [
        (["assert", "trajectory"], "trajectory"),
        (["assert", "assert_notifications"], "assert_notifications"),
        (["assert_notifications", "assert_logging"], "assert_logging"),
        (["assert_logging", "assert_sampling"], "assert_sampling"),
        (["assert_sampling", "assert_completion"], "assert_completion"),
        (["assert_completion", "assert_prompts"], "assert_prompts"),
        (["assert_prompts", "assert_resources"], "assert_resources"),
        (["assert_resources", "trajectory"], "trajectory"),
        (list(BLOCKS), "trajectory"),
    ],
)
def test_block_precedence(present: list[str], chosen: str) -> None:
    assert chosen_block({key: {"x": 1} for key in present}) == chosen


def test_null_block_and_empty_trajectory_count_as_absent(write: Write) -> None:
    # mcp-assert checks `trajectory` by length and the other blocks by pointer (seen with 0.12.3)
    case = _case(write, SERVER + "trajectory: []\nassert_resources:\nassert: {tool: t}\n")
    assert case.block.kind == "assert"
    assert chosen_block({"assert_resources": {}, "assert": {"tool": "t"}}) == "assert_resources"


def test_ignored_blocks_are_not_validated(write: Write) -> None:
    case = _case(write, SERVER + "assert_prompts: {get: {name: p}}\nassert: {tool: t, bogus: 1}\n")
    assert case.block.kind == "assert_prompts"


def test_trajectory_keys_feed_the_trajectory_block(write: Write) -> None:
    case = _case(write, "audit_log: trace.jsonl\ntrajectory:\n  - {type: presence, tools: [a]}\n")
    assert case.block.kind == "trajectory"
    assert case.block.audit_log == "trace.jsonl"
    assert case.block.trace is None


def test_trace_without_trajectory_is_ignored(write: Write) -> None:
    case = _case(write, SERVER + "trace: [{tool: a}]\nassert: {tool: t}\n")
    assert case.block.kind == "assert"


@pytest.mark.parametrize(
    ("name_line", "expected"),
    [("", "case.yaml"), ('name: ""\n', "case.yaml"), ("name:\n", "case.yaml"), ("name: 12\n", "12"),
     ("name: true\n", "true"), ("name: my case\n", "my case")],
)
def test_name_defaults_to_the_file_name(write: Write, name_line: str, expected: str) -> None:
    assert _case(write, name_line + SERVER + "assert: {tool: t}\n").name == expected


def test_name_default_keeps_the_extension_and_drops_directories(write: Write) -> None:
    case = _case(write, SERVER + "assert: {tool: t}\n", name="sub/probe.yml")
    assert case.name == "probe.yml"
    assert case.node_id.endswith("sub/probe.yml::probe.yml")


@pytest.mark.parametrize(
    ("written", "seconds"),
    [("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("2h", 7200.0), ("45", 45.0), ("2.5", 2.5),
     ('"10"', 10.0), (None, None)],
)
def test_timeout_is_a_go_duration_or_seconds(
    write: Write, written: str | None, seconds: float | None
) -> None:
    timeout = "" if written is None else f"timeout: {written}\n"
    assert _case(write, timeout + SERVER + "assert: {tool: t}\n").timeout == seconds


@pytest.mark.parametrize("written", ["STDIO", "SSE", "Http"])
def test_transport_is_case_insensitive(write: Write, written: str) -> None:
    where = "command: srv" if written == "STDIO" else "url: 'http://h/'"
    case = _case(write, f"server: {{transport: {written}, {where}}}\nassert: {{tool: t}}\n")
    assert case.server.transport == Transport(written.lower())


@pytest.mark.parametrize(
    ("written", "expected"), [("true", True), ("yes", True), ("false", False), ("", False)]
)
def test_skip(write: Write, written: str, expected: bool) -> None:
    skip = f"skip: {written}\n" if written else ""
    assert _case(write, skip + SERVER + "assert: {tool: t}\n").skip is expected


@pytest.mark.parametrize(("written", "expected"), [("TOKEN", "TOKEN"), ('""', None), ("", None)])
def test_skip_unless_env_empty_means_no_condition(write: Write, written: str, expected: str | None) -> None:
    line = f"skip_unless_env: {written}\n" if written else ""
    assert _case(write, line + SERVER + "assert: {tool: t}\n").skip_unless_env == expected


def test_no_server_key_gives_the_default_server(write: Write) -> None:
    case = _case(write, "setup: [{tool: s}]\nassert: {tool: t}\n")
    assert case.server.command == "" and case.server.transport is Transport.STDIO
    assert [step.tool for step in case.setup] == ["s"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"assert": {}}, True),
        ({"assert_anything": 1}, True),
        ({"trajectory": []}, True),
        ({"server": {}}, True),
        ({"setup": []}, True),
        ({"name": "x", "timeout": "1s"}, False),
        ({"scenarios": []}, False),
    ],
)
def test_detect(data: dict[str, object], expected: bool) -> None:
    assert detect(data) is expected


def test_null_fields_are_absent_but_null_data_stays(write: Write) -> None:
    case = _case(
        write,
        """
        name:
        server:
          command: srv
          env:
          client_capabilities:
        setup:
        assert:
          tool: t
          args: {a: null, b: [null]}
          expect:
            json_path: {$.x: null}
            contains:
        timeout:
        skip:
        """,
    )
    assert case.server.env == {} and case.server.client_capabilities is None and case.setup == []
    assert isinstance(case.block, AssertBlock)
    assert case.block.args == {"a": None, "b": [None]}
    assert case.block.expect.json_path == {"$.x": None}
    assert case.block.expect.contains is None
    assert (case.name, case.timeout, case.skip) == ("case.yaml", None, False)


def test_unknown_key_with_a_null_value_is_still_unknown(write: Write) -> None:
    (error,) = load_file(write("server: {command: srv}\nassert:\n  tool: t\n  expect:\n    contians:\n"))
    expected = "case.yaml:5:5: assert.expect.contians: unknown key (did you mean 'contains'?)"
    assert str(error).endswith(expected)
