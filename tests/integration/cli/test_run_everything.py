"""`toolproof run` end to end against the real @modelcontextprotocol/server-everything."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

pytestmark = pytest.mark.servers

TINY = Path(__file__).resolve().parents[3] / "examples" / "servers" / "tiny_server.py"
EVERYTHING = "server:\n  command: mcp-server-everything\n"


def everything(text: str) -> str:
    """A case against server-everything: its server block, then the dedented rest."""
    return EVERYTHING + textwrap.dedent(text)


def test_verdicts_and_failure_kinds(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite(
        {
            "01_echo.yaml": everything("""
            name: echo passes
            assert:
              tool: echo
              args: {message: hello toolproof}
              expect: {not_error: true, contains: ["hello toolproof"], matches_regex: ["Echo: hello \\\\w+"]}
            """),
            "02_sum.yaml": everything("""
            name: sum is wrong on purpose
            assert:
              tool: get-sum
              args: {a: 2, b: 3}
              expect: {contains: ["is 6"]}
            """),
            "03_unknown.yaml": everything("""
                name: unknown tool is an isError result here
                assert:
                  tool: no-such-tool
                  expect: {not_error: true}
                """),
            "03b_rpc.yaml": f"""
name: unknown tool is a JSON-RPC error on the tiny server
server: {{command: {sys.executable}, args: [{TINY}]}}
assert: {{tool: no-such-tool, expect: {{is_error: true}}}}
""",
            "04_missing_cmd.yaml": """
            name: command that does not exist
            server: {command: toolproof-no-such-server-binary}
            assert: {tool: echo, expect: {not_error: true}}
            """,
            "05_slow.yaml": everything("""
            name: long operation times out
            timeout: 1s
            assert:
              tool: trigger-long-running-operation
              args: {duration: 20, steps: 2}
            """),
            "06_skip.yaml": everything("""
            name: skipped
            skip: true
            assert: {tool: echo, args: {message: x}}
            """),
        }
    )
    outcome = toolproof(str(suite))
    assert outcome.status == 1
    assert outcome.verdicts() == {
        "echo passes": "PASS",
        "sum is wrong on purpose": "FAIL",
        "unknown tool is an isError result here": "FAIL",
        "unknown tool is a JSON-RPC error on the tiny server": "FAIL",
        "command that does not exist": "FAIL",
        "long operation times out": "FAIL",
        "skipped": "SKIP",
    }
    kinds = {r["name"]: (r["failure"] or {}).get("kind") for r in outcome.report["results"]}
    assert kinds["sum is wrong on purpose"] == "expectation"
    assert kinds["unknown tool is an isError result here"] == "tool_error"
    assert kinds["unknown tool is a JSON-RPC error on the tiny server"] == "rpc_error"
    rpc = outcome.result("unknown tool is a JSON-RPC error on the tiny server")["failure"]
    assert rpc["details"]["code"] == -32602 and "no-such-tool" in rpc["message"]
    assert kinds["command that does not exist"] == "transport"
    assert kinds["long operation times out"] == "timeout"
    sum_failure = outcome.result("sum is wrong on purpose")["failure"]
    assert "is 6" in sum_failure["message"] and "is 5" in sum_failure["message"]
    missing = outcome.result("command that does not exist")["failure"]["message"]
    assert "toolproof-no-such-server-binary" in missing
    assert outcome.result("long operation times out")["duration_ms"] < 8000
    # the terminal report lists every case in file order
    lines = [line for line in outcome.out.splitlines() if any(n in line for n in outcome.verdicts())]
    assert [n for line in lines for n in outcome.verdicts() if n in line][:7] == list(outcome.verdicts())


def test_load_error_is_reported_and_the_rest_runs(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    suite = write_suite(
        {
            "a_good.yaml": everything("""
            name: good
            assert: {tool: echo, args: {message: hi}, expect: {contains: [hi]}}
            """),
            "b_bad.yaml": everything("""
            name: misspelt key
            assert: {tool: echo, args: {message: hi}, expect: {contians: [hi]}}
            """),
        }
    )
    outcome = toolproof(str(suite))
    assert outcome.status == 2
    statuses = sorted(r["status"] for r in outcome.report["results"])
    assert statuses == ["ERROR", "PASS"]
    error = next(r for r in outcome.report["results"] if r["status"] == "ERROR")
    assert "b_bad.yaml" in error["failure"]["message"]
    assert "contians" in error["failure"]["message"] and "contains" in error["failure"]["message"]


def test_select_and_reports(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    suite = write_suite(
        {
            "one.yaml": EVERYTHING + "name: alpha echo\nassert: {tool: echo, args: {message: a}}\n",
            "two.yaml": EVERYTHING + "name: beta echo\nassert: {tool: echo, args: {message: b}}\n",
        }
    )
    junit = tmp_path / "out" / "junit.xml"
    outcome = toolproof(str(suite), "-k", "beta", "--junit", str(junit))
    assert outcome.status == 0
    assert outcome.verdicts() == {"beta echo": "PASS"}
    assert 'name="beta echo"' in junit.read_text()


def test_unwritable_report_warns_and_keeps_the_verdict(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    suite = write_suite({"one.yaml": EVERYTHING + "name: ok\nassert: {tool: echo, args: {message: a}}\n"})
    blocker = tmp_path / "file"
    blocker.write_text("")
    outcome = toolproof(str(suite), "--junit", str(blocker / "sub" / "junit.xml"))
    assert outcome.status == 0
    assert "could not write" in outcome.err
