"""toolproof installed as the README says ("Install toolproof in your project"): the wheel built from this
checkout in a fresh virtual environment of its own, testing a server on mcp 1.x (FastMCP) that lives in a
second one, through `command:` pointing at that server's interpreter. Neither environment changes the
other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.servers

SERVER = '''\
from mcp.server.fastmcp import FastMCP

server = FastMCP("legacy")


@server.tool()
def greet(name: str) -> str:
    """Say hello to someone by name."""
    return f"Hello, {name}!"


if __name__ == "__main__":
    server.run()
'''

SUITE = """\
name: greet says hello
server: {command: server-env/bin/python, args: [server.py], cwd: ../..}
assert:
  tool: greet
  args: {name: Ada}
  expect: {equals: "Hello, Ada!"}
---
name: greet is listed
server: {command: server-env/bin/python, args: [server.py], cwd: ../..}
assert_tools:
  expect:
    tools:
      greet: {input: [name], required: [name]}
"""


def sh(*command: str | Path, cwd: Path | None = None) -> str:
    """Run a command (no shell); its stdout, or a failure showing both streams."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"{command}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def mcp_version(python: Path) -> str:
    return sh(python, "-c", "import importlib.metadata as m; print(m.version('mcp'))").strip()


def test_a_server_on_mcp_1_in_its_own_venv_is_tested_by_toolproof_from_another(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "tests" / "mcp").mkdir(parents=True)
    (project / "server.py").write_text(SERVER)
    (project / "tests" / "mcp" / "greet.yaml").write_text(SUITE)
    server_env, tool_env = project / "server-env", tmp_path / "toolproof-env"

    sh(sys.executable, "-m", "venv", server_env)
    sh(server_env / "bin" / "python", "-m", "pip", "install", "--quiet", "mcp<2")
    legacy = mcp_version(server_env / "bin" / "python")
    assert legacy.startswith("1.")

    sh(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp_path / "wheel", ROOT)
    wheel = next((tmp_path / "wheel").glob("toolproof-*.whl"))
    sh(sys.executable, "-m", "venv", tool_env)
    sh(tool_env / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)

    report = tmp_path / "report.json"
    out = sh(tool_env / "bin" / "toolproof", "run", "tests/mcp", "--json", report, cwd=project)
    assert "2 passed, 0 failed" in out
    statuses = {result["name"]: result["status"] for result in json.loads(report.read_text())["results"]}
    assert statuses == {"greet says hello": "PASS", "greet is listed": "PASS"}
    assert sh(
        tool_env / "bin" / "toolproof", "run", project / "tests" / "mcp", "-q", cwd=tmp_path
    )  # elsewhere

    assert mcp_version(server_env / "bin" / "python") == legacy  # the server's environment is untouched
    assert mcp_version(tool_env / "bin" / "python").startswith("2.")
    without_agents = textwrap.dedent(
        """\
        import importlib.util
        from toolproof.run.providers import ProviderConfig, ProviderConfigError, make_provider
        print(importlib.util.find_spec("openai"), importlib.util.find_spec("anthropic"))
        try:
            make_provider(ProviderConfig(kind="openai", model="m"), {"OPENAI_API_KEY": "k"})
        except ProviderConfigError as error:
            print(error)
        """
    )
    lines = sh(tool_env / "bin" / "python", "-c", without_agents).splitlines()
    assert lines[0] == "None None"  # the agents extra was not asked for
    assert lines[1].endswith("pip install 'toolproof[agents]'")
