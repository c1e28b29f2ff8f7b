"""Running cases side by side never changes a verdict: cases of one server identity that may write run one
after another, read-only ones (every tool they call declared `readOnlyHint: true`) still run side by side."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from toolproof.cli.run import DEFAULT_JOBS
from toolproof.load import load_file
from toolproof.model.events import Event
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
