"""Probes over Streamable HTTP and SSE, and the shared report options."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tests.integration.mcp.helpers import NOTES, free_port, stop, wait_for_port
from tests.integration.probe.conftest import Probed, target

from toolproof.cli import main


@pytest.fixture(scope="module")
def notes_url() -> Iterator[Callable[[str], str]]:
    started: list[subprocess.Popen[bytes]] = []
    urls: dict[str, str] = {}

    def url(transport: str) -> str:
        if transport not in urls:
            port = free_port()
            process = subprocess.Popen(
                [sys.executable, str(NOTES), "--transport", transport, "--port", str(port)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            started.append(process)
            wait_for_port(port, process)
            urls[transport] = f"http://127.0.0.1:{port}" + (
                "/mcp" if transport == "streamable-http" else "/sse"
            )
        return urls[transport]

    yield url
    for process in started:
        stop(process)


def test_audit_over_streamable_http(probe: Callable[..., Probed], notes_url: Callable[[str], str]) -> None:
    done = probe("audit", "--server", notes_url("streamable-http"), "--headers", "X-Api-Key=sekret-value-1")
    assert done.verdicts()["get_note"] == "PASS"
    assert "sekret-value-1" not in done.out + str(done.report)


def test_lint_over_sse(probe: Callable[..., Probed], notes_url: Callable[[str], str]) -> None:
    done = probe("lint", "--server", notes_url("sse"), "--transport", "sse")
    assert done.status == 1
    assert any(name.startswith("add_note E103") for name in done.verdicts())


def test_a_url_needs_an_http_transport(probe: Callable[..., Probed]) -> None:
    done = probe("lint", "--server", "http://127.0.0.1:9/mcp", "--transport", "stdio")
    assert done.status == 2
    assert "--transport sse or http" in done.err


def test_junit_and_bare_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    junit = tmp_path / "audit.xml"
    status = main(["audit", "--server", target("--only", "ok,crash"), "--junit", str(junit), "--json"])
    assert status == 1
    captured = capsys.readouterr()
    assert '"name": "crash"' in captured.out  # the JSON document is on stdout
    assert "audit score: 50%" in captured.err  # and the terminal report on stderr
    xml = junit.read_text()
    assert 'name="crash"' in xml and "<failure" in xml
