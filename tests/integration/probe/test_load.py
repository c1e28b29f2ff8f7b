"""`toolproof load` against a real server made slow on purpose (tests/servers/slow_server.py), over stdio
and over Streamable HTTP on 127.0.0.1: percentiles that grow with the server's delay, errors by kind,
objectives that fail on purpose, and the servers' memory and CPU."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.integration.mcp.helpers import listening

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
SLOW = ROOT / "tests" / "servers" / "slow_server.py"

pytestmark = pytest.mark.servers


def _load(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, dict[str, Any]]:
    report = tmp_path / "load.json"
    report.unlink(missing_ok=True)
    status = main(["load", *args, "--json", str(report)])
    out = capsys.readouterr().out
    return status, out, json.loads(report.read_text()) if report.exists() else {}


def _server(delay: float) -> str:
    return f"{sys.executable} {SLOW} --delay {delay}"


def test_percentiles_grow_when_the_server_is_slower(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--tool", "work", "--args", '{"label": "x"}', "--requests", "40", "--concurrency", "4"]
    _, _, fast = _load(tmp_path, capsys, "--server", _server(0.0), *common)
    status, out, slow = _load(tmp_path, capsys, "--server", _server(0.12), *common)
    assert status == 0
    assert fast["requests"] == slow["requests"] == 40 and fast["failed"] == slow["failed"] == 0
    assert slow["latency_ms"]["p50"] >= 120  # each call sleeps 120 ms
    for name in ("p50", "p90", "p95", "p99", "max"):
        assert slow["latency_ms"][name] > fast["latency_ms"][name], name
    assert slow["peak_rss_bytes"] > 10 * 2**20 and slow["cpu_s"] > 0  # a Python server, measured in /proc
    for line in ("throughput", "p50", "p99", "max", "peak RSS", "server CPU"):
        assert line in out


def test_an_objective_the_server_misses_fails_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--server", _server(0.1), "--tool", "work", "--requests", "12", "--concurrency", "3"]
    status, out, report = _load(tmp_path, capsys, *args, "--slo", "p95<50ms,errors<1%")
    assert status == 1
    assert "p95<50ms: " in out and "ms, NOT met" in out and "errors<1%: 0.00%, met" in out
    assert report["slo"][0]["met"] is False and report["slo"][1]["met"] is True
    status, _, _ = _load(tmp_path, capsys, *args, "--slo", "p95<5s")
    assert status == 0


def test_errors_are_counted_by_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--server", _server(0), "--tool", "fails_every", "--args", '{"every": 2}', "--warmup", "0"]
    status, out, report = _load(tmp_path, capsys, *args, "--requests", "20", "--slo", "errors<1%")
    assert status == 1
    assert report["errors"] == {"tool_error": 10} and report["error_percent"] == 50.0
    assert "errors<1%: 50.00%, NOT met" in out


def test_sessions_over_streamable_http_are_connections(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with listening([sys.executable, str(SLOW), "--delay", "0.01", "--transport", "streamable-http"]) as port:
        args = ["--server", f"http://127.0.0.1:{port}/mcp", "--tool", "work", "--requests", "30"]
        status, out, report = _load(tmp_path, capsys, *args, "--sessions", "3", "--concurrency", "2")
    assert status == 0, out
    assert (report["sessions"], report["requests"], report["failed"]) == (3, 30, 0)
    assert report["peak_rss_bytes"] is None and report["cpu_s"] is None  # not our process to measure


def test_a_duration_bounds_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    args = [
        "--server",
        _server(0.05),
        "--tool",
        "work",
        "--duration",
        "1s",
        "--sessions",
        "2",
        "--warmup",
        "1",
    ]
    status, _, report = _load(tmp_path, capsys, *args)
    assert status == 0 and report["requests"] > 5 and report["elapsed_s"] < 2
    assert time.monotonic() - started < 30


def test_bad_input_and_an_unreachable_server_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--server", _server(0), "--tool", "work"]
    assert main(["load", *base, "--args", "[1]"]) == 2
    assert "--args: expected a JSON object" in capsys.readouterr().err
    assert main(["load", *base, "--slo", "p95 under 1s"]) == 2
    assert "--slo 'p95 under 1s'" in capsys.readouterr().err
    assert main(["load", "--server", f"{sys.executable} -c pass", "--tool", "work", "--requests", "3"]) == 2
    assert "cannot probe the server" in capsys.readouterr().err


def test_a_stopped_run_reports_what_it_measured(tmp_path: Path) -> None:
    calls, report = tmp_path / "calls.txt", tmp_path / "load.json"
    server = f"{sys.executable} {SLOW} --delay 0.01 --calls {calls}"
    argv = [
        sys.executable,
        "-m",
        "toolproof",
        "load",
        "--server",
        server,
        "--tool",
        "work",
        "--duration",
        "5m",
    ]
    with subprocess.Popen(
        [*argv, "--json", str(report)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as run:
        deadline = time.monotonic() + 60
        while not calls.exists() or len(calls.read_text().splitlines()) < 20:  # past the 5 warm-up calls
            assert time.monotonic() < deadline and run.poll() is None, "no call was made"
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=30)
    assert run.returncode == 130
    assert b"toolproof load: stopped by SIGINT (exit status 130)" in err
    assert b"stopped     by SIGINT, before the end" in out
    measured = json.loads(report.read_text())
    assert measured["stopped_by"] == "SIGINT" and measured["requests"] >= 10
    assert measured["latency_ms"]["p50"] >= 10 and measured["cpu_s"] is not None
