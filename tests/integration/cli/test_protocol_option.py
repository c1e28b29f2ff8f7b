"""`--protocol` on every command that talks to a server: a pinned 2026-07-28 era never falls back
(tiny_server speaks only the handshake era), auto does."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from toolproof.cli import main

TINY = Path(__file__).resolve().parents[3] / "examples" / "servers" / "tiny_server.py"
REFUSED = "the server does not speak the 2026-07-28 era, and a pinned --protocol never falls back"
TALKING = [
    *("run", "ci", "watch", "matrix", "snapshot", "coverage", "init", "generate"),  # suites, authoring
    "eval",  # agents
    *("lint", "audit", "fuzz"),  # probes
]


@pytest.mark.parametrize("command", TALKING)
def test_every_command_that_talks_to_a_server_takes_protocol(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "--protocol {2025-11-25,2026-07-28,auto}" in " ".join(capsys.readouterr().out.split())


@pytest.mark.servers
@pytest.mark.parametrize("protocol", ["2026-07-28", "auto"])
def test_lint_speaks_the_era_it_is_given(protocol: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["lint", "--server", f"{sys.executable} {TINY}", "--protocol", protocol])
    err = capsys.readouterr().err
    if protocol == "auto":
        assert REFUSED not in err
        assert status in (0, 1)  # lint's status says whether it found something
    else:
        assert REFUSED in err
        assert status == 2


@pytest.mark.servers
def test_generate_pinned_to_2026_fails_rather_than_finding_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "generated"
    status = main(["generate", "--server", f"{sys.executable} {TINY}", "--protocol", "2026-07-28", str(out)])
    assert status == 2
    assert REFUSED in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


TRAVEL = Path(__file__).resolve().parents[3] / "examples" / "servers" / "travel_server.py"


@pytest.mark.servers
@pytest.mark.parametrize("command", ["audit", "fuzz", "lint"])
@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_probe_reports_say_which_era_was_spoken(
    command: str, protocol: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    server = f"{sys.executable} {TRAVEL}"
    main([command, "--server", server, "--protocol", protocol, "--json", str(report)])
    capsys.readouterr()
    results = json.loads(report.read_text())["results"]
    called = [result for result in results if result["status"] != "SKIP"]
    assert called
    assert {result["protocol"] for result in called} == {protocol}, results
