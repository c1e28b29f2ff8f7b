"""`run`, `ci` and the pytest plugin agree on which YAML files under a directory are tests: a
`docker-compose.yml` or `config.yaml` beside the suites is skipped with a note, a test file with mistakes
still fails, and a file named by its path is always loaded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from toolproof.cli import main

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
NOTE = "skipped: no document in it is a test of a format toolproof knows (name the file to load it)"


def project(root: Path) -> Path:
    """A suite directory with one case, a compose file, a config file and a project file beside it."""
    suite = root / "mcp"
    (suite / "config").mkdir(parents=True)
    (suite / "echo.yaml").write_text(
        f"name: echo works\nserver: {{command: {sys.executable}, args: [{TINY}]}}\n"
        "assert: {tool: echo, args: {text: hi}, expect: {equals: hi}}\n"
    )
    (suite / "docker-compose.yml").write_text("services:\n  db: {image: postgres}\n")
    (suite / "config" / "app.yaml").write_text("name: my app\nlog_level: debug\n")
    (suite / "toolproof.yaml").write_text("provider: scripted\nscript: model.yaml\n")
    return suite


@pytest.mark.parametrize("command", ["run", "ci"])
def test_run_and_ci_skip_yaml_that_holds_no_test_with_a_note(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = project(tmp_path)
    assert main([command, str(suite)]) == 0
    out, err = capsys.readouterr()
    assert "1 passed" in out
    assert err.splitlines() == [
        f"toolproof: {suite / 'config' / 'app.yaml'}: {NOTE}",
        f"toolproof: {suite / 'docker-compose.yml'}: {NOTE}",
    ]


@pytest.mark.parametrize("command", ["run", "ci"])
def test_run_and_ci_load_a_file_named_by_its_path(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = project(tmp_path)
    assert main([command, str(suite / "echo.yaml"), str(suite / "docker-compose.yml")]) == 2
    assert "not a test format toolproof knows" in capsys.readouterr().out


@pytest.mark.servers
def test_the_plugin_skips_the_same_files_with_the_same_note(pytester: pytest.Pytester) -> None:
    project(pytester.path)
    result = pytester.runpytest_subprocess("--toolproof", "mcp", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    notes = {line for line in result.outlines if line.startswith("toolproof: ")}
    assert notes == {f"toolproof: mcp/config/app.yaml: {NOTE}", f"toolproof: mcp/docker-compose.yml: {NOTE}"}
    assert "toolproof.yaml" not in result.stdout.str()
    named = pytester.runpytest_subprocess("--toolproof", "mcp/echo.yaml", "mcp/docker-compose.yml")
    named.assert_outcomes(errors=1)  # a collection error: pytest runs nothing
    named.stdout.fnmatch_lines(["*not a test format toolproof knows*"])
