"""Running cases side by side never changes a verdict: cases of one server identity that may write run one
after another, read-only ones (every tool they call declared `readOnlyHint: true`) still run side by side."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest
from tests.integration.mcp.helpers import alive

from toolproof.cli.run import DEFAULT_JOBS
from toolproof.load import load_file
from toolproof.model.events import CaseStarted, Event
from toolproof.model.result import Status
from toolproof.model.server_case import Case
from toolproof.run.server_suite import run_server_suite
from toolproof.sources.options import ServerOptions

pytestmark = pytest.mark.servers

SERVER = Path(__file__).resolve().parents[2] / "servers" / "state_file_server.py"


class Quiet:
    def handle(self, event: Event) -> None:
        pass


def suite(tmp_path: Path, body: str, count: int, env: dict[str, str]) -> list[Case]:
    """`count` cases on the state-file server, one document each; `{n}` in `body` is the case's number."""
    header = f"server:\n  command: {sys.executable}\n  args: [{str(SERVER)!r}]\n  env:\n"
    header += "".join(f"    {key}: {value!r}\n" for key, value in env.items())
    path = tmp_path / "suite.yaml"
    path.write_text("---\n".join(header + body.format(n=n) for n in range(count)))
    cases = [item for item in load_file(path) if isinstance(item, Case)]
    assert len(cases) == count
    return cases


def run(cases: list[Case], jobs: int, expected_s: dict[str, float] | None = None) -> list[Status]:
    options = ServerOptions(environ=dict(os.environ))
    results = anyio.run(
        lambda: run_server_suite(cases, options, jobs=jobs, sink=Quiet(), expected_s=expected_s)
    )
    return [result.status for result in results]


WRITES_THEN_READS = """\
name: case {n} reads back what it stored
setup:
  - tool: put
    args: {{value: "value {n}"}}
assert:
  tool: get
  expect:
    equals: "value {n}"
"""


def test_cases_sharing_a_state_file_keep_their_verdicts_at_the_default_jobs(tmp_path: Path) -> None:
    env = {"STATE_FILE": str(tmp_path / "state"), "GET_DELAY": "0.1"}
    cases = suite(tmp_path, WRITES_THEN_READS, 2, env)
    for _ in range(20):
        assert run(cases, max(DEFAULT_JOBS, 2)) == [Status.PASS] * 2


READS_BACK = """\
name: case {n} reads what the case before it stored
assert:
  tool: get
  expect:
    equals: "value 0"
"""


def test_cases_sharing_a_state_keep_the_suite_order_whatever_ran_longest(tmp_path: Path) -> None:
    env = {"STATE_FILE": str(tmp_path / "state"), "GET_DELAY": "0"}
    writer = suite(tmp_path, WRITES_THEN_READS, 1, env)
    reader = suite(tmp_path, READS_BACK, 2, env)[1]
    cases = [*writer, reader]
    slowest_last = {f"{reader.source.file}::{reader.name}": 60.0}  # the reader would start first
    assert run(cases, 2, slowest_last) == [Status.PASS] * 2


HOLDS = """\
name: case {n} only reads
assert:
  tool: hold
"""


def overlapping(log: Path) -> bool:
    """Whether any two of the logged holds were under way at the same time."""
    held = 0
    for line in sorted(log.read_text().splitlines(), key=lambda line: float(line.split()[1])):
        held += 1 if line.startswith("start") else -1
        if held > 1:
            return True
    return False


def test_read_only_cases_of_one_server_still_run_side_by_side(tmp_path: Path) -> None:
    log = tmp_path / "holds"
    cases = suite(tmp_path, HOLDS, 3, {"HOLD_LOG": str(log), "STATE_FILE": str(tmp_path / "state")})
    assert run(cases, 3) == [Status.PASS] * 3
    assert overlapping(log)


WRITES_THEN_HOLDS = """\
name: case {n} writes
setup:
  - tool: put
    args: {{value: "{n}"}}
assert:
  tool: hold
"""


def test_cases_that_write_never_overlap(tmp_path: Path) -> None:
    """The same holds after a setup that writes: the cases run one after another, so the check can tell."""
    log = tmp_path / "holds"
    env = {"HOLD_LOG": str(log), "STATE_FILE": str(tmp_path / "state")}
    cases = suite(tmp_path, WRITES_THEN_HOLDS, 3, env)
    assert run(cases, 3) == [Status.PASS] * 3
    assert not overlapping(log)


PUTS = """\
name: case {n} writes
assert:
  tool: put
  args: {{value: "{n}"}}
"""


def events(log: Path) -> dict[int, dict[str, float]]:
    """Per server process (pid): when it came up, made its first call and exited (EVENT_LOG)."""
    found: dict[int, dict[str, float]] = {}
    for line in log.read_text().splitlines():
        event, pid, at = line.split()
        found.setdefault(int(pid), {}).setdefault(event, float(at))
    return found


@pytest.mark.parametrize("first", ["reads", "writes"])
def test_the_listing_server_stops_beside_readers_and_before_any_writer(tmp_path: Path, first: str) -> None:
    """The server that lists the tools is stopped in the background: a case that only reads starts before it
    has exited, one that may write (here the first of the suite) only after; none outlives the run."""
    log = tmp_path / "events"
    env = {"EVENT_LOG": str(log), "EXIT_DELAY": "30", "STATE_FILE": str(tmp_path / "state")}
    env |= {"HOLD_LOG": str(tmp_path / "holds"), "HOLD_S": "0"}
    reader, writer = suite(tmp_path, HOLDS, 1, env), suite(tmp_path, PUTS, 1, env)
    cases = reader + writer if first == "reads" else writer + reader
    assert run(cases, 2) == [Status.PASS] * 2
    servers = events(log)
    assert len(servers) == 3 and all("exit" in seen for seen in servers.values())
    assert not any(alive(pid) for pid in servers)
    (listing,) = [seen for seen in servers.values() if "call" not in seen]
    first_case = min((seen for seen in servers.values() if "call" in seen), key=lambda seen: seen["up"])
    if first == "reads":
        assert first_case["up"] < listing["exit"]
    else:
        assert first_case["up"] > listing["exit"]


class Starts:
    def __init__(self) -> None:
        self.names: list[str] = []

    def handle(self, event: Event) -> None:
        if isinstance(event, CaseStarted):
            self.names.append(event.name)


def test_the_identity_that_takes_longest_one_case_after_another_starts_first(tmp_path: Path) -> None:
    """Four readers of one state take a second side by side; a reader then two writers of another state take
    three seconds one after the other: those start first although the four come first, took longer in all
    (one second each, last time) and their server is the quicker to list its tools."""
    readers = suite(tmp_path, HOLDS, 4, {"HOLD_LOG": str(tmp_path / "holds"), "HOLD_S": "0"})
    env = {"HOLD_LOG": str(tmp_path / "holds"), "HOLD_S": "0", "STATE_FILE": str(tmp_path / "written")}
    env["START_DELAY"] = "0.5"
    first = suite(tmp_path, HOLDS.replace("only reads", "reads, then two write"), 1, env)
    writers = suite(tmp_path, PUTS, 2, env)
    cases = readers + first + writers
    last_run = {f"{case.source.file}::{case.name}": 1.0 for case in cases}
    starts = Starts()
    options = ServerOptions(environ=dict(os.environ))
    anyio.run(lambda: run_server_suite(cases, options, jobs=2, sink=starts, expected_s=last_run))
    assert starts.names[0] == "case 0 reads, then two write"
