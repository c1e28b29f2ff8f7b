"""`toolproof audit` on the misbehaving probe target and on the real servers."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.probe.conftest import ROOT, Probed, target

from toolproof.cli import main

MISBEHAVING = ROOT / "tests" / "servers" / "misbehaving_server.py"

CLASSES = {
    "ok": ("PASS", None),
    "crash": ("FAIL", "crash"),
    "hang": ("FAIL", "timeout"),
    "strict": ("FAIL", "rejects-valid-input"),
    "traceback": ("FAIL", "crash"),
    "picky": ("PASS", None),
    "boom_on_long": ("PASS", None),
    "wipe": ("SKIP", None),
    "bad_reply": ("FAIL", "protocol-error"),
    "counter": ("PASS", None),
    "big": ("PASS", None),
}


def test_every_class_on_one_server(probe: Callable[..., Probed]) -> None:
    done = probe("audit", "--server", target(), "--timeout", "2s")
    assert done.status == 1
    for name, (status, verdict) in CLASSES.items():
        result = done.result(name)
        assert result["status"] == status, name
        if verdict:
            assert result["failure"]["details"]["class"] == verdict
    assert "fatal: tool crash pulled the plug" in done.result("crash")["stderr"]
    assert "audit score: 50% (5/10 tested tools healthy" in done.out


def test_a_crash_or_hang_never_changes_the_next_tools_verdict(
    probe: Callable[..., Probed],
) -> None:
    together = probe("audit", "--server", target(), "--timeout", "2s").verdicts()
    for name in CLASSES:
        alone = probe("audit", "--server", target("--only", name), "--timeout", "2s").verdicts()
        assert alone == {name: together[name]}


def test_include_writes_calls_destructive_tools(probe: Callable[..., Probed]) -> None:
    done = probe("audit", "--server", target("--only", "ok,wipe"), "--include-writes")
    assert done.verdicts() == {"ok": "PASS", "wipe": "PASS"}
    assert done.status == 0


def test_output_writes_passing_cases(probe: Callable[..., Probed], tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    done = probe("audit", "--server", target("--only", "ok,picky,crash"), "--output", str(cases))
    assert done.status == 1
    assert sorted(path.name for path in cases.iterdir()) == ["ok.yaml", "picky.yaml"]
    assert main(["run", str(cases), "-q"]) == 0
    first, *lines = (cases / "ok.yaml").read_text().splitlines()
    schema = first.removeprefix("# yaml-language-server: $schema=")
    assert schema != first and (cases / schema).resolve().name == "mcp-assert.schema.json"
    assert (cases / schema).resolve().is_file()
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == ["name", "server", "assert"]


def test_thousands_of_tools(probe: Callable[..., Probed]) -> None:
    done = probe("audit", "--server", target("--tools", "2000"), "-q")
    assert done.status == 0
    assert done.report["summary"]["passed"] == 2000


def test_usage_and_connection_errors_exit_2(probe: Callable[..., Probed]) -> None:
    assert probe("audit", "--server", "no-such-command-here").status == 2
    assert probe("audit", "--server", "http://127.0.0.1:9/mcp", "--transport", "stdio").status == 2
    assert probe("audit", "--server", "python", "--headers", "novalue").status == 2
    dead = probe("audit", "--server", f"{sys.executable} {MISBEHAVING} exit_at_start")
    assert dead.status == 2
    assert "cannot probe the server" in dead.err
    assert dead.report == {}


@pytest.mark.servers
@pytest.mark.parametrize(("server", "healthy"), [("mcp-server-memory", 3), ("mcp-server-time", 2)])
def test_real_servers(probe: Callable[..., Probed], server: str, healthy: int) -> None:
    done = probe("audit", "--server", server)
    assert done.status == 0
    assert done.report["summary"]["passed"] == healthy


@pytest.mark.servers
def test_a_slow_tool_times_out_alone(probe: Callable[..., Probed]) -> None:
    done = probe("audit", "--server", "mcp-server-everything", "--timeout", "2s")
    assert done.status == 1
    failed = {r["name"]: r["failure"]["details"]["class"] for r in done.report["results"] if r["failure"]}
    assert failed == {"trigger-long-running-operation": "timeout"}  # it runs 10 s by default
    assert done.report["summary"]["passed"] == 8


@pytest.mark.servers
def test_filesystem_server(probe: Callable[..., Probed], tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hi")
    done = probe("audit", "--server", f"mcp-server-filesystem {tmp_path}")
    assert done.status in (0, 1)
    skipped = {r["name"] for r in done.report["results"] if r["status"] == "SKIP"}
    assert "write_file" in skipped


def test_each_call_is_a_step_and_verbose_shows_it(probe: Callable[..., Probed]) -> None:
    done = probe("audit", "--server", target("--only", "ok,picky,strict"), "-v")
    (ok,) = done.result("ok")["steps"]
    assert ok["request"] == {"tool": "ok", "arguments": {"text": "example"}}
    assert ok["response"]["content"] == [{"type": "text", "text": "example"}]
    assert ok["checks"] == ["healthy"]
    (strict,) = done.result("strict")["steps"]
    assert strict["response"] == {"failure": "rpc_error", "message": strict["response"]["message"]}
    assert strict["checks"] == ["rejects-valid-input"] and strict["is_error"] is True
    assert '-> picky {"tool": "picky", "arguments": {"count": 1}}' in done.out
    assert '<- healthy {"content": [{"type": "text", "text": "count 1"}], "isError": false}' in done.out
    quiet = probe("audit", "--server", target("--only", "ok"))
    assert "-> ok" not in quiet.out
