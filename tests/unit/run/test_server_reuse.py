"""Which cases may share a server under --reuse-server: the static rule, block type by block type, and
which servers are interchangeable."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.scenario import ToolsCalled
from toolproof.model.server_case import (
    AssertBlock,
    Case,
    CompletionArgument,
    CompletionBlock,
    CompletionRef,
    Expect,
    LoggingBlock,
    NotificationsBlock,
    PromptsBlock,
    ResourcesBlock,
    SamplingBlock,
    SetupStep,
    SourceRef,
    ToolsBlock,
    TrajectoryBlock,
)
from toolproof.model.server_config import AuthConfig, Transport
from toolproof.run.server_reuse import alone_reason, called_tools
from toolproof.sources.shared_servers import identity


def case(block: Any, **fields: Any) -> Case:
    return Case(name="c", source=SourceRef(file=Path("c.yaml")), block=block, **fields)


COMPLETION = CompletionBlock(
    ref=CompletionRef(type="ref/prompt", name="p"), argument=CompletionArgument(name="a", value="x")
)


@pytest.mark.parametrize(
    "block",
    [AssertBlock(tool="t"), ToolsBlock(), COMPLETION],
    ids=["assert", "assert_tools", "assert_completion"],
)
def test_reading_blocks_may_share(block: Any) -> None:
    assert alone_reason(case(block)) is None


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        (ResourcesBlock(read="r://x"), "assert_resources"),
        (PromptsBlock(), "assert_prompts"),
        (LoggingBlock(set_level="info"), "assert_logging"),
        (NotificationsBlock(tool="t"), "assert_notifications"),
        (SamplingBlock(tool="t"), "assert_sampling"),
        (TrajectoryBlock(checks=(ToolsCalled(tools=("t",)),)), "trajectory"),
    ],
)
def test_stateful_blocks_get_a_fresh_server(block: Any, kind: str) -> None:
    assert alone_reason(case(block)) == f"a {kind} block"


@pytest.mark.parametrize(
    "expect",
    [
        Expect(net_delta=0),
        Expect(file_contains={"{{fixture}}/a": "x"}),
        Expect(file_not_contains={"a": "x"}),
        Expect(file_not_exists=["a"]),
        Expect(file_unchanged=["a"]),
    ],
)
def test_fixture_and_state_expectations_get_a_fresh_server(expect: Expect) -> None:
    reason = alone_reason(case(AssertBlock(tool="t", expect=expect)))
    assert reason is not None and reason.endswith("expectation")


def test_isolate_gets_a_fresh_server() -> None:
    assert alone_reason(case(AssertBlock(tool="t"), isolate=True)) == "isolate: true"


def test_text_expectations_may_share() -> None:
    expect = Expect(contains=["a"], json_path={"$.x": 1}, not_error=True, matches_regex=["a+"])
    assert alone_reason(case(AssertBlock(tool="t", expect=expect))) is None


def test_every_called_tool_is_checked_setup_first() -> None:
    setup = [SetupStep(tool="write"), SetupStep(tool="read")]
    assert called_tools(case(AssertBlock(tool="t"), setup=setup)) == ["write", "read", "t"]
    assert called_tools(case(COMPLETION, setup=setup)) == ["write", "read"]


def test_servers_reached_with_other_credentials_are_never_interchangeable() -> None:
    http = ConnectSpec(transport=Transport.HTTP, url="http://127.0.0.1:1/mcp")
    one = replace(http, auth=AuthConfig(client_id="a", client_secret="s"))
    other = replace(http, auth=AuthConfig(client_id="b", client_secret="s"))
    assert identity(one) != identity(other) != identity(http)
    assert identity(one) == identity(replace(one, request_timeout=5))
