"""A Mibo test case run by `toolproof eval` against an HTTP agent: the bundled example
(examples/agent/mibo/live) sent to loop_agent.py, toolproof's agent loop with a scripted model over the real
notes server, behind HTTP. The target comes from `--target FILE` or the project file's `target:`; a case's
own target wins over both."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.agent.conftest import ROOT
from tests.integration.mcp.helpers import free_port, listening

from toolproof.cli import main

pytestmark = pytest.mark.servers
LOOP_AGENT = Path(__file__).with_name("loop_agent.py")
EXAMPLE = ROOT / "examples" / "agent" / "mibo" / "live"
CASE = EXAMPLE / "plumber_note.json"
TARGET = EXAMPLE / "toolproof.yaml"


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    """The chat URL of loop_agent.py, answering with the example's script."""
    script = EXAMPLE / "agent_script.yaml"
    with listening([sys.executable, str(LOOP_AGENT), "--script", str(script)]) as port:
        yield f"http://127.0.0.1:{port}/chat"


@pytest.fixture
def agent(agent_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The agent's URL, in the variable the example's target file reads."""
    monkeypatch.setenv("NOTES_AGENT_URL", agent_url)
    return agent_url


def toolproof_eval(tmp_path: Path, *argv: str | Path) -> tuple[int, list[dict[str, Any]]]:
    report = tmp_path / "report.json"
    status = main(["eval", *map(str, argv), "--json", str(report), "-q"])
    return status, json.loads(report.read_text())["results"] if report.exists() else []


@pytest.mark.parametrize("how", [["--target", TARGET], ["--config", TARGET]])
def test_the_example_passes(tmp_path: Path, agent: str, how: list[str | Path]) -> None:
    status, results = toolproof_eval(tmp_path, EXAMPLE, *how)  # the script and target file are not cases
    assert status == 0, results
    (result,) = results
    assert (result["name"], result["status"]) == ("Remembers the plumber's visit", "PASS")


def test_a_target_file_beside_the_case_is_not_a_case(tmp_path: Path, agent: str) -> None:
    cases = tmp_path / "mibo"
    cases.mkdir()
    (cases / "plumber_note.json").write_text(CASE.read_text())
    platform = cases / "platform.yaml"  # as a Mibo platform is configured, apart from its cases
    platform.write_text(TARGET.read_text())
    status, results = toolproof_eval(tmp_path, cases, "--target", platform)
    assert status == 0, results
    assert [result["name"] for result in results] == ["Remembers the plumber's visit"]


def test_a_case_the_agent_does_not_satisfy_fails(tmp_path: Path, agent: str) -> None:
    case = json.loads(CASE.read_text())
    saved = case["assertions"]["procedural"][0]
    saved["expected_arguments"]["title"]["value"] = "Dentist"
    case["assertions"]["procedural"].append(
        {"target": "response_regex", "pattern": "deleted", "should_match": True}
    )
    path = tmp_path / "dentist.json"
    path.write_text(json.dumps(case))
    status, results = toolproof_eval(tmp_path, path, "--target", TARGET)
    assert status == 1
    (result,) = results
    assert result["status"] == "FAIL"
    message = result["failure"]["message"]
    assert "add_note" in message and "Dentist" in message
    assert "deleted" in message
    # the call and the new regex fail (what depends on the call is skipped)
    assert result["failure"]["check"] == "2 of 6"


def test_a_case_with_its_own_target_keeps_it(tmp_path: Path, agent: str) -> None:
    own = tmp_path / "own.yaml"
    own.write_text(
        f"name: own\nprompt: hi\ntarget: {{url: 'http://127.0.0.1:{free_port()}/chat'}}\nexpect: []\n"
    )
    status, results = toolproof_eval(tmp_path, own, "--target", TARGET)
    assert status == 1
    (result,) = results
    assert result["failure"]["kind"] == "transport"  # sent to its own (dead) target, not to the agent


def test_target_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(CASE), "--target", str(TARGET), "--server", "notes=python x.py"]) == 2
    assert "--target and --server" in capsys.readouterr().err
    assert main(["eval", str(CASE), "--target", str(tmp_path / "nowhere.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "target.yaml"
    bad.write_text("target:\n  url: http://127.0.0.1:9/chat\n  respons_path: reply\n")
    assert main(["eval", str(CASE), "--target", str(bad)]) == 2
    assert f"{bad}:3:3: target.respons_path: unknown key" in capsys.readouterr().err
