"""Verdict parity with mcp-assert 0.12.3 on the suites in tests/parity/suites/.

Each server directory is run by both tools as subprocesses (all at once, to stay within the time budget):
`mcp-assert run --suite DIR [--fixture F] --json` and `python -m toolproof run DIR [--fixture F] --json OUT`.
Every case must get the same verdict (PASS / FAIL / SKIP) from both, except the cases listed in
differences.json, which must get exactly the verdicts listed there (a difference that disappears fails too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

pytestmark = pytest.mark.parity

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SUITES = HERE / "suites"
FIXTURES = HERE / "fixtures"
DIFFERENCES = HERE / "differences.json"
SERVERS = ("everything", "filesystem", "memory", "time")
VERDICTS = ("PASS", "FAIL", "SKIP")

MIN_CASES = 64
MIN_CASES_PER_SERVER = 10
MIN_SHARE_FAILING = 0.25  # cases that fail under both tools, of all cases
MIN_SHARE_PASSING = 0.25  # and cases that pass under both
PROCESS_TIMEOUT_S = 240
# Per-case timeout for both tools, far above what a case needs: on a loaded machine a server's start alone can
# take many seconds, and a timeout must never decide a verdict (the one case about timeouts sets its own).
CASE_TIMEOUT = "120s"
TOOLPROOF_JOBS = 2
# Processes at once. Costliest first: mcp-assert runs its cases one at a time, the time server is Python.
WORKERS = 4
ORDER = ("everything", "time", "filesystem", "memory")


@dataclass
class Run:
    """One tool's run of one server directory."""

    tool: str
    server: str
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    results: list[dict[str, Any]]

    def verdicts(self) -> dict[str, str]:
        return {r["name"]: r["status"] for r in self.results}

    def detail(self, name: str) -> str:
        for r in self.results:
            if r["name"] == name:
                if self.tool == "mcp-assert":
                    return str(r.get("detail") or "")
                return str((r.get("failure") or {}).get("message") or r.get("reason") or "")
        return "<no result>"


def bin_dirs() -> list[Path]:
    """The project's venv and npm bin directories: where the servers and mcp-assert live."""
    venv = ROOT / ".venv" / "bin"
    return [venv if venv.is_dir() else Path(sys.executable).parent, ROOT / "node_modules" / ".bin"]


def environment(tool: str, memory_root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([*map(str, bin_dirs()), env.get("PATH", "")])
    env["NO_COLOR"] = "1"
    env["PARITY_SUITE_VAR"] = "expanded"  # read by everything/11_env_expansion.yaml
    env.pop("PARITY_UNSET_VARIABLE", None)  # everything/10 must be skipped
    memory = memory_root / tool  # one directory per tool, one file per case: no shared graph
    memory.mkdir(parents=True, exist_ok=True)
    env["PARITY_MEMORY_DIR"] = str(memory)
    return env


def case_names(server: str) -> list[str]:
    """The `name:` of every suite file of a server directory, in file order."""
    yaml = YAML(typ="safe")
    names = []
    for path in sorted((SUITES / server).glob("*.yaml")):
        document = yaml.load(path.read_text())
        assert isinstance(document, dict) and document.get("name"), f"{path}: every case needs a name"
        names.append(document["name"])
    return names


def fixture_args(server: str) -> list[str]:
    fixture = FIXTURES / server
    return ["--fixture", str(fixture)] if fixture.is_dir() else []


def mcp_assert_binary() -> str:
    found = shutil.which("mcp-assert", path=os.pathsep.join(map(str, bin_dirs())))
    if found is None:
        pytest.fail("mcp-assert is not installed in the venv: run `make setup` (it is a dev dependency)")
    return found


def run_tool(tool: str, server: str, memory_root: Path, reports: Path) -> Run:
    suite = str(SUITES / server)
    if tool == "mcp-assert":
        # mcp-assert's flags must all come before any positional argument; --json goes to stdout.
        command = [
            mcp_assert_binary(), "run", "--suite", suite, *fixture_args(server),
            "--timeout", CASE_TIMEOUT, "--json",
        ]
        report = None
    else:
        report = reports / f"{server}.json"
        command = [
            sys.executable, "-m", "toolproof", "run", suite, *fixture_args(server),
            "--timeout", CASE_TIMEOUT, "--json", str(report), "-q", "-j", str(TOOLPROOF_JOBS),
        ]
    done = subprocess.run(
        command,
        cwd=ROOT,  # filesystem/16 names a fixture file by a path relative to the repository root
        env=environment(tool, memory_root),
        capture_output=True,
        text=True,
        timeout=PROCESS_TIMEOUT_S,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    where = (
        f"{tool} on {server} (exit {done.returncode})\n"
        f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
    )
    assert done.returncode in (0, 1), where
    if report is None:
        results = json.loads(done.stdout)
    else:
        assert report.exists(), where
        results = json.loads(report.read_text())["results"]
    return Run(tool, server, command, done.returncode, done.stdout, done.stderr, results)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    """Both tools over every server directory, WORKERS processes at a time."""
    base = tmp_path_factory.mktemp("parity")
    memory_root, reports = base / "memory", base / "reports"
    reports.mkdir()
    jobs = [(tool, server) for server in ORDER for tool in ("mcp-assert", "toolproof")]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {job: pool.submit(run_tool, *job, memory_root, reports) for job in jobs}
        return {job: future.result() for job, future in futures.items()}


@pytest.fixture(scope="module")
def differences() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(DIFFERENCES.read_text())
    return data


def test_suite_is_big_enough_and_names_are_unique() -> None:
    names = {server: case_names(server) for server in SERVERS}
    everything = [name for server in SERVERS for name in names[server]]
    assert len(everything) >= MIN_CASES
    for server in SERVERS:
        assert len(names[server]) >= MIN_CASES_PER_SERVER, server
    duplicates = [name for name, count in Counter(everything).items() if count > 1]
    assert not duplicates, f"case names must be unique across the suites: {duplicates}"


def test_differences_are_well_formed(differences: dict[str, dict[str, str]]) -> None:
    known = {name for server in SERVERS for name in case_names(server)}
    for name, entry in differences.items():
        assert name in known, f"differences.json lists {name!r}, which is no case"
        assert set(entry) == {"mcp_assert", "toolproof", "reason"}, name
        assert entry["mcp_assert"] in VERDICTS and entry["toolproof"] in VERDICTS, name
        assert entry["mcp_assert"] != entry["toolproof"], f"{name}: a difference needs two verdicts"
        assert entry["reason"].strip(), name


@pytest.mark.parametrize("server", SERVERS)
def test_both_tools_ran_every_case(server: str, runs: dict[tuple[str, str], Run]) -> None:
    expected = case_names(server)
    for tool in ("mcp-assert", "toolproof"):
        run = runs[(tool, server)]
        got = [r["name"] for r in run.results]
        assert sorted(got) == sorted(expected), f"{tool} on {server}: {run.stderr[-2000:]}"
        statuses = {r["status"] for r in run.results}
        assert statuses <= set(VERDICTS), f"{tool} on {server}: unexpected statuses {statuses}"


@pytest.mark.parametrize("server", SERVERS)
def test_verdicts_match(
    server: str, runs: dict[tuple[str, str], Run], differences: dict[str, dict[str, str]]
) -> None:
    theirs, ours = runs[("mcp-assert", server)], runs[("toolproof", server)]
    mcp_assert, toolproof = theirs.verdicts(), ours.verdicts()
    problems = []
    for name in case_names(server):
        got = (mcp_assert.get(name), toolproof.get(name))
        if name in differences:
            want = (differences[name]["mcp_assert"], differences[name]["toolproof"])
        else:
            want = (got[0], got[0])
        if got != want:
            problems.append(
                f"{name!r}: mcp-assert {got[0]}, toolproof {got[1]} (expected {want[0]} / {want[1]})\n"
                f"    mcp-assert: {theirs.detail(name)[:400]}\n"
                f"    toolproof:  {ours.detail(name)[:400]}"
            )
    assert not problems, "verdicts differ:\n" + "\n".join(problems)


def test_a_healthy_share_fails_and_passes_under_both(runs: dict[tuple[str, str], Run]) -> None:
    both: Counter[str] = Counter()
    total = 0
    for server in SERVERS:
        mcp_assert = runs[("mcp-assert", server)].verdicts()
        toolproof = runs[("toolproof", server)].verdicts()
        for name, verdict in mcp_assert.items():
            total += 1
            if toolproof.get(name) == verdict:
                both[verdict] += 1
    assert total >= MIN_CASES
    assert both["FAIL"] >= MIN_SHARE_FAILING * total, both
    assert both["PASS"] >= MIN_SHARE_PASSING * total, both
    assert both["SKIP"] >= 1, both
