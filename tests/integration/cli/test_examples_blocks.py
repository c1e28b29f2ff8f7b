"""The example suites under examples/blocks: every case passes under toolproof, and mcp-assert 0.12.3 gives
the same verdict for each, except where it has a known bug (KNOWN_DIFFERENCES, asserted exactly, so a fixed
difference fails here too) or lacks the form altogether (NOT_COMPARED).

Both tools run as subprocesses, once per example directory, a few processes at a time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

pytestmark = [pytest.mark.servers, pytest.mark.parity]

ROOT = Path(__file__).resolve().parents[3]
BLOCKS = ROOT / "examples" / "blocks"
DIRECTORIES = sorted(path.name for path in BLOCKS.iterdir() if path.is_dir())
FIXTURES = {"client_capabilities": "examples/blocks/client_capabilities/fixtures"}
MCP_ASSERT = Path(sys.executable).parent / "mcp-assert"
PARALLEL_PROCESSES = 3

Key = tuple[str, str]
"""(example directory, case name)"""

NO_LISTENER = "mcp-assert sees no notifications unless the server block declares a client capability"
NO_PROGRESS_TOKEN = "mcp-assert sends no progressToken, so a spec-following server reports no progress"
NULL_CONTEXT = "mcp-assert sends context.arguments: null, which the TypeScript SDK rejects"
NO_WAIT = "mcp-assert checks expect_notification right after the read, without waiting for the update"

KNOWN_DIFFERENCES: dict[Key, tuple[str, str]] = {
    ("assert_resources", "a subscribed resource reports updates"): ("FAIL", NO_WAIT),
    ("assert_completion", "departments complete on server-everything"): ("FAIL", NULL_CONTEXT),
    ("assert_completion", "resource ids complete on server-everything"): ("FAIL", NULL_CONTEXT),
    ("assert_logging", "check_notes logs warnings and errors at level warning"): ("FAIL", NO_LISTENER),
    ("assert_notifications", "check_notes sends three log notifications"): ("FAIL", NO_LISTENER),
    ("assert_notifications", "a long-running operation reports each step"): ("FAIL", NO_PROGRESS_TOKEN),
    ("assert_notifications", "server-everything reports progress to a plain tool call"): (
        "FAIL",
        NO_PROGRESS_TOKEN,
    ),
}
"""mcp-assert's verdict where it differs from toolproof's PASS, and why."""

NOT_COMPARED: dict[Key, str] = {
    ("assert_completion", "tones depend on the audience given as context"): (
        "mcp-assert 0.12.3 has no completion context: it ignores the key"
    ),
}
"""Forms mcp-assert does not support: toolproof's verdict only."""


async def _run(command: list[str], limiter: anyio.CapacityLimiter) -> tuple[int, str, str]:
    async with limiter:
        done = await anyio.run_process(command, cwd=ROOT, check=False)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


async def _toolproof(directory: str, report: Path, limiter: anyio.CapacityLimiter) -> dict[str, str]:
    fixture = ["--fixture", FIXTURES[directory]] if directory in FIXTURES else []
    command = [sys.executable, "-m", "toolproof", "run", f"examples/blocks/{directory}", "-j", "3"]
    status, out, err = await _run([*command, *fixture, "--json", str(report)], limiter)
    assert report.exists(), f"toolproof wrote no report for {directory} (exit {status}):\n{out}\n{err}"
    results: list[dict[str, Any]] = json.loads(report.read_text())["results"]
    return {result["name"]: result["status"] for result in results}


async def _mcp_assert(directory: str, limiter: anyio.CapacityLimiter) -> dict[str, str]:
    fixture = ["--fixture", FIXTURES[directory]] if directory in FIXTURES else []
    command = [str(MCP_ASSERT), "run", "--suite", f"examples/blocks/{directory}", *fixture, "--json"]
    status, out, err = await _run(command, limiter)
    try:
        results: list[dict[str, Any]] = json.loads(out)
    except json.JSONDecodeError:
        message = f"mcp-assert gave no JSON for {directory} (exit {status}):\n{out}\n{err}"
        raise AssertionError(message) from None
    return {result["name"]: result["status"] for result in results}


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, str]]]:
    """{tool: {directory: {case name: status}}} for both tools over every example directory."""
    assert MCP_ASSERT.exists(), f"mcp-assert is not installed at {MCP_ASSERT}"
    reports = tmp_path_factory.mktemp("reports")
    found: dict[str, dict[str, dict[str, str]]] = {"toolproof": {}, "mcp-assert": {}}

    async def collect() -> None:
        limiter = anyio.CapacityLimiter(PARALLEL_PROCESSES)

        async def run_toolproof(directory: str) -> None:
            report = reports / f"{directory}.json"
            found["toolproof"][directory] = await _toolproof(directory, report, limiter)

        async def run_mcp_assert(directory: str) -> None:
            found["mcp-assert"][directory] = await _mcp_assert(directory, limiter)

        async with anyio.create_task_group() as group:
            for directory in DIRECTORIES:  # the slow sequential mcp-assert runs start first
                group.start_soon(run_mcp_assert, directory)
            for directory in DIRECTORIES:
                group.start_soon(run_toolproof, directory)

    anyio.run(collect)
    return found


def test_there_is_an_example_directory_per_block() -> None:
    assert DIRECTORIES == [
        "assert_completion",
        "assert_logging",
        "assert_notifications",
        "assert_prompts",
        "assert_resources",
        "assert_sampling",
        "client_capabilities",
        "trajectory",
    ]


def test_the_difference_tables_name_existing_cases(verdicts: dict[str, dict[str, dict[str, str]]]) -> None:
    cases = {(directory, name) for directory, found in verdicts["toolproof"].items() for name in found}
    assert set(KNOWN_DIFFERENCES) <= cases
    assert set(NOT_COMPARED) <= cases
    assert not set(KNOWN_DIFFERENCES) & set(NOT_COMPARED)


@pytest.mark.parametrize("directory", DIRECTORIES)
def test_every_example_passes_under_toolproof(
    directory: str, verdicts: dict[str, dict[str, dict[str, str]]]
) -> None:
    found = verdicts["toolproof"][directory]
    files = sorted((BLOCKS / directory).glob("*.yaml"))
    assert len(found) == len(files) >= 3, f"{directory}: one uniquely named case per file"
    assert found == dict.fromkeys(found, "PASS")


@pytest.mark.parametrize("directory", DIRECTORIES)
def test_mcp_assert_gives_the_same_verdicts(
    directory: str, verdicts: dict[str, dict[str, dict[str, str]]]
) -> None:
    compared = [name for name in verdicts["toolproof"][directory] if (directory, name) not in NOT_COMPARED]
    expected = {
        name: KNOWN_DIFFERENCES.get((directory, name), (verdicts["toolproof"][directory][name], ""))[0]
        for name in compared
    }
    actual = {
        name: status
        for name, status in verdicts["mcp-assert"][directory].items()
        if (directory, name) not in NOT_COMPARED
    }
    assert actual == expected
