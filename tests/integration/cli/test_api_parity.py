"""Every command is a thin layer over a call of `toolproof.api`: on the same input, the call's result has as
its `exit_code` the status the command exits with, for a run that passes and one that does not."""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import pytest

from toolproof import api
from toolproof.cli import main
from toolproof.exit_codes import ExitCode, UsageError

ROOT = Path(__file__).resolve().parents[3]
AGENT = ROOT / "examples" / "agent"
TRACES = AGENT / "traces"
TARGET = ROOT / "tests" / "servers" / "probe_target_server.py"  # standard library only: starts fast
NONCONFORMING = ROOT / "tests" / "servers" / "nonconforming_server.py"
GONE = "/nonexistent/toolproof-test-server"  # cannot even start



class Result(Protocol):
    @property
    def exit_code(self) -> int: ...


Call = Callable[[], Result]
Parity = Callable[[list[str], Call], int]


@pytest.fixture
def parity(capsys: pytest.CaptureFixture[str]) -> Parity:
    """Run the command and the call on the same input; assert they agree and give the status."""

    def same(argv: list[str], call: Call) -> int:
        status = main(argv)
        capsys.readouterr()
        code = call().exit_code
        assert code == status, f"{argv}: the command exits {status}, the call's exit_code is {code}"
        return status

    return same


def target(*tools: str) -> str:
    return shlex.join([sys.executable, str(TARGET), "--only", ",".join(tools)])


def echo_case(name: str, wanted: str) -> str:
    """A case that echoes "hi" on the probe target and expects `wanted` in the answer."""
    server = json.dumps({"command": sys.executable, "args": [str(TARGET), "--only", "ok"]})
    check = f"{{tool: ok, args: {{text: hi}}, expect: {{contains: [{wanted}]}}}}"
    return f"name: {name}\nserver: {server}\nassert: {check}\n"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """One passing case."""
    directory = tmp_path / "suite"
    directory.mkdir()
    (directory / "echo.yaml").write_text(echo_case("echo", "hi"))
    return directory


@pytest.fixture
def wrong(tmp_path: Path) -> Path:
    """A failing case, then a passing one."""
    path = tmp_path / "wrong.yaml"
    path.write_text(echo_case("wrong", "bye") + "---\n" + echo_case("right", "hi"))
    return path


def test_run(parity: Parity, suite: Path, wrong: Path) -> None:
    assert parity(["run", str(suite)], lambda: api.run_suite([suite])) == ExitCode.OK
    assert parity(["run", str(wrong)], lambda: api.run_suite([wrong])) == ExitCode.FAILED


def test_ci_threshold_decides_the_result(parity: Parity, wrong: Path, tmp_path: Path) -> None:
    """1 of 2 cases passes: a 50% threshold passes the run, 51% fails it, in the call as in `ci`."""
    saved = tmp_path / "reports" / "run.json"
    argv = ["ci", str(wrong), "--threshold", "50", "--json", str(saved)]
    assert parity(argv, lambda: api.run_suite([wrong], reports=api.Reports(threshold=50))) == ExitCode.OK
    argv = ["ci", "--merge", str(saved.parent), "--threshold", "51"]
    reports = api.Reports(threshold=51)
    assert parity(argv, lambda: api.merge_reports([saved], reports=reports)) == ExitCode.FAILED


def test_run_maxfail_is_not_judged_by_a_threshold(parity: Parity, wrong: Path) -> None:
    argv = ["ci", str(wrong), "-x", "-j", "1", "--threshold", "0"]

    def call() -> api.SuiteResult:
        collection = api.collect_suite([wrong])
        options = api.server_options()
        result = api.run_collection(collection, options, jobs=1, maxfail=1, reports=api.Reports(threshold=0))
        assert result.not_run == 1
        return result

    assert parity(argv, call) == ExitCode.FAILED


def test_check(parity: Parity) -> None:
    for cases, expected in (("promptkit/weather.yaml", ExitCode.OK), ("toolproof/support_agent.yaml", 1)):
        argv = ["check", str(AGENT / cases), "--trace", str(TRACES), "--skip-judge", "-q"]
        call = lambda: api.check_traces([AGENT / cases], [TRACES], skip_judge=True)  # noqa: E731, B023
        assert parity(argv, call) == expected


def test_report_and_its_gate(parity: Parity, wrong: Path, tmp_path: Path) -> None:
    """A merged report exits 0 without a gate, whatever its verdicts; a baseline's regression fails it."""
    from toolproof.report.baseline import load_baseline

    saved = tmp_path / "run.json"
    main(["run", str(wrong), "-q", "--json", str(saved)])
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"entries": [{"name": "wrong", "status": "PASS"}]}))
    assert parity(["report", str(saved)], lambda: api.merge_reports([saved])) == ExitCode.OK
    gate = ["--threshold", "0", "--baseline", str(baseline)]
    entries = load_baseline(baseline)
    for strict, expected in ((False, ExitCode.OK), (True, ExitCode.FAILED)):
        argv = ["report", str(saved), *gate, *(["--fail-on-regression"] if strict else [])]
        reports = api.Reports(threshold=0, baseline=entries, fail_on_regression=strict)
        assert parity(argv, lambda: api.merge_reports([saved], reports=reports)) == expected  # noqa: B023


def test_lint(parity: Parity, tmp_path: Path) -> None:
    ok = target("ok")
    assert parity(["lint", "--server", ok], lambda: api.lint(api.server_spec(ok))) == ExitCode.OK
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": "t", "description": "", "inputSchema": {}}]}))
    argv = ["lint", "--tools-file", str(tools)]
    assert parity(argv, lambda: api.lint(tools_file=tools)) == ExitCode.FAILED
    assert parity(["lint", "--server", GONE], lambda: api.lint(api.server_spec(GONE))) == ExitCode.USAGE


def test_audit(parity: Parity) -> None:
    for tool, expected in (("ok", ExitCode.OK), ("traceback", ExitCode.FAILED)):
        server = target(tool)
        call = lambda: api.audit(api.server_spec(server))  # noqa: E731, B023
        assert parity(["audit", "--server", server], call) == expected
    assert parity(["audit", "--server", GONE], lambda: api.audit(api.server_spec(GONE))) == ExitCode.USAGE


def test_fuzz(parity: Parity) -> None:
    for tool, expected in (("ok", ExitCode.OK), ("traceback", ExitCode.FAILED)):
        server = target(tool)
        call = lambda: api.fuzz(api.server_spec(server), runs=4, seed=1)  # noqa: E731, B023
        argv = ["fuzz", "--server", server, "--runs", "4", "--seed", "1"]
        assert parity(argv, call) == expected
    unknown = target("ok")
    with pytest.raises(UsageError, match="no tool named 'nope'"):
        api.fuzz(api.server_spec(unknown), tools=["nope"])
    assert main(["fuzz", "--server", unknown, "--tool", "nope"]) == ExitCode.USAGE


def test_fuzz_of_several_servers(parity: Parity) -> None:
    for second, expected in ((target("traceback"), ExitCode.FAILED), (GONE, ExitCode.USAGE)):
        servers = [target("ok"), second]
        call = lambda: api.fuzz([api.server_spec(each) for each in servers], runs=4, seed=1)  # noqa: E731, B023
        argv = ["fuzz", "--server", servers[0], "--server", servers[1], "--runs", "4", "--seed", "1"]
        assert parity(argv, call) == expected


def test_conformance(parity: Parity) -> None:
    for mode, expected in (("conforming", ExitCode.OK), ("busy-ping", ExitCode.FAILED)):
        server = f"{sys.executable} {NONCONFORMING} {mode}"
        call = lambda: api.conformance(api.server_spec(server, timeout=10))  # noqa: E731, B023
        assert parity(["conformance", "--server", server], call) == expected
    call = lambda: api.conformance(api.server_spec(GONE, timeout=10))  # noqa: E731
    assert parity(["conformance", "--server", GONE], call) == ExitCode.USAGE


def test_snapshot(parity: Parity, suite: Path) -> None:
    """No snapshot yet fails; recording passes; the recorded answer then matches."""
    argv = ["snapshot", str(suite), "-j", "1"]
    assert parity(argv, lambda: api.snapshot([suite], jobs=1)) == ExitCode.FAILED
    assert parity([*argv, "--update"], lambda: api.snapshot([suite], update=True, jobs=1)) == ExitCode.OK
    assert parity(argv, lambda: api.snapshot([suite], jobs=1)) == ExitCode.OK


def test_coverage(parity: Parity, suite: Path) -> None:
    half = target("ok", "picky")
    argv = ["coverage", str(suite), "--server", half]
    assert parity([*argv, "--min", "50"], lambda: api.coverage([suite], server=half, minimum=50)) == 0
    assert parity([*argv, "--min", "51"], lambda: api.coverage([suite], server=half, minimum=51)) == 1


def test_matrix(parity: Parity, suite: Path) -> None:
    both = {"a": target("ok"), "b": GONE}  # b exits at once: the case fails there
    for servers, expected in (({"a": both["a"]}, ExitCode.OK), (both, ExitCode.FAILED)):
        argv = ["matrix", str(suite), "-j", "1", *(f"--server={name}={cmd}" for name, cmd in servers.items())]
        call = lambda: api.matrix([suite], servers, jobs=1)  # noqa: E731, B023
        assert parity(argv, call) == expected


def test_generate(parity: Parity, tmp_path: Path) -> None:
    ok = target("ok")
    cli, own = tmp_path / "by-cli", tmp_path / "by-api"
    assert parity(["generate", str(cli), "--server", ok], lambda: api.generate(ok, own)) == ExitCode.OK
    assert sorted(path.name for path in cli.iterdir()) == sorted(path.name for path in own.iterdir())
    assert main(["generate", str(cli), "--server", GONE]) == ExitCode.USAGE
    with pytest.raises(UsageError):
        api.generate(GONE, own)


def test_intercept(
    parity: Parity, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent that closes the session at once made no call: a presence check fails, an absence passes."""
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115 - closed with the test
    monkeypatch.setattr(sys, "stdout", (tmp_path / "agent.out").open("w"))
    ok = target("ok")
    for check, expected in (("absence", ExitCode.OK), ("presence", ExitCode.FAILED)):
        case = tmp_path / f"{check}.yaml"
        case.write_text(f"name: {check}\ntrajectory:\n  - {{type: {check}, tools: [ok]}}\n")
        argv = ["intercept", "--server", ok, "--trajectory", str(case)]
        assert parity(argv, lambda: api.intercept(ok, case)) == expected  # noqa: B023


def test_eval(parity: Parity, tmp_path: Path) -> None:
    """A scripted agent's reply passes the case, or not."""
    case = tmp_path / "case.yaml"
    case.write_text("name: hello\nid: hello\nprompt: Say hi\nexpect:\n  - reply: {contains: hi}\n")
    for reply, expected in (("hi there", ExitCode.OK), ("bye", ExitCode.FAILED)):
        script = tmp_path / "script.yaml"
        script.write_text(f"scenarios:\n  hello:\n    - steps:\n        - reply: {reply}\n")
        argv = ["eval", str(case), "--provider", "scripted", "--script", str(script)]
        call = lambda: api.evaluate([case], provider="scripted", script=script)  # noqa: E731, B023
        assert parity(argv, call) == expected


def test_scan(parity: Parity) -> None:
    poisoned = shlex.join([sys.executable, str(ROOT / "tests" / "servers" / "scan_server.py")])
    poisoned += " --case poisoned"
    for server, expected in ((target("ok"), ExitCode.OK), (poisoned, ExitCode.FAILED)):
        call = lambda: api.scan([api.server_spec(server)], call_tools=False)  # noqa: E731, B023
        assert parity(["scan", "--server", server, "--no-calls"], call) == expected


def test_load(parity: Parity) -> None:
    from toolproof.probe.load import LoadPlan

    server = target("ok")
    for slo, expected in (("errors<1%", ExitCode.OK), ("rps<0.001", ExitCode.FAILED)):
        argv = ["load", "--server", server, "--tool", "ok", "--requests", "4", "--warmup", "0", "--slo", slo]
        plan = LoadPlan(spec=api.server_spec(server), tool="ok", arguments={}, requests=4, warmup=0)
        assert parity(argv, lambda: api.load_server(plan, slo=slo)) == expected  # noqa: B023


def test_schema(parity: Parity, tmp_path: Path) -> None:
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text("name: ok\nserver: {command: srv}\nassert: {tool: t}\n")
    bad.write_text("name: x\nserver: {command: srv, transprot: stdio}\nassert: {tool: t}\n")
    assert parity(["schema", "mcp-assert"], lambda: api.schema("mcp-assert")) == ExitCode.OK
    call = lambda: api.schema("mcp-assert", [good])  # noqa: E731
    assert parity(["schema", "mcp-assert", str(good)], call) == ExitCode.OK
    call = lambda: api.schema("mcp-assert", [good, bad])  # noqa: E731
    assert parity(["schema", "mcp-assert", str(good), str(bad)], call) == ExitCode.FAILED
    assert main(["schema", "mcp-assert", str(tmp_path / "gone.yaml")]) == ExitCode.USAGE
    with pytest.raises(UsageError, match=r"gone\.yaml: no such file"):
        api.schema("mcp-assert", [tmp_path / "gone.yaml"])


def test_init(parity: Parity, tmp_path: Path) -> None:
    """The starter, then a suite from a server: recorded at once; a changed answer is kept and fails."""
    cli, own = tmp_path / "by-cli", tmp_path / "by-api"
    assert parity(["init", str(cli)], lambda: api.init(own)) == ExitCode.OK
    assert sorted(path.name for path in cli.iterdir()) == sorted(path.name for path in own.iterdir())
    ok = target("ok")
    cli, own = tmp_path / "server-cli", tmp_path / "server-api"
    assert parity(["init", str(cli), "--server", ok], lambda: api.init(own, server=ok)) == ExitCode.OK
    assert (cli / ".snapshots.json").is_file() and (own / ".snapshots.json").is_file()
    for suite in (cli, own):  # a recorded answer that the server no longer gives
        file = suite / ".snapshots.json"
        text = json.loads(file.read_text())
        text["snapshots"][0].update(text="before", checksum="")
        file.write_text(json.dumps(text))
    argv = ["init", str(cli), "--server", ok]
    assert parity(argv, lambda: api.init(own, server=ok)) == ExitCode.FAILED
    assert main(["init", str(cli), "--server", GONE]) == ExitCode.USAGE
    with pytest.raises(UsageError):
        api.init(own, server=GONE)
