"""`toolproof run` options that must not pass silently: a `-k` that selects nothing, a timeout that is not
positive, a negative subscription wait, --server / --docker given for cases they cannot change, and a broken
document counted once."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome
from tests.integration.cli.test_run_hostile import TINY

from toolproof.cli import main

STDIO = f"server: {{command: {sys.executable}, args: [{TINY}]}}\n"
ECHO = "assert: {tool: echo, args: {text: hi}, expect: {equals: hi}}\n"
HTTP = "server: {transport: http, url: 'http://127.0.0.1:9/mcp'}\n"
SSE = "server: {transport: sse, url: 'http://127.0.0.1:9/sse'}\n"


def test_a_pattern_that_selects_no_case_is_a_usage_error(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite({"one.yaml": f"name: alpha\n{STDIO}{ECHO}", "two.yaml": f"name: beta\n{STDIO}{ECHO}"})
    outcome = toolproof(str(suite), "-k", "gamma")
    assert outcome.status == 2
    assert outcome.err == "toolproof run: -k 'gamma' selects none of the 2 cases found\n"
    assert outcome.report["results"] == []
    assert toolproof(str(suite), "-k", "alpha").status == 0


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        *(("--timeout", value, f"must be greater than 0, got '{value}'") for value in ("0", "0s", "-1s")),
        ("--subscription-wait", "-1s", "must not be negative, got '-1s'"),
        ("--subscription-wait", "soon", "invalid duration 'soon'"),
    ],
)
def test_a_timeout_or_wait_out_of_range_is_a_usage_error(
    write_suite: Callable[[dict[str, str]], Path],
    capsys: pytest.CaptureFixture[str],
    option: str,
    value: str,
    message: str,
) -> None:
    suite = write_suite({"one.yaml": f"name: alpha\n{STDIO}{ECHO}"})
    with pytest.raises(SystemExit) as stopped:
        main(["run", str(suite), f"{option}={value}"])
    assert stopped.value.code == 2
    assert f"argument {option}: {message}" in capsys.readouterr().err


def test_server_and_docker_name_the_cases_they_do_not_apply_to(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite(
        {
            "a.yaml": f"name: local\n{STDIO}{ECHO}",
            "b.yaml": f"name: remote http\n{HTTP}{ECHO}",
            "c.yaml": f"name: remote sse\n{SSE}{ECHO}",
        }
    )
    outcome = toolproof(str(suite), "--server", f"{sys.executable} {TINY}", "--timeout", "5s")
    warning = (
        "toolproof: --server applies to stdio servers only; not used for 2 cases over http/sse: "
        "'remote http', 'remote sse'\n"
    )
    assert outcome.err == warning
    assert outcome.report["warnings"] == [warning.removeprefix("toolproof: ").rstrip("\n")]
    assert outcome.verdicts() == {"local": "PASS", "remote http": "FAIL", "remote sse": "FAIL"}


def test_both_flags_are_named_in_one_warning(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite({f"{n}.yaml": f"name: remote {n}\n{HTTP}{ECHO}" for n in range(5)})
    outcome = toolproof(str(suite), "--server", "srv", "--docker", "img:1", "--timeout", "5s")
    assert outcome.err == (
        "toolproof: --server and --docker apply to stdio servers only; not used for 5 cases over http/sse: "
        "'remote 0', 'remote 1', 'remote 2' and 2 more\n"
    )


def test_no_warning_when_every_case_is_stdio(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite({"a.yaml": f"name: local\n{STDIO}{ECHO}"})
    outcome = toolproof(str(suite), "--server", f"{sys.executable} {TINY}")
    assert (outcome.status, outcome.err) == (0, "")


def test_a_document_with_several_mistakes_is_one_error(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    broken = (
        "name: {name}\nserver: {{command: x, args: 5}}\nassert: {{tool: t, expect: {{min_results: a}}}}\n"
    )
    suite = write_suite({"d.yaml": broken.format(name="first") + "---\n" + broken.format(name="second")})
    junit = tmp_path / "junit.xml"
    outcome = toolproof(str(suite), "--junit", str(junit))
    assert outcome.status == 2
    assert outcome.verdicts() == {"first (load error)": "ERROR", "second (load error)": "ERROR"}
    assert 'tests="2"' in junit.read_text()
