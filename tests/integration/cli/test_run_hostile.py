"""A hostile or broken server fails its own case, classified, while the run goes on; nothing outlives it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from tests.integration.cli.conftest import Outcome

MISBEHAVING = Path(__file__).resolve().parents[2] / "servers" / "misbehaving_server.py"
TINY = Path(__file__).resolve().parents[3] / "examples" / "servers" / "tiny_server.py"


def hostile(mode: str, pid_file: Path, *, timeout: str = "3s") -> str:
    return (
        f"name: {mode}\n"
        f"timeout: {timeout}\n"
        f"server: {{command: {sys.executable}, args: [{MISBEHAVING}, {mode}],\n"
        f"         env: {{PID_FILE: {pid_file}}}}}\n"
        "assert: {tool: t, expect: {contains: [ok]}}\n"
    )


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


def test_every_misbehaviour_is_classified_and_leaves_no_process(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    modes = {
        "garbage": "PASS",
        "hang": "timeout",
        "silent_init": "timeout",
        "exit_at_start": "transport",
        "exit_mid_call": "transport",
        "exit_leaving_child": "transport",
        "bad_result": "protocol",
        "deep_nesting": "protocol",
        "ignore_sigterm": "PASS",
        "setsid_child": "PASS",
        "daemon": "PASS",
        "stderr_flood": "PASS",
    }
    files = {f"{n:02d}_{mode}.yaml": hostile(mode, tmp_path / f"{mode}.pids") for n, mode in enumerate(modes)}
    files["99_tiny.yaml"] = (
        f"name: a good server after the bad ones\nserver: {{command: {sys.executable}, args: [{TINY}]}}\n"
        "assert: {tool: echo, args: {text: fine}, expect: {equals: fine}}\n"
    )
    outcome = toolproof(str(write_suite(files)), "-j", "4")
    assert outcome.status == 1
    for mode, expected in modes.items():
        result = outcome.result(mode)
        if expected == "PASS":
            assert result["status"] == "PASS", (mode, result["failure"])
        else:
            assert result["status"] == "FAIL", mode
            assert result["failure"]["kind"] == expected, (mode, result["failure"])
        assert result["duration_ms"] < 10_000, mode
    assert outcome.result("a good server after the bad ones")["status"] == "PASS"
    assert "exited with code 2" in outcome.result("exit_at_start")["failure"]["message"]
    assert outcome.result("exit_mid_call")["stderr"].strip()
    assert "during the request" in outcome.result("hang")["failure"]["message"]
    children = [
        int(pid) for path in tmp_path.glob("*.pids") for pid in path.read_text().split() if pid.strip()
    ]
    assert children, "the servers recorded the processes they started"
    assert [pid for pid in children if alive(pid)] == []


def test_a_server_that_never_answers_tools_list_passes_a_call_it_answered(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    """A plain call sends no tools/list; a structured result waits for the listing a bounded time only."""
    seen = tmp_path / "methods"
    plain = hostile("silent_listing", tmp_path / "p.pids", timeout="20s").replace(
        "env: {", f"env: {{METHODS_FILE: {seen}, "
    )
    structured = hostile("silent_listing", tmp_path / "s.pids", timeout="20s").replace(
        "name: silent_listing", "name: structured"
    ).replace("env: {", "env: {STRUCTURED: '1', ")
    outcome = toolproof(str(write_suite({"plain.yaml": plain, "structured.yaml": structured})))
    assert outcome.verdicts() == {"silent_listing": "PASS", "structured": "PASS"}
    assert seen.read_text().split() == ["initialize", "tools/call"]
    assert outcome.result("structured")["duration_ms"] < 10_000


def test_notifications_sent_right_after_initialization_are_not_counted(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    block = "assert_notifications: {tool: t, expect: {max_count: 0}}"
    case = hostile("init_notifications", tmp_path / "n.pids").replace(
        "assert: {tool: t, expect: {contains: [ok]}}", block
    )
    outcome = toolproof(str(write_suite({"init.yaml": case})))
    assert outcome.verdicts() == {"init_notifications": "PASS"}, outcome.result("init_notifications")
