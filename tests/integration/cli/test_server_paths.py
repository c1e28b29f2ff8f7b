"""Where a server starts: a relative `cwd:` is relative to the suite file, so a suite runs from any
directory; without `cwd:`, command and arguments are taken as written from where toolproof runs (as
mcp-assert does, so its suites keep their verdicts); a command written with its arguments gets a hint."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from toolproof.cli import main
from toolproof.load import load_file

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
ECHO = "assert: {tool: echo, args: {text: hi}, expect: {equals: hi}}\n"


def results(report: Path) -> dict[str, dict[str, object]]:
    return {result["name"]: result for result in json.loads(report.read_text())["results"]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """`project/mcp/` holds a copy of the tiny server and the suite; toolproof runs elsewhere."""
    suite = tmp_path / "project" / "mcp"
    (suite / "server").mkdir(parents=True)
    shutil.copy(TINY, suite / "server" / "tiny.py")
    return suite


def test_a_relative_cwd_is_relative_to_the_suite_file(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "echo.yaml").write_text(
        f"name: from the suite's directory\n"
        f"server: {{command: {sys.executable}, args: [tiny.py], cwd: server}}\n"
        + ECHO
        + f"---\nname: dot\nserver: {{command: {sys.executable}, args: [server/tiny.py], cwd: .}}\n"
        + ECHO
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    report = tmp_path / "report.json"
    assert main(["run", str(project / "echo.yaml"), "--json", str(report), "-q"]) == 0
    assert {name: result["status"] for name, result in results(report).items()} == {
        "from the suite's directory": "PASS",
        "dot": "PASS",
    }


def test_cwd_as_loaded_absolute_and_templates_stay_as_written(project: Path) -> None:
    (project / "cases.yaml").write_text(
        "".join(
            f"name: {name}\nserver: {{command: s, cwd: '{cwd}'}}\nassert: {{tool: t}}\n---\n"
            for name, cwd in [("relative", "server/.."), ("absolute", "/srv"), ("fixture", "{{fixture}}/a")]
        )
        + "name: none\nserver: {command: s}\nassert: {tool: t}\n"
    )
    cwds = {case.name: case.server.cwd for case in load_file(project / "cases.yaml")}  # type: ignore[union-attr]
    assert cwds == {"relative": str(project), "absolute": "/srv", "fixture": "{{fixture}}/a", "none": None}


def test_without_cwd_arguments_are_taken_from_where_toolproof_runs(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mcp-assert starts the server in its own working directory: the same file passes from the project's
    root and fails elsewhere, as it does under mcp-assert."""
    (project / "echo.yaml").write_text(
        f"name: as written\nserver: {{command: {sys.executable}, args: [mcp/server/tiny.py]}}\n" + ECHO
    )
    report = tmp_path / "report.json"
    monkeypatch.chdir(project.parent)
    assert main(["run", "mcp/echo.yaml", "--json", str(report), "-q"]) == 0
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(project / "echo.yaml"), "--json", str(report), "-q"]) == 1
    assert results(report)["as written"]["failure"]["kind"] == "transport"  # type: ignore[index]


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("python server.py", "'python server.py' is not on the server's PATH"),
        ("python examples/server.py", "'python examples/server.py' does not exist"),
    ],
)
def test_a_command_with_its_arguments_gets_a_hint(
    command: str, problem: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "case.yaml").write_text(f"name: c\nserver: {{command: '{command}'}}\n" + ECHO)
    assert main(["run", "case.yaml", "--json", "report.json", "-q"]) == 1
    message = str(results(tmp_path / "report.json")["c"]["failure"]["message"])  # type: ignore[index]
    assert problem in message
    words = command.split()
    assert message.endswith(
        f"; the command is one program, its arguments belong in `args:` (command: python, args: [{words[1]}])"
    )
