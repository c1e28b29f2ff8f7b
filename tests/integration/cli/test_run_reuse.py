"""`--reuse-server` on real servers: the verdicts of fresh servers, and a shared server that breaks is
replaced so the case after it starts clean."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from tests.integration.cli.conftest import Outcome

ROOT = Path(__file__).resolve().parents[3]
PARITY = ROOT / "tests" / "parity"
MISBEHAVING = ROOT / "tests" / "servers" / "misbehaving_server.py"


def statuses(outcome: Outcome) -> dict[str, str]:
    return {r["name"]: r["status"] for r in outcome.report["results"]}


def test_reuse_gives_the_verdicts_of_fresh_servers_on_a_stateful_suite(
    toolproof: Callable[..., Outcome],
) -> None:
    """server-filesystem: writes, file checks and reads of what was written. Shared servers serve only
    the cases that provably only read, so every verdict is a fresh server's."""
    suite, fixture = str(PARITY / "suites" / "filesystem"), str(PARITY / "fixtures" / "filesystem")
    fresh = toolproof(suite, "--fixture", fixture, "--timeout", "120s", "-q")
    reused = toolproof(suite, "--fixture", fixture, "--timeout", "120s", "-q", "--reuse-server")
    assert statuses(reused) == statuses(fresh)
    assert len(statuses(fresh)) == 20
    shared = [r for r in reused.report["results"] if "shared_server" in r]
    assert len(shared) >= 5  # the read-only cases (list, read, search, info) did share
    assert len({r["shared_server"] for r in shared}) < len(shared)
    for result in shared:  # none of them writes or checks a file
        assert "write" not in result["name"] and "file_" not in result["name"]


def test_reuse_gives_the_verdicts_of_fresh_servers_on_server_everything(
    toolproof: Callable[..., Outcome],
) -> None:
    suite = PARITY / "suites" / "everything"
    picked = ["01_echo_contains", "02_echo_equals_wrong", "04_sum_contains_any", "06_unknown_tool_is_error",
              "14_resources_list", "20_completion", "22_logging", "26_progress"]
    paths = [str(suite / f"{name}.yaml") for name in picked]
    fresh = toolproof(*paths, "--timeout", "120s", "-q")
    reused = toolproof(*paths, "--timeout", "120s", "-j", "1", "--reuse-server", "-v")
    assert statuses(reused) == statuses(fresh)
    by_name = {r["name"]: r for r in reused.report["results"]}
    assert "shared_server" in by_name["echo returns the message"]
    assert "shared_server" not in by_name["resources list names the static documents"]
    assert "shared server #" in reused.out


def on_request(name: str, then: str = "", timeout: str = "") -> str:
    return (
        f"name: {name}\n"
        + (f"timeout: {timeout}\n" if timeout else "")
        + f"server: {{command: {sys.executable}, args: [{MISBEHAVING}, on_request]}}\n"
        + f"assert: {{tool: t, args: {{then: '{then}'}}, expect: {{contains: [ok]}}}}\n"
    )


def test_a_shared_server_that_crashes_hangs_or_writes_garbage_is_replaced(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite(
        {
            "1.yaml": on_request("answers, then exits", "exit"),
            "2.yaml": on_request("after the exit"),
            "3.yaml": on_request("answers, then writes garbage", "garbage"),
            "4.yaml": on_request("after the garbage"),
            "5.yaml": on_request("hangs", "hang", timeout="2s"),
            "6.yaml": on_request("after the hang"),
            "7.yaml": on_request("shares with the one before"),
        }
    )
    outcome = toolproof(str(suite), "-j", "1", "--reuse-server")
    results = {r["name"]: r for r in outcome.report["results"]}
    assert {name: r["status"] for name, r in results.items()} == {
        "answers, then exits": "PASS",
        "after the exit": "PASS",
        "answers, then writes garbage": "PASS",
        "after the garbage": "PASS",
        "hangs": "FAIL",
        "after the hang": "PASS",
        "shares with the one before": "PASS",
    }
    assert results["hangs"]["failure"]["kind"] == "timeout"

    def server(name: str) -> int | None:
        value = results[name].get("shared_server")
        return value if isinstance(value, int) else None

    # the server that died after its answer served no later case; the garbage writer and the hung one neither
    assert server("after the exit") != server("answers, then exits")
    assert server("answers, then writes garbage") != server("after the garbage")
    assert server("after the hang") not in (None, server("hangs"))
    assert server("shares with the one before") == server("after the hang")


def methods_case(name: str, tool: str, methods: Path, server: str = "") -> str:
    """A case on the on_request server that records every request it receives in `methods`; `server`
    gives it a server identity of its own."""
    return (
        f"name: {name}\n"
        f"server: {{command: {sys.executable}, args: [{MISBEHAVING}, on_request], "
        f"env: {{METHODS_FILE: '{methods}', SERVER: '{server}'}}}}\n"
        f"assert: {{tool: {tool}, args: {{}}, expect: {{contains: [ok]}}}}\n"
    )


def requests(methods: Path) -> list[str]:
    seen = methods.read_text().split() if methods.exists() else []
    methods.unlink(missing_ok=True)
    return seen


def test_a_case_with_nobody_to_share_with_starts_one_server_and_lists_nothing(
    tmp_path: Path, write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    """As in server-memory's suite, every case names a server of its own: sharing could not pay, so each
    case starts exactly one server, which never gets a tools/list the case did not ask for."""
    methods = tmp_path / "methods"
    suite = write_suite(
        {
            "1.yaml": methods_case("writes", "w", methods, server="1"),
            "2.yaml": methods_case("writes again", "w", methods, server="2"),
            "3.yaml": methods_case("reads alone", "t", methods, server="3"),
        }
    )
    fresh = toolproof(str(suite), "-j", "1")
    assert requests(methods) == ["initialize", "tools/call"] * 3
    reused = toolproof(str(suite), "-j", "1", "--reuse-server")
    assert requests(methods) == ["initialize", "tools/call"] * 3
    passed = dict.fromkeys(["writes", "writes again", "reads alone"], "PASS")
    assert reused.verdicts() == fresh.verdicts() == passed
    assert not any("shared_server" in result for result in reused.report["results"])


def test_a_writing_case_never_runs_on_the_server_that_listed_its_tools(
    tmp_path: Path, write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    """One server identity: its tools are listed once, on the shared server that then serves the readers
    (the listing that also tells which cases may run side by side); each writer runs on a fresh server of
    its own."""
    methods = tmp_path / "methods"
    suite = write_suite(
        {
            "1.yaml": methods_case("writes", "w", methods),
            "2.yaml": methods_case("writes again", "w", methods),
            "3.yaml": methods_case("reads", "t", methods),
            "4.yaml": methods_case("reads again", "t", methods),
        }
    )
    fresh = toolproof(str(suite), "-j", "1")
    requests(methods)
    reused = toolproof(str(suite), "-j", "1", "--reuse-server")
    seen = requests(methods)
    assert reused.verdicts() == fresh.verdicts()
    # the shared server, which told which cases may run side by side, and one per writer
    assert seen.count("initialize") == 3
    assert seen.count("tools/list") == 1
    shared = {r["name"]: r.get("shared_server") for r in reused.report["results"]}
    assert shared["writes"] is None and shared["writes again"] is None
    assert shared["reads"] is not None and shared["reads"] == shared["reads again"]


def test_the_trials_of_one_case_share_a_server(
    tmp_path: Path, write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    methods = tmp_path / "methods"
    suite = write_suite({"1.yaml": methods_case("reads", "t", methods)})
    outcome = toolproof(str(suite), "-j", "1", "--trials", "3", "--reuse-server")
    assert outcome.verdicts() == {"reads": "PASS"}
    # one server: its listing tells whether the trials may run side by side (run/side_by_side.py) and that
    # they may share it
    assert requests(methods) == ["initialize", "tools/list", "tools/call", "tools/call", "tools/call"]
