"""A one-case `check` loads only what its cases use: no MCP SDK, HTTP client, JSON Schema validator, regex
engine, JSONPath, rich (plain output), event loop (nothing waits), server case model, server observation or
other command; and it builds
the validators of the pydantic models it makes, no other."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STARTUP = ROOT / "bench" / "startup"

PROBE = """
import sys
from toolproof.cli import main
status = main(sys.argv[1:])
heavy = {"mcp", "mcp_types", "httpx2", "jsonschema", "regex", "re2", "jsonpath_rfc9535", "rich", "anyio",
         "asyncio"}
own = {"toolproof.model.server_case", "toolproof.check.judge", "toolproof.report.baseline",
       "toolproof.sources.traces.mibo", "toolproof.cli.run", "toolproof.model.observation",
       "toolproof.mcp.session", "toolproof.sources.server", "toolproof.probe", "difflib",
       "toolproof.run.side_by_side", "toolproof.mcp.process", "toolproof.api.audit",
       "toolproof.api.authoring", "toolproof.api.lint", "toolproof.api.fuzz", "toolproof.api.conformance",
       "toolproof.check.expect", "toolproof.check.tools"}
print(sorted(name for name in sys.modules if name.split(".")[0] in heavy or name in own), file=sys.stderr)
sys.exit(status)
"""


def _loaded(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    environ = {name: value for name, value in os.environ.items() if name not in ("FORCE_COLOR", "NO_COLOR")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={**environ, **(env or {})},
    )
    return done.returncode, done.stderr.strip().splitlines()[-1]


def test_one_case_check_imports_only_what_its_cases_use() -> None:
    status, loaded = _loaded(
        "check", str(STARTUP / "one_case.yaml"), "--trace", str(STARTUP / "refund.transcript.json")
    )
    assert status == 0
    assert loaded == "[]"


BUILT = """
import sys
from pydantic._internal import _model_construction
complete = _model_construction.complete_model_class
built = []

def recording(cls, *args, **kwargs):
    built.append(f"{cls.__module__}.{cls.__qualname__}")
    return complete(cls, *args, **kwargs)

_model_construction.complete_model_class = recording
from toolproof.cli import main
status = main(sys.argv[1:])
print(sorted(set(built)), file=sys.stderr)
sys.exit(status)
"""


def test_one_case_check_builds_only_the_models_it_makes() -> None:
    args = ("check", str(STARTUP / "one_case.yaml"), "--trace", str(STARTUP / "refund.transcript.json"))
    done = subprocess.run(
        [sys.executable, "-c", BUILT, *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    built = set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))
    # its run and its verdicts; never the server, target or observation models it does not make, nor the
    # validators of its case and checks (a case's builds every kind of check, a call check's every kind of
    # matcher): the reader checked and typed their fields
    assert {"toolproof.model.transcript.Transcript", "toolproof.model.result.CaseResult"} <= built
    unused = {name for name in built if name.split(".")[2] in ("observation", "target", "server_config")}
    assert not unused
    assembled = {f"toolproof.model.scenario.{name}" for name in ("AgentCase", "AgentTurn", "CallCheck")}
    assert not assembled & built
    assert "toolproof.model.result.Failure" not in built  # every check passed: no failure was made


def test_a_suite_of_skipped_cases_loads_no_server_machinery() -> None:
    status, loaded = _loaded("run", str(STARTUP / "skipped.yaml"))
    assert status == 0
    unused = {"toolproof.mcp.session", "toolproof.sources.server", "toolproof.run.side_by_side", "mcp"}
    unused |= {"toolproof.check.expect", "toolproof.check.tools"}  # no block is checked
    assert not unused & set(ast.literal_eval(loaded))


@pytest.mark.parametrize(
    "suite", [ROOT / "examples/blocks/trajectory/01_inline_order.yaml", STARTUP / "skipped.yaml"]
)
def test_a_suite_that_starts_no_server_runs_without_an_event_loop(suite: Path) -> None:
    status, loaded = _loaded("run", str(suite))
    assert status == 0
    assert not {"anyio", "asyncio"} & {name.split(".")[0] for name in ast.literal_eval(loaded)}


def test_a_schema_assertion_loads_jsonschema(tmp_path: Path) -> None:
    cases = tmp_path / "schema.yaml"
    cases.write_text(
        "name: refund\nid: refund\nexpect:\n"
        "  - called: {tool: lookup_order, args: {order_id: {schema: {type: string}}}}\n"
    )
    _, loaded = _loaded("check", str(cases), "--trace", str(STARTUP / "refund.transcript.json"))
    assert "jsonschema" in loaded


def test_a_regex_assertion_loads_the_regex_engine(tmp_path: Path) -> None:
    cases = tmp_path / "regex.yaml"
    cases.write_text("name: refund\nid: refund\nexpect:\n  - regex: {pattern: 'refund', flavor: js}\n")
    _, loaded = _loaded("check", str(cases), "--trace", str(STARTUP / "refund.transcript.json"))
    assert "regex" in loaded


def test_coloured_output_loads_rich() -> None:
    args = ("check", str(STARTUP / "one_case.yaml"), "--trace", str(STARTUP / "refund.transcript.json"))
    _, loaded = _loaded(*args, env={"FORCE_COLOR": "1"})
    assert "rich" in loaded


CALLS = """
import inspect, sys
from toolproof.api.lint import LintResult  # the module named like its call, imported first
import toolproof.api as api
from toolproof.api import lint, snapshot
print(inspect.isfunction(api.lint), lint is api.lint, inspect.isfunction(snapshot), "fuzz" in dir(api))
"""


def test_the_api_calls_load_on_first_use_and_are_always_the_calls() -> None:
    done = subprocess.run([sys.executable, "-c", CALLS], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.split() == ["True", "True", "True", "True"], done.stderr
