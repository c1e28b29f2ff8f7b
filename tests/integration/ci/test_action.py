"""The GitHub Action's own script, run here as a runner runs it: inputs in the environment, bash with
`-eo pipefail`, a fake `$GITHUB_STEP_SUMMARY` and `$GITHUB_OUTPUT`; toolproof already installed."""

from __future__ import annotations

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
EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    return loaded


def step_env(step: dict[str, Any], given: dict[str, str]) -> dict[str, str]:
    """The step's `env:`, each `${{ inputs.NAME }}` replaced by the given value or the input's default."""
    inputs = action()["inputs"]
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of the action: {unknown}"

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        return given.get(name, str(inputs[name].get("default", "")))

    return {key: EXPRESSION.sub(value, str(text)) for key, text in step.get("env", {}).items()}


def run_step(step_id: str, given: dict[str, str], workdir: Path) -> tuple[int, str, str, str]:
    """Run one step's script; returns its exit status, output, the step summary and $GITHUB_OUTPUT."""
    step = next(step for step in action()["runs"]["steps"] if step.get("id") == step_id)
    assert step["shell"] == "bash"
    script = workdir / f"{step_id}.sh"
    script.write_text(step["run"])
    summary, outputs = workdir / "summary.md", workdir / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    env = {
        **os.environ,
        **step_env(step, {"python": sys.executable, **given}),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_ACTION_PATH": str(ROOT),
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env=env,
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=180,
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


def test_the_install_step_is_valid_bash_and_installs_this_checkout_by_default() -> None:
    install = action()["runs"]["steps"][0]
    assert '"${TOOLPROOF_PACKAGE:-$GITHUB_ACTION_PATH}"' in install["run"]
    assert subprocess.run(["bash", "-n"], input=install["run"], text=True, check=False).returncode == 0


def test_the_example_workflow_gives_the_action_only_its_inputs() -> None:
    workflow = YAML(typ="safe").load((ROOT / "examples" / "github" / "toolproof.yml").read_text())
    step = next(step for step in workflow["jobs"]["toolproof"]["steps"] if step.get("uses") == "./")
    inputs = action()["inputs"]
    assert set(step["with"]) <= set(inputs)
    assert {name for name, spec in inputs.items() if spec.get("required")} <= set(step["with"])
    assert all((ROOT / path).is_dir() for path in step["with"]["suite"].split())
