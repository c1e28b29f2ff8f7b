"""The pytest plugin in fresh projects (pytester): toolproof suites as pytest items, against real servers."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.servers

TINY = "server: {command: python, args: [examples/servers/tiny_server.py]}"


def _project(pytester: pytest.Pytester, *suites: str) -> Path:
    """A fresh project holding copies of the example servers and of the named example suites."""
    shutil.copytree(EXAMPLES / "servers", pytester.path / "examples" / "servers")
    for suite in suites:
        shutil.copytree(EXAMPLES / suite, pytester.path / "examples" / suite)
    return pytester.path


def _case(name: str, tool: str, args: str, expect: str, server: str = TINY) -> str:
    return f"name: {name}\n{server}\nassert:\n  tool: {tool}\n  args: {args}\n  expect: {expect}\n"


def test_the_plugin_is_registered_by_the_installed_distribution() -> None:
    points = importlib.metadata.entry_points(group="pytest11")
    assert any(point.value == "toolproof.pytest_plugin" for point in points)


def test_quickstart_runs_each_case_as_an_item_and_lf_reruns_only_the_failed(
    pytester: pytest.Pytester,
) -> None:
    root = _project(pytester, "quickstart")
    tiny = root / "examples" / "quickstart" / "01_tiny_tools.yaml"
    tiny.write_text(tiny.read_text().replace('{"$": 42}', '{"$": 43}'))

    listed = pytester.runpytest_subprocess("--toolproof", "examples/quickstart", "--collect-only", "-q")
    ids = [line for line in listed.outlines if "::" in line]
    assert len(ids) == 13
    assert ids[0] == "examples/quickstart/01_tiny_tools.yaml::echo returns its text"
    assert "examples/quickstart/03_notes_features.yaml::summaries come from the client's model" in ids

    first = pytester.runpytest_subprocess("--toolproof", "examples/quickstart")
    first.assert_outcomes(passed=12, failed=1)
    first.stdout.fnmatch_lines(
        [
            "*toolproof: add returns the sum as JSON*",
            "*expectation failed (json_path)*",
            "*at examples/quickstart/01_tiny_tools.yaml:18*",
            "FAILED examples/quickstart/01_tiny_tools.yaml::add returns the sum as JSON*",
        ]
    )
    again = pytester.runpytest_subprocess("--toolproof", "--lf", "examples/quickstart")
    again.assert_outcomes(failed=1)
    again.stdout.fnmatch_lines(
        ["collected 1 item", "run-last-failure: rerun previous 1 failure (skipped 2 files)"]
    )


def test_a_failure_shows_the_cli_s_details(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    (root / "evals").mkdir()
    (root / "evals" / "echo.yaml").write_text(
        _case("echo is loud", "echo", "{text: quiet}", "{contains: [LOUD]}")
    )
    cli = subprocess.run(
        [sys.executable, "-m", "toolproof", "run", "evals"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = cli.stdout.splitlines()
    detail = [line.strip() for line in lines[1 : lines.index("")]]
    assert detail[0].startswith("expectation failed (contains):"), cli.stdout
    assert detail[-1] == "at evals/echo.yaml:6"  # the line of the expectation that failed
    result = pytester.runpytest_subprocess("--toolproof", "evals")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*toolproof: echo is loud*", *detail])


def test_k_and_x_select_and_stop_as_in_pytest(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    (root / "evals").mkdir()
    (root / "evals" / "tools.yaml").write_text(
        "---\n".join(
            [
                _case("echo one", "echo", "{text: one}", "{equals: one}"),
                _case("echo two wrong", "echo", "{text: two}", "{equals: three}"),
                _case("echo three wrong", "echo", "{text: three}", "{equals: four}"),
            ]
        )
    )
    pytester.runpytest_subprocess("--toolproof", "evals", "-k", "one").assert_outcomes(passed=1, deselected=2)
    pytester.runpytest_subprocess("--toolproof", "evals", "-x").assert_outcomes(passed=1, failed=1)


def test_xdist_and_junitxml(pytester: pytest.Pytester) -> None:
    root = _project(pytester, "quickstart")
    (root / "examples" / "quickstart" / "02_notes_tools.yaml").unlink()
    (root / "examples" / "quickstart" / "03_notes_features.yaml").unlink()
    tiny = root / "examples" / "quickstart" / "01_tiny_tools.yaml"
    tiny.write_text(tiny.read_text().replace("not_error: true", "is_error: true"))
    result = pytester.runpytest_subprocess(
        "--toolproof", "examples/quickstart", "-n", "2", "--junitxml", "report.xml", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*2 workers*"])
    cases = ET.parse(root / "report.xml").getroot().iter("testcase")
    by_name = {case.get("name"): case for case in cases}
    assert set(by_name) == {
        "echo returns its text",
        "add returns the sum as JSON",
        "describe lists its arguments in order",
        "fail reports a tool error, not a crash",
    }
    failure = by_name["echo returns its text"].find("failure")
    assert failure is not None
    assert "expectation failed (is_error)" in (failure.text or "")


def test_a_file_that_does_not_load_is_one_collection_error_and_the_good_cases_still_run(
    pytester: pytest.Pytester,
) -> None:
    root = _project(pytester)
    (root / "evals").mkdir()
    (root / "evals" / "good.yaml").write_text(_case("echo works", "echo", "{text: hi}", "{equals: hi}"))
    (root / "evals" / "typo.yaml").write_text(
        _case("typo", "echo", "{text: hi}", "{equals: hi}").replace("expect:", "expcet:")
    )
    (root / "evals" / "broken.yaml").write_text("name: broken\nassert: [unclosed\n")
    result = pytester.runpytest_subprocess("--toolproof", "evals", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting evals/broken.yaml*",
            "evals/broken.yaml:3:1: YAML syntax error: *",
            "*ERROR collecting evals/typo.yaml*",
            "evals/typo.yaml:6:3: assert.expcet: unknown key (did you mean 'expect'?)",
            "*short test summary*",
            "ERROR evals/broken.yaml::broken.yaml (load error)",
            "ERROR evals/typo.yaml::typo (load error)",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    stopped = pytester.runpytest_subprocess("--toolproof", "evals")
    assert stopped.ret == pytest.ExitCode.INTERRUPTED
    stopped.stdout.fnmatch_lines(["*Interrupted: 2 errors during collection*"])


def test_the_plugin_leaves_yaml_alone_unless_asked(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    for folder in ("evals", "config"):
        (root / folder).mkdir()
        (root / folder / "case.yaml").write_text(
            _case(f"{folder} case", "echo", "{text: hi}", "{equals: hi}")
        )
    (root / "test_plain.py").write_text("def test_plain():\n    pass\n")
    pytester.runpytest_subprocess().assert_outcomes(passed=1)
    pytester.makeini("[pytest]\ntoolproof_paths = evals\n")
    result = pytester.runpytest_subprocess("evals", "config", "test_plain.py", "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*evals/case.yaml::evals case PASSED*"])


def test_fixture_server_and_timeout_come_from_ini_or_options(pytester: pytest.Pytester) -> None:
    root = _project(pytester)
    (root / "evals").mkdir()
    (root / "evals" / "fixtures").mkdir()
    (root / "evals" / "fixtures" / "hello.txt").write_text("hello")
    elsewhere = "server: {command: no-such-server}"
    (root / "evals" / "cases.yaml").write_text(
        _case(
            "reads the fixture copy",
            "echo",
            "{text: hi}",
            '{file_contains: {"{{fixture}}/hello.txt": hello}}',
        )
        + "---\n"
        + _case(
            "runs the overriding server", "add", "{a: 1, b: 2}", '{json_path: {"$": 3}}', server=elsewhere
        )
    )
    (root / "slow").mkdir()
    notes = "server: {command: python, args: [examples/servers/notes_server.py]}"
    (root / "slow" / "slow.yaml").write_text(
        _case("imports slowly", "import_notes", "{count: 3, delay: 1}", "{not_error: true}", server=notes)
    )
    result = pytester.runpytest_subprocess("--toolproof", "slow", "--toolproof-timeout", "500ms")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*timeout: timed out after 0.5s during *"])
    bad = pytester.runpytest_subprocess("--toolproof", "slow", "--toolproof-timeout", "soon")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*invalid duration 'soon'*"])

    pytester.makeini(
        "[pytest]\ntoolproof_fixture = evals/fixtures\n"
        "toolproof_server = python examples/servers/tiny_server.py\n"
    )
    pytester.runpytest_subprocess("--toolproof", "evals").assert_outcomes(passed=2)
    pytester.runpytest_subprocess(
        "--toolproof", "evals", "--toolproof-server", "no-such-server"
    ).assert_outcomes(passed=0, failed=2)


@pytest.mark.serial
def test_the_subscription_wait_comes_from_the_ini_or_the_option(pytester: pytest.Pytester) -> None:
    """A read that expects an update no change brings: within the 2 s timeout, a 300 ms wait fails on the
    missing update; a 10 s one (the command line wins over the ini) runs into the timeout first."""
    root = _project(pytester)
    (root / "evals").mkdir()
    (root / "evals" / "update.yaml").write_text(
        "name: no update comes\n"
        "server: {command: python, args: [examples/servers/notes_server.py]}\n"
        "assert_resources: {subscribe: 'notes://all', read: 'notes://all', expect_notification: true}\n"
    )
    pytester.makeini("[pytest]\ntoolproof_timeout = 2s\ntoolproof_subscription_wait = 300ms\n")
    short = pytester.runpytest_subprocess("--toolproof", "evals")
    short.assert_outcomes(failed=1)
    short.stdout.fnmatch_lines(["*no notifications/resources/updated arrived after subscribing*"])
    long = pytester.runpytest_subprocess("--toolproof", "evals", "--toolproof-subscription-wait", "10s")
    long.assert_outcomes(failed=1)
    long.stdout.fnmatch_lines(["*timed out after 2s during *"])
    bad = pytester.runpytest_subprocess("--toolproof", "evals", "--toolproof-subscription-wait=-1s")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*toolproof subscription wait must not be negative, got '-1s'*"])


def test_agent_cases_are_checked_against_the_recorded_runs(pytester: pytest.Pytester) -> None:
    root = pytester.path
    shutil.copytree(
        EXAMPLES / "agent" / "mibo", root / "cases" / "mibo", ignore=shutil.ignore_patterns("live")
    )
    shutil.copytree(EXAMPLES / "agent" / "toolproof", root / "cases" / "toolproof")
    shutil.copytree(EXAMPLES / "agent" / "traces", root / "traces")
    without = pytester.runpytest_subprocess("--toolproof", "cases", "-rs")
    without.assert_outcomes(skipped=3)
    without.stdout.fnmatch_lines(["*cases/mibo/hotel_search.json:1: no recorded run for this case*"])
    pytester.makeini("[pytest]\ntoolproof_traces = traces\n")
    result = pytester.runpytest_subprocess("--toolproof", "cases", "-v")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*cases/mibo/hotel_search.json::Hotel search in Madrid PASSED*",
            "*cases/toolproof/support_agent.yaml::booking workflow PASSED*",
            "*FAIL  refund for a double charge*",
        ]
    )
