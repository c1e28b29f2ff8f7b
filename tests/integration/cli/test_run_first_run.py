"""`toolproof run` on what a newcomer gets wrong: a `{{fixture}}` with no --fixture, an unset `${VAR}` in a
url, a failure to find in the file, --collect-only with reports, a trajectory suite with no server, and a
stdio suite that loads no OAuth, HTTP or schema code it does not use."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome
from tests.integration.cli.test_run_hostile import TINY

from toolproof.cli import main

ROOT = Path(__file__).resolve().parents[3]
STDIO = f"server: {{command: {sys.executable}, args: [{TINY}]}}\n"
ECHO = "assert: {tool: echo, args: {text: 'hi'}}\n"


def test_a_fixture_placeholder_without_fixture_warns(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    uses = ECHO.replace("hi", "{{fixture}}/a")
    suite = write_suite(
        {"uses.yaml": f"name: uses it\n{STDIO}{uses}", "plain.yaml": f"name: plain\n{STDIO}{ECHO}"}
    )
    outcome = toolproof(str(suite))
    assert outcome.status == 0
    warning = "{{fixture}} stays as written without --fixture DIR; used by 1 case: 'uses it'"
    assert outcome.err == f"toolproof: {warning}\n"
    assert outcome.report["warnings"] == [warning]


def test_an_unset_variable_in_a_url_is_named(
    write_suite: Callable[[dict[str, str]], Path],
    toolproof: Callable[..., Outcome],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TOOLPROOF_TEST_HOST", raising=False)
    suite = write_suite(
        {"remote.yaml": f"server: {{transport: http, url: '${{TOOLPROOF_TEST_HOST}}/mcp'}}\n{ECHO}"}
    )
    outcome = toolproof(str(suite))
    assert outcome.status == 1
    failure = outcome.report["results"][0]["failure"]
    assert failure["kind"] == "config"
    assert "${TOOLPROOF_TEST_HOST} not set in the environment" in failure["message"]
    assert "cannot reach" not in outcome.out


def test_a_failure_points_at_the_failing_expectation(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    case = "assert:\n  tool: echo\n  args: {text: hi}\n  expect:\n    not_error: true\n    contains: [bye]\n"
    suite = write_suite({"wrong.yaml": f"# a comment first\nname: wrong on purpose\n{STDIO}{case}"})
    outcome = toolproof(str(suite))
    assert outcome.status == 1
    assert outcome.result("wrong on purpose")["line"] == 9
    assert f"at {suite / 'wrong.yaml'}:9" in outcome.out


def test_collect_only_writes_the_reports(
    write_suite: Callable[[dict[str, str]], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = write_suite({"two.yaml": f"name: one\n{STDIO}{ECHO}---\nname: two\n{STDIO}{ECHO}"})
    report, junit = tmp_path / "r.json", tmp_path / "j.xml"
    assert main(["run", str(suite), "--collect-only", "--json", str(report), "--junit", str(junit)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{suite / 'two.yaml'}::one",
        f"{suite / 'two.yaml'}::two",
    ]
    results = json.loads(report.read_text())["results"]
    assert [(r["name"], r["status"]) for r in results] == [("one", "SKIP"), ("two", "SKIP")]
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    assert [case.get("name") for case in cases] == ["one", "two"]
    assert main(["run", str(suite), "--collect-only", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert [r["name"] for r in json.loads(captured.out)["results"]] == ["one", "two"]
    assert "::one" in captured.err  # the listing moves to stderr when stdout carries the JSON


TINY_RUN = ["run", "examples/quickstart/01_tiny_tools.yaml", "--server",
            f"{sys.executable} examples/servers/tiny_server.py", "-q"]


def run_in_a_fresh_interpreter(args: list[str], *, before: str = "", after: str) -> None:
    """`toolproof ARGS` in a new Python process: `before` runs first, `after` asserts on what was loaded."""
    code = (
        f"import sys\nfrom toolproof.cli import main\n{before}status = main({args!r})\n"
        f"{after}sys.exit(10 + status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 10, done.stderr


def test_a_trajectory_suite_does_not_import_the_mcp_sdk() -> None:
    run_in_a_fresh_interpreter(
        ["run", "examples/blocks/trajectory", "-q"],
        after="loaded = sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types'})\n"
        "assert not loaded, loaded\n",
    )


def test_a_stdio_suite_loads_no_oauth_http_or_schema_validator() -> None:
    run_in_a_fresh_interpreter(
        TINY_RUN,
        after="unused = {'mcp.client.auth', 'toolproof.mcp.http', 'toolproof.mcp.auth', 'jsonschema',\n"
        "          'toolproof.run.trajectory', 'toolproof.model.scenario'}\n"
        "loaded = sorted(unused & set(sys.modules))\n"
        "assert 'mcp' in sys.modules and not loaded, loaded\n",
    )


@pytest.mark.parametrize("flags", [[], ["--reuse-server"]])
def test_a_stdio_suite_starts_its_server_before_it_imports_the_mcp_sdk(flags: list[str]) -> None:
    run_in_a_fresh_interpreter(
        [*TINY_RUN, *flags],
        before="spawns = []\nsys.addaudithook(lambda event, _: event == 'subprocess.Popen'\n"
        "                 and spawns.append('mcp' in sys.modules))\n",
        after="assert spawns[:1] == [False] and 'mcp' in sys.modules, spawns\n",
    )
