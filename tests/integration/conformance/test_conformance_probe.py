"""`toolproof conformance` against real servers (stdio and HTTP), against a server that breaks one rule at a
time, and side by side with the official suite in test_official_side_by_side.py."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from tests.integration.mcp.helpers import ROOT, listening

from toolproof.cli import main

NONCONFORMING = ROOT / "tests" / "servers" / "nonconforming_server.py"
NOTES = ROOT / "examples" / "servers" / "notes_server.py"
MISBEHAVING = ROOT / "tests" / "servers" / "misbehaving_server.py"
STRAY = ROOT / "tests" / "servers" / "stray_stdout_server.py"
# The rule each mode of nonconforming_server.py breaks, as the checks that must fail (and no other).
BROKEN = {
    "echo-version": {"version negotiation"},
    "early-request": {"nothing asked before initialized"},
    "busy-ping": {"ping"},
    # answering everything also answers completion/complete and prompts/list, which it does not advertise,
    # and resources/templates/list with an empty object (no resourceTemplates)
    "unknown-as-result": {
        "unknown method is -32601",
        "completions advertised only if implemented",
        "prompts advertised only if implemented",
        "resource templates are read",
    },
    "internal-params": {"malformed params are -32602"},
    "numeric-ids": {"request ids are echoed"},
    "endless-pages": {"tools/list pages"},
    "duplicate-pages": {"tools/list pages"},
    "silent-logging": {"logging advertised only if implemented"},
    "hidden-subscribe": {"resources.subscribe advertised only if implemented"},
    "bad-schema": {"tool schemas are valid JSON Schema"},
    "wrong-structure": {"structuredContent matches outputSchema"},
    "stray-progress": {"progress notifications"},
    "unannounced-list-changed": {"notifications/tools/list_changed only if listChanged"},
    "cancel-crash": {"a stray cancellation is ignored"},
    # only ping itself: the check after a stray cancellation asks for a listing the server has
    "no-ping": {"ping"},
    "bad-image": {"image content is well-formed"},
    "bad-log": {"log messages are well-formed"},
    "undeclared-log": {"log messages are well-formed"},
    "bad-default": {"elicitation defaults match their types (SEP-1034)"},
    "bad-enum-names": {"elicitation enums are well-formed (SEP-1330)"},
    "late-progress": {"a tool's progress arrives during its call"},
}
pytestmark = pytest.mark.servers


def probe(server: str, tmp_path: Path, *flags: str) -> tuple[int, dict[str, str]]:
    """Exit status and each check's status (check name without its section) from the JSON report."""
    report = tmp_path / "report.json"
    status = main(["conformance", "--server", server, "--json", str(report), "-q", *flags])
    cases = json.loads(report.read_text())["results"]
    return status, {case["name"].rsplit(" [", 1)[0]: case["status"] for case in cases}


def failing(verdicts: dict[str, str]) -> set[str]:
    return {name for name, status in verdicts.items() if status == "FAIL"}


def test_a_conforming_server_passes_every_check(tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {NONCONFORMING} conforming", tmp_path)
    assert status == 0
    assert failing(verdicts) == set()
    assert len(verdicts) == 42


@pytest.mark.parametrize("mode", sorted(BROKEN))
def test_each_broken_rule_fails_its_check_and_only_it(mode: str, tmp_path: Path) -> None:
    status, verdicts = probe(f"{sys.executable} {NONCONFORMING} {mode}", tmp_path)
    assert status == 1
    assert failing(verdicts) == BROKEN[mode]


def test_a_failure_cites_the_spec_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--server", f"{sys.executable} {NONCONFORMING} busy-ping"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  ping [basic/utilities/ping]" in out
    assert "ping must be answered with an empty result, got result" in out
    assert "(spec: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping)" in out
    assert f"at {sys.executable} {NONCONFORMING} busy-ping:1" in out  # the command line, as it was given


@pytest.mark.parametrize("flags", [(), ("--quiet-start",)], ids=["banner", "print-in-a-tool"])
def test_a_stray_stdout_line_fails_the_stdio_check_citing_the_rule(
    flags: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A banner at start fails the check; a tool's print() alone is not reached (conformance calls no tool
    with arguments), so that server passes it."""
    server = shlex.join([sys.executable, str(STRAY), *flags])
    status, verdicts = probe(server, tmp_path)
    assert failing(verdicts) == ({"stdout holds only MCP messages"} if not flags else set())
    assert verdicts["stdout holds only MCP messages"] == ("FAIL" if not flags else "PASS")
    assert status == (0 if flags else 1)
    if not flags:
        assert main(["conformance", "--server", server]) == 1
        out = capsys.readouterr().out
        assert "not an MCP message: chatty server v1.0 ready (the server MUST NOT write anything" in out
        assert "\x1b" not in out
        assert "2025-11-25/basic/transports#stdio)" in out


@pytest.mark.parametrize(
    ("server", "expected"),
    [
        # The TypeScript SDK answers params that fail its schema with -32603, not -32602.
        ("mcp-server-everything", {"malformed params are -32602"}),
        ("mcp-server-memory", {"malformed params are -32602"}),
        ("mcp-server-filesystem {root}", {"malformed params are -32602"}),
        ("mcp-server-time", set()),
        (f"{sys.executable} {NOTES}", set()),
    ],
    ids=["everything", "memory", "filesystem", "time", "notes"],
)
def test_real_servers_over_stdio(server: str, expected: set[str], tmp_path: Path) -> None:
    status, verdicts = probe(server.format(root=tmp_path), tmp_path)
    assert failing(verdicts) == expected
    assert status == (1 if expected else 0)
    assert verdicts["version negotiation"] == verdicts["ping"] == "PASS"


def test_a_server_that_cannot_start_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", "--server", str(tmp_path / "no-such-server")]) == 2
    out = capsys.readouterr().out
    assert "ERROR connect" in out and "command not found" in out and "no-such-server" in out


def test_a_server_that_exits_at_start_shows_its_stderr_and_the_time_it_took(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    server = f"{sys.executable} {MISBEHAVING} exit_at_start"
    assert main(["conformance", "--server", server, "--json", str(report)]) == 2
    out = capsys.readouterr().out
    assert "exited with code 2" in out
    assert "fatal: configuration file /etc/notes.toml not found" in out
    assert " in 0ms" not in out
    document = json.loads(report.read_text())
    assert document["summary"]["duration_s"] > 0
    assert document["results"][0]["duration_ms"] > 0


def test_headers_is_the_spelling_and_header_is_taken_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"{sys.executable} {NONCONFORMING} conforming"
    assert main(["conformance", "--server", server, "-q", "--headers", "X-Probe=1"]) == 0
    assert "hint" not in capsys.readouterr().err
    assert main(["conformance", "--server", server, "-q", "--header", "X-Probe: 1"]) == 0
    assert "--header X-Probe:... is spelled --headers X-Probe=..." in capsys.readouterr().err
    assert main(["conformance", "--server", server, "--header", "no colon"]) == 2


def test_the_legacy_sse_transport(tmp_path: Path) -> None:
    command = [sys.executable, str(NOTES), "--transport", "sse"]
    with listening(command) as port:
        status, verdicts = probe(f"http://127.0.0.1:{port}/sse", tmp_path, "--transport", "sse")
    assert (status, failing(verdicts)) == (0, set())
    assert "session header required" not in verdicts  # the Streamable HTTP checks do not apply


# server-everything reads its port from PORT; `listening` passes --port, so a shim maps one to the other.
SERVE_EVERYTHING = (
    "import os, sys, shutil; port = sys.argv[sys.argv.index('--port') + 1]; "
    "os.execvpe(shutil.which('mcp-server-everything'), ['mcp-server-everything', 'streamableHttp'], "
    "{**os.environ, 'PORT': port})"
)


def test_a_saved_baseline_is_the_expected_failures_of_the_next_run(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    busy = f"{sys.executable} {NONCONFORMING} busy-ping"
    assert main(["conformance", "--server", busy, "-q", "--save-baseline", str(baseline)]) == 1
    assert main(["conformance", "--server", busy, "-q", "--baseline", str(baseline)]) == 0
    status, verdicts = probe(busy, tmp_path, "--baseline", str(baseline))
    assert (status, failing(verdicts)) == (0, {"ping"})  # the report still shows the failure
    numeric = f"{sys.executable} {NONCONFORMING} numeric-ids"
    assert main(["conformance", "--server", numeric, "-q", "--baseline", str(baseline)]) == 1


def test_an_inputs_file_with_a_mistake_is_a_usage_error_naming_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = tmp_path / "inputs.yaml"
    inputs.write_text("tools:\n  count: 3\n")
    server = f"{sys.executable} {NONCONFORMING} conforming"
    assert main(["conformance", "--server", server, "--inputs", str(inputs)]) == 2
    assert f"--inputs: {inputs}:2" in capsys.readouterr().err
