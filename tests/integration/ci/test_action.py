"""The GitHub Action's own steps, run here as a runner runs them: `${{ }}` expressions filled in, inputs in
the environment, bash with `-eo pipefail`, a fake `$GITHUB_STEP_SUMMARY` and `$GITHUB_OUTPUT`. Most tests
run only the `run` step, with this environment's toolproof in place of the one the install step makes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[3]
TINY = ROOT / "examples" / "servers" / "tiny_server.py"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    return loaded


def fill(text: str, given: dict[str, str], context: dict[str, str]) -> str:
    """`text` with each `${{ inputs.NAME }}` replaced by the given value or the input's default, and each
    other expression (`runner.temp`, `steps.ID.outputs.NAME`) by its value in `context`."""
    inputs = action()["inputs"]
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of the action: {unknown}"

    def value(match: re.Match[str]) -> str:
        scope, _, name = match.group(1).partition(".")
        if scope == "inputs":
            return given.get(name, str(inputs[name].get("default", "")))
        return context[match.group(1)]

    return EXPRESSION.sub(value, text)


def run_step(
    step_id: str, given: dict[str, str], workdir: Path, context: dict[str, str] | None = None
) -> tuple[int, str, str, str]:
    """Run one step's script; returns its exit status, output, the step summary and $GITHUB_OUTPUT.
    Without a `context`, the run step gets this environment's Python as the install step's output."""
    step = next(step for step in action()["runs"]["steps"] if step.get("id") == step_id)
    assert step["shell"] == "bash"
    context = context or {"steps.install.outputs.python": sys.executable}
    context = {"runner.temp": str(workdir), **context}
    script = workdir / f"{step_id}.sh"
    script.write_text(step["run"])
    summary, outputs = workdir / "summary.md", workdir / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    env = {
        **os.environ,
        **{key: fill(str(text), given, context) for key, text in step.get("env", {}).items()},
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_ACTION_PATH": str(ROOT),
        "RUNNER_TEMP": context["runner.temp"],
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,  # the install step makes a virtual environment and fills it
        check=False,
    )
    return done.returncode, done.stdout, summary.read_text(), outputs.read_text()


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """Four passing cases and a failing one, in two directories (the suite input takes several)."""
    for number in range(1, 6):
        folder = tmp_path / ("first" if number < 3 else "second dir")
        folder.mkdir(exist_ok=True)
        expected = "nope" if number == 5 else str(number)
        (folder / f"c{number}.yaml").write_text(
            textwrap.dedent(
                f"""\
                name: echo {number}
                server: {{command: {sys.executable}, args: [{TINY}]}}
                assert: {{tool: echo, args: {{text: "{number}"}}, expect: {{equals: "{expected}"}}}}
                """
            )
        )
    return tmp_path


def test_the_action_runs_ci_and_writes_the_step_summary_and_reports(suite: Path) -> None:
    given = {
        "suite": "first\nsecond dir\n",  # one path per line, spaces kept
        "threshold": "80",
        "junit": "out/junit.xml",
        "html": "out/report.html",
        "json": "out/report.json",
        "save-baseline": "out/baseline.json",
        "args": "--jobs 2",
    }
    status, out, summary, outputs = run_step("run", given, suite)
    assert status == 0, out
    assert "pass rate 80%, threshold 80%: met" in out
    assert summary.startswith("### toolproof ci: 4/5 passed")
    assert "| FAIL | echo 5 |" in summary
    assert outputs == "exit-code=0\n"
    for name in ("junit.xml", "report.html", "report.json", "baseline.json"):
        assert (suite / "out" / name).stat().st_size > 0
    status, _, summary, outputs = run_step("run", {**given, "threshold": "81"}, suite)
    assert (status, outputs) == (1, "exit-code=1\n")
    assert "### toolproof ci: 4/5 passed" in summary


def test_the_action_fails_on_a_regression_against_its_baseline(suite: Path) -> None:
    given = {"suite": "first", "save-baseline": "baseline.json"}
    assert run_step("run", given, suite)[0] == 0
    broken = (suite / "first" / "c1.yaml").read_text().replace('equals: "1"', 'equals: "one"')
    (suite / "first" / "c1.yaml").write_text(broken)
    regression = {"suite": "first", "threshold": "50", "baseline": "baseline.json"}
    status, out, summary, _ = run_step("run", regression, suite)
    assert status == 0 and "regression: echo 1 (PASS -> FAIL)" in out
    assert "- regression: echo 1 (PASS -> FAIL)" in summary
    status, _, _, outputs = run_step("run", {**regression, "fail-on-regression": "true"}, suite)
    assert (status, outputs) == (1, "exit-code=1\n")


def test_input_text_is_never_run_by_the_shell(suite: Path) -> None:
    marker = suite / "pwned"
    status, _, _, outputs = run_step("run", {"suite": "first", "junit": f"$(touch {marker})"}, suite)
    assert status == 0 and outputs == "exit-code=0\n"
    assert not marker.exists()
    assert (suite / f"$(touch {marker})").exists()  # the text was a file name, nothing more


def step(step_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(each for each in action()["runs"]["steps"] if each.get("id") == step_id)
    return found


def test_the_install_step_is_valid_bash_and_installs_this_checkout_in_a_venv_by_default() -> None:
    install = step("install")
    assert '-m venv "$venv"' in install["run"]
    assert '"${TOOLPROOF_PACKAGE:-$GITHUB_ACTION_PATH}"' in install["run"]
    assert install["env"]["PIP_CACHE_DIR"] == "${{ runner.temp }}/toolproof-pip-cache"
    assert subprocess.run(["bash", "-n"], input=install["run"], text=True, check=False).returncode == 0


def test_pip_downloads_are_cached_where_the_install_step_keeps_them() -> None:
    steps = action()["runs"]["steps"]
    cache = next(each for each in steps if each.get("uses", "").startswith("actions/cache@"))
    assert cache["with"]["path"] == step("install")["env"]["PIP_CACHE_DIR"]
    assert cache["if"] == "inputs.cache == 'true'" and action()["inputs"]["cache"]["default"] == "true"


def named_cases(folder: Path) -> Path:
    """Cases named echo, add and describe, against the stdlib-only tiny server."""
    calls = {
        "echo": ('{text: hi}', "equals: hi"),
        "add": ("{a: 40, b: 2}", 'json_path: {"$": 42}'),
        "describe": ("{a: 1}", "not_error: true"),
    }
    documents = [
        f"name: {name} case\nserver: {{command: {sys.executable}, args: [{TINY}]}}\n"
        f"assert: {{tool: {name}, args: {args}, expect: {{{expect}}}}}\n"
        for name, (args, expect) in calls.items()
    ]
    (folder / "cases.yaml").write_text("---\n".join(documents))
    return folder


def test_quoted_args_reach_toolproof_as_one_argument(tmp_path: Path) -> None:
    named_cases(tmp_path)
    given = {"suite": "cases.yaml", "args": '--jobs 2 -k "echo or add"', "json": "report.json"}
    status, out, _, outputs = run_step("run", given, tmp_path)
    assert (status, outputs) == (0, "exit-code=0\n"), out
    report = json.loads((tmp_path / "report.json").read_text())
    assert sorted(case["name"] for case in report["results"]) == ["add case", "echo case"]


def test_args_that_do_not_split_fail_with_a_clear_error(tmp_path: Path) -> None:
    named_cases(tmp_path)
    status, out, _, outputs = run_step("run", {"suite": "cases.yaml", "args": '-k "echo'}, tmp_path)
    assert (status, outputs) == (2, "")
    assert "the args input does not split into words: No closing quotation" in out


@pytest.mark.servers
def test_the_action_installs_toolproof_in_its_own_venv_and_runs_quoted_args(tmp_path: Path) -> None:
    """Every `run:` step of the action in order, as the runner runs them: the install step makes a fresh
    virtual environment from this checkout, the run step uses it."""
    named_cases(tmp_path)
    given = {"suite": "cases.yaml", "args": '-k "echo or add"', "junit": "junit.xml"}
    status, out, _, outputs = run_step("install", given, tmp_path, {"runner.temp": str(tmp_path)})
    assert status == 0, out
    python = outputs.strip().removeprefix("python=")
    assert python == str(tmp_path / "toolproof-venv" / "bin" / "python")
    context = {"steps.install.outputs.python": python}
    status, out, summary, outputs = run_step("run", given, tmp_path, context)
    assert (status, outputs) == (0, "exit-code=0\n"), out
    assert summary.startswith("### toolproof ci: 2/2 passed")
    junit = (tmp_path / "junit.xml").read_text()
    assert 'name="echo case"' in junit and 'name="add case"' in junit and "describe" not in junit


def test_the_example_workflow_can_be_copied_as_is() -> None:
    """It names the action as another repository does, sets Python up first, and gives only inputs."""
    workflow = YAML(typ="safe").load((ROOT / "examples" / "github" / "toolproof.yml").read_text())
    steps = workflow["jobs"]["toolproof"]["steps"]
    uses = [each.get("uses", "") for each in steps]
    ours = next(each for each in steps if each.get("uses", "").startswith("OWNER/toolproof@"))
    python = next(place for place, name in enumerate(uses) if name.startswith("actions/setup-python@"))
    assert python < uses.index(ours["uses"])
    inputs = action()["inputs"]
    assert set(ours["with"]) <= set(inputs)
    assert {name for name, spec in inputs.items() if spec.get("required")} <= set(ours["with"])
    assert "examples/" not in (ROOT / "examples" / "github" / "toolproof.yml").read_text()
