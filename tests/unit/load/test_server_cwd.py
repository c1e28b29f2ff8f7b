"""A relative `cwd:` of an agent case's or the project's servers is relative to the file that names it."""

from __future__ import annotations

from pathlib import Path

from tests.unit.load.conftest import Write

from toolproof.load.agent_cases import load_agent_cases
from toolproof.load.project_file import load_project


def test_a_relative_cwd_of_an_agent_server_is_relative_to_its_file(write: Write, tmp_path: Path) -> None:
    path = write(
        "name: c\nservers:\n  a: {command: python, cwd: srv}\n  b: {command: python}\nturns:\n  - user: hi\n",
        "agents/case.yaml",
    )
    cases, errors = load_agent_cases([path])
    assert errors == [] and cases[0].servers is not None
    assert {name: server.cwd for name, server in cases[0].servers.items()} == {
        "a": str(tmp_path / "agents" / "srv"),
        "b": None,
    }
    project = write(
        "servers:\n  a: {command: python, cwd: ../srv}\n  b: {command: python}\n", "p/toolproof.yaml"
    )
    config, problems = load_project(project)
    assert problems == []
    assert {name: server.cwd for name, server in config.servers.items()} == {
        "a": str(tmp_path / "srv"),
        "b": str(tmp_path / "p"),
    }
