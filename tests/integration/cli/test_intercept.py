"""`toolproof intercept` between a real MCP client (the official SDK's) and real servers.

The proxy runs as its own process (`python -m toolproof intercept ...`), launched the way an agent launches
a server; its stdout is the protocol channel and its verdict comes on stderr.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from anyio.abc import Process
from mcp import Client
from mcp.shared.exceptions import MCPError
from tests.integration.mcp.helpers import MISBEHAVING, NOTES, alive

from toolproof.cli import main
from toolproof.mcp.process import ServerProcess, descendants, scan
from toolproof.mcp.stdio import StdioChannel

T = TypeVar("T")
EXIT_LIMIT_S = 60.0
NOTES_SERVER = f"{sys.executable} {NOTES}"
PASSING = """\
name: notes agent
trajectory:
  - {type: order, tools: [search_notes, get_note]}
  - {type: presence, tools: [get_note, add_note]}
  - {type: absence, tools: [delete_note, clear_notes]}
  - {type: args_contain, tool: get_note, args: {note_id: 1}}
"""


def misbehaving(mode: str = "") -> str:
    return f"{sys.executable} {MISBEHAVING} {mode}".strip()


@pytest.fixture
def trajectory(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str) -> Path:
        path = tmp_path / "trajectory.yaml"
        path.write_text(textwrap.dedent(text))
        return path

    return write


def intercept(server: str, trajectory: Path, *extra: str) -> list[str]:
    proxy = [sys.executable, "-m", "toolproof", "intercept"]
    return [*proxy, "--server", server, "--trajectory", str(trajectory), *extra]


@dataclass
class Agent:
    client: Client
    process: Process


@dataclass
class Finished:
    """How the launched process ended, what it wrote to stderr, and the processes seen under it."""

    status: int
    stderr: str
    seen: set[int] = field(default_factory=set)


async def as_agent(
    command: list[str], script: Callable[[Agent], Awaitable[T]], *, close: bool = True
) -> tuple[T, Finished]:
    """Launch `command` as an MCP client launches a server, initialize, run `script`, then close stdin
    (unless `close` is False) and wait for the process to exit on its own."""
    process = await anyio.open_process(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    pipes = ServerProcess(process, stop_grace=0, term_grace=0)
    seen: set[int] = set()

    def look() -> None:
        seen.update(info.pid for info in descendants(process.pid, scan()))

    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(pipes.drain_stderr)
            async with Client(StdioChannel(pipes, 1 << 26).streams(), mode="legacy", cache=None) as client:
                look()
                value = await script(Agent(client, process))
                look()
            if close:
                assert process.stdin is not None
                await process.stdin.aclose()
            with anyio.fail_after(EXIT_LIMIT_S):
                await process.wait()
            await pipes.settle(5)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return value, Finished(process.returncode, pipes.stderr, seen)


async def notes_calls(agent: Agent) -> list[Any]:
    """A short agent session on the notes server; each outcome as the client saw it."""
    outcomes: list[Any] = []
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_notes", {"query": "milk"}),
        ("get_note", {"note_id": 1}),
        ("get_note", {"note_id": 99}),
        ("export_notes", {"format": "xml"}),
        ("add_note", {"title": "Call Bob", "body": "about the trip", "tags": ["work"]}),
    ]
    for tool, args in calls:
        try:
            result = await agent.client.call_tool(tool, args)
            outcomes.append(result.model_dump(mode="json", by_alias=True))
        except MCPError as error:
            outcomes.append({"code": error.error.code, "message": error.error.message})
    return outcomes


def gone(finished: Finished) -> bool:
    return bool(finished.seen) and not any(alive(pid) for pid in finished.seen)


def test_the_agent_sees_what_the_server_says_and_a_passing_trajectory_exits_0(
    trajectory: Callable[[str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = trajectory(PASSING)
    audit = tmp_path / "calls.jsonl"
    report = tmp_path / "report.json"
    command = intercept(NOTES_SERVER, path, "--audit-log", str(audit), "--json", str(report))
    proxied, finished = anyio.run(as_agent, command, notes_calls)
    direct, _ = anyio.run(as_agent, [sys.executable, str(NOTES)], notes_calls)

    assert proxied == direct
    assert proxied[2]["isError"] is True and proxied[3]["code"] == -32602
    assert finished.status == 0, finished.stderr
    assert "PASS  notes agent" in finished.stderr
    assert json.loads(report.read_text())["results"][0]["status"] == "PASS"
    assert gone(finished)

    records = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(r["tool"], r["is_error"]) for r in records] == [
        ("search_notes", False), ("get_note", False), ("get_note", True), ("export_notes", True),
        ("add_note", False),
    ]
    assert records[3]["error"] == "-32602: unsupported format 'xml': use json or markdown"
    recheck = tmp_path / "recheck.yaml"
    recheck.write_text(PASSING + f"audit_log: {audit}\n")
    assert main(["run", str(recheck)]) == 0
    assert "1 passed" in capsys.readouterr().out


def test_a_failing_trajectory_exits_1_with_the_reason_on_stderr(
    trajectory: Callable[[str], Path], tmp_path: Path
) -> None:
    path = trajectory("""\
        name: reads before searching
        trajectory:
          - {type: order, tools: [get_note, search_notes]}
        """)
    report = tmp_path / "report.json"
    command = intercept(NOTES_SERVER, path, "--junit", str(report))
    outcomes, finished = anyio.run(as_agent, command, notes_calls)
    assert outcomes[0]["content"][0]["text"] == "#2 Shopping"
    assert finished.status == 1
    assert "FAIL  reads before searching" in finished.stderr
    assert "order: Tool sequence order was not satisfied: get_note -> search_notes" in finished.stderr
    assert "<failure" in report.read_text()
    assert gone(finished)


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "milk", "limit": 5}),
    ("read", {"id": 1}),
    ("write", {"id": 1, "text": "x"}),
]


def raw_session(calls: list[tuple[str, dict[str, Any]]]) -> bytes:
    """What a scripted agent sends: initialize, then the tool calls, each message on its own line."""
    client = {"name": "script", "version": "1"}
    init = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client}
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for number, (tool, args) in enumerate(calls, start=1):
        params = {"name": tool, "arguments": args}
        messages.append({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
    return b"".join(json.dumps(message).encode() + b"\n" for message in messages)


def run_raw(command: list[str], data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(command, input=data, capture_output=True, timeout=EXIT_LIMIT_S, check=False)


@pytest.mark.parametrize(
    ("check", "passing", "failing", "reason"),
    [
        ("order", "tools: [search, write]", "tools: [write, read]", "order: Tool sequence order was not"),
        ("presence", "tools: [read, search]", "tools: [read, delete]", "Required tool not used: delete"),
        ("absence", "tools: [delete]", "tools: [delete, write]", "absence: Forbidden tool used: write"),
        ("args_contain", "tool: search, args: {limit: 5}", "tool: read, args: {id: 2}", "= 1 is not \"2\""),
    ],
)
def test_each_check_kind_passes_and_fails_on_the_recorded_calls(
    trajectory: Callable[[str], Path], tmp_path: Path, check: str, passing: str, failing: str, reason: str
) -> None:
    server = misbehaving()
    good_file = trajectory(f"trajectory: [{{type: {check}, {passing}}}]\n")
    good = run_raw(intercept(server, good_file), raw_session(CALLS))
    assert good.returncode == 0, good.stderr.decode()
    report = tmp_path / "report.json"
    bad_file = trajectory(f"name: {check} case\ntrajectory: [{{type: {check}, {failing}}}]\n")
    bad = run_raw(intercept(server, bad_file, "--json", str(report)), raw_session(CALLS))
    assert bad.returncode == 1
    assert reason in bad.stderr.decode()
    failure = json.loads(report.read_text())["results"][0]["failure"]
    assert failure["check"] == check
    assert bad.stdout.count(b'"result"') == 1 + len(CALLS)  # every answer still reached the agent


def test_garbage_on_the_servers_stdout_is_forwarded_unchanged(trajectory: Callable[[str], Path]) -> None:
    data = raw_session(CALLS)
    direct = run_raw(misbehaving("garbage").split(), data)
    proxied = run_raw(intercept(misbehaving("garbage"), trajectory(PASSING)), data)
    assert b"not json {{{\n" in direct.stdout and b"DEBUG handling tools/call\n" in direct.stdout
    assert proxied.stdout == direct.stdout
    assert b"toolproof" not in proxied.stdout


@pytest.mark.parametrize("files", [False, True], ids=["pipes", "files"])
def test_every_byte_passes_both_ways_unchanged(
    trajectory: Callable[[str], Path], tmp_path: Path, files: bool
) -> None:
    """Through `cat`, which sends back what it gets: invalid UTF-8, NULs, CRLF, a 2 MiB line, no final
    newline; the tool calls among them are still recorded. Our stdin and stdout may be pipes or files."""
    calls = raw_session(CALLS)
    data = b"\xff\xfe\x00 garbage\r\n" + calls[:37] + b"\n" + calls + b"x" * (2 << 20) + b"\n{unfinished"
    command = intercept("cat", trajectory("trajectory: [{type: order, tools: [search, read, write]}]\n"))
    if files:
        source, target = tmp_path / "in", tmp_path / "out"
        source.write_bytes(data)
        with source.open("rb") as stdin, target.open("wb") as stdout:
            status = subprocess.run(command, stdin=stdin, stdout=stdout, timeout=EXIT_LIMIT_S).returncode
        forwarded = target.read_bytes()
    else:
        done = run_raw(command, data)
        status, forwarded = done.returncode, done.stdout
    assert forwarded == data
    assert status == 0


def test_the_timeout_ends_a_session_while_the_agent_is_idle(trajectory: Callable[[str], Path]) -> None:
    path = trajectory("trajectory: [{type: presence, tools: [t]}]\n")

    async def call_then_idle(agent: Agent) -> str:
        result = await agent.client.call_tool("t", {})
        with anyio.fail_after(EXIT_LIMIT_S):
            await agent.process.wait()  # idle, with the proxy's stdin still open
        return str(result.model_dump(mode="json")["content"][0]["text"])

    command = intercept(misbehaving(), path, "--timeout", "8s")
    text, finished = anyio.run(lambda: as_agent(command, call_then_idle, close=False))
    assert text == "ok"
    assert finished.status == 0, finished.stderr
    assert "the session timed out after 8s; 1 tool call recorded" in finished.stderr
    assert gone(finished)


def test_a_server_that_crashes_mid_session_ends_it_and_the_calls_are_still_checked(
    trajectory: Callable[[str], Path],
) -> None:
    path = trajectory("trajectory: [{type: presence, tools: [t, u]}]\n")

    async def crash(agent: Agent) -> str:
        with pytest.raises(MCPError) as raised:
            await agent.client.call_tool("t", {})
        return raised.value.error.message

    command = intercept(misbehaving("exit_mid_call"), path)
    message, finished = anyio.run(lambda: as_agent(command, crash, close=False))
    assert "closed" in message.lower()
    assert "panic: database is locked" in finished.stderr  # the server's own stderr, passed through
    assert "the server exited with code 3 before the agent closed the session; 1 tool call" in finished.stderr
    assert finished.status == 1
    assert "presence: Required tool not used: u" in finished.stderr
    assert gone(finished)


def test_sigterm_from_the_agent_stops_the_server_and_still_gives_the_verdict(
    trajectory: Callable[[str], Path],
) -> None:
    path = trajectory("trajectory: [{type: presence, tools: [t]}]\n")

    async def call_then_stop(agent: Agent) -> None:
        await agent.client.call_tool("t", {})
        agent.process.send_signal(signal.SIGTERM)
        with anyio.fail_after(EXIT_LIMIT_S):
            await agent.process.wait()

    command = intercept(misbehaving("ignore_sigterm"), path)
    _, finished = anyio.run(lambda: as_agent(command, call_then_stop, close=False))
    assert finished.status == 128 + signal.SIGTERM, finished.stderr
    assert "stopped by SIGTERM; 1 tool call recorded" in finished.stderr
    assert "PASS  " in finished.stderr
    assert finished.stderr.endswith("toolproof intercept: stopped by SIGTERM (exit status 143)\n")
    assert gone(finished)


def test_an_agent_that_stops_reading_ends_the_session_and_it_is_noted(
    trajectory: Callable[[str], Path],
) -> None:
    init, rest = raw_session(CALLS[:1]).split(b"\n", 1)
    process = subprocess.Popen(
        intercept(misbehaving(), trajectory("trajectory: [{type: presence, tools: [search]}]\n")),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    process.stdin.write(init + b"\n")
    process.stdin.flush()
    assert b'"result"' in process.stdout.readline()
    process.stdout.close()  # the agent stops reading, and sends one more call
    process.stdin.write(rest)
    process.stdin.flush()
    assert process.wait(timeout=EXIT_LIMIT_S) == 0
    stderr = process.stderr.read().decode()
    process.stdin.close()
    process.stderr.close()
    note = "the agent stopped reading the server's answers before it closed the session; 1 tool call recorded"
    assert note in stderr


@pytest.mark.parametrize("mode", ["group_child", "daemon"])
def test_no_process_outlives_the_session(
    trajectory: Callable[[str], Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("PID_FILE", str(pids))

    async def call(agent: Agent) -> None:
        await agent.client.call_tool("t", {})

    _, finished = anyio.run(as_agent, intercept(misbehaving(mode), trajectory(PASSING)), call)
    children = [int(pid) for pid in pids.read_text().split()]
    assert children
    assert not any(alive(pid) for pid in [*children, *finished.seen])
    assert finished.status == 1  # the notes trajectory does not fit this server's calls


def test_through_server_everything(trajectory: Callable[[str], Path]) -> None:
    path = trajectory("""\
        name: echo then add
        trajectory:
          - {type: order, tools: [echo, get-sum]}
          - {type: args_contain, tool: get-sum, args: {a: 2, b: 3}}
          - {type: absence, tools: [trigger-long-running-operation]}
        """)

    async def use(agent: Agent) -> list[str]:
        echoed = await agent.client.call_tool("echo", {"message": "hello"})
        summed = await agent.client.call_tool("get-sum", {"a": 2, "b": 3})
        return [str(result.model_dump(mode="json")["content"][0]["text"]) for result in (echoed, summed)]

    texts, finished = anyio.run(as_agent, intercept("mcp-server-everything", path), use)
    assert "hello" in texts[0] and "5" in texts[1]
    assert finished.status == 0, finished.stderr
    assert "PASS  echo then add" in finished.stderr
    assert gone(finished)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json", "-"], "--json -: stdout carries the MCP session"),
        (["--timeout=-1s"], "--timeout: must not be negative"),
        (["--server", "no-such-server-xyz"], "command not found: 'no-such-server-xyz'"),
        (["--server", "'unbalanced"], "--server: No closing quotation"),
    ],
)
def test_usage_errors_exit_2_without_touching_stdout(
    trajectory: Callable[[str], Path], args: list[str], message: str
) -> None:
    command = [*intercept(misbehaving(), trajectory(PASSING)), *args]
    done = run_raw(command, b"")
    assert done.returncode == 2
    assert message in done.stderr.decode()
    assert done.stdout == b""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("trajectory: [{type: sequence, tools: [a]}]\n", "trajectory[0].type"),
        ("name: plain\nassert: {tool: echo}\n", "'plain' has no trajectory: checks (its block is assert)"),
        ("name: two\ntiemout: 3s\ntrajectory: [{type: sequence, tools: [a]}]\n", "two (load error)"
         "  0ms\n      configuration error: 2 problems:\n"),
    ],
)
def test_a_bad_trajectory_file_exits_2_before_starting_the_server(
    trajectory: Callable[[str], Path], tmp_path: Path, text: str, message: str
) -> None:
    marker = tmp_path / "started"
    server = f"{sys.executable} -c \"open('{marker}', 'w')\""
    done = run_raw(intercept(server, trajectory(text)), b"")
    assert done.returncode == 2
    assert message in done.stderr.decode()
    assert not marker.exists()


def test_verdicts_match_mcp_assert_intercept_on_the_same_session(trajectory: Callable[[str], Path]) -> None:
    data = raw_session([*CALLS, ("read", {"id": 2})])
    checks = [
        "order, tools: [search, write]",
        "order, tools: [write, search]",
        "args_contain, tool: read, args: {id: 1}",
    ]
    statuses = []
    for check in checks:
        path = trajectory(f"name: parity\ntrajectory: [{{type: {check}}}]\n")
        peer_command = ["mcp-assert", "intercept", "--server", misbehaving(), "--trajectory", str(path)]
        peer = run_raw(peer_command, data)
        ours = run_raw(intercept(misbehaving(), path), data)
        statuses.append((peer.returncode, ours.returncode))
        assert ours.stdout in peer.stdout  # the peer adds its report to the same stream
    assert statuses == [(0, 0), (1, 1), (0, 0)]
