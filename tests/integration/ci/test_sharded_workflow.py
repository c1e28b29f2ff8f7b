"""The sharded workflow example (`examples/github/sharded.yml`) run locally, step by step: each matrix job
runs the action's script with its inputs, its upload and the merge job's download are copies, and the merge
job's action step merges the shards into one verdict, HTML page and step summary."""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from tests.integration.ci.test_action import run_step  # the action's script, run as a runner runs it

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / "examples" / "github" / "sharded.yml"
MATRIX = re.compile(r"\$\{\{\s*matrix\.(\w+)\s*\}\}")

pytestmark = pytest.mark.servers


def _expand(value: Any, matrix: dict[str, Any]) -> str:
    return MATRIX.sub(lambda match: str(matrix[match.group(1)]), str(value))


def _uses(step: dict[str, Any], action: str) -> bool:
    return str(step.get("uses", "")).split("@")[0] == action


def _run_job(job: dict[str, Any], matrix: dict[str, Any], workdir: Path, artifacts: Path) -> list[Any]:
    """Run a job's steps in `workdir`: the action's step for real, artifacts as copies; the action's
    results (status, output, step summary, $GITHUB_OUTPUT) in order."""
    ran: list[Any] = []
    for step in job["steps"]:
        given = {name: _expand(value, matrix) for name, value in step.get("with", {}).items()}
        if _uses(step, "OWNER/toolproof"):
            ran.append(run_step("run", given, workdir))
        elif _uses(step, "actions/upload-artifact"):
            source, target = workdir / given["path"], artifacts / given["name"]
            target.mkdir()
            if source.is_dir():
                shutil.copytree(source, target, dirs_exist_ok=True)
            else:
                shutil.copy(source, target)
        elif _uses(step, "actions/download-artifact"):
            assert given.get("merge-multiple") == "True", "the merge job reads every shard from one directory"
            into = workdir / given["path"]
            into.mkdir(parents=True)
            for artifact in sorted(artifacts.iterdir()):
                if fnmatch.fnmatch(artifact.name, given["pattern"]):
                    shutil.copytree(artifact, into, dirs_exist_ok=True)
        else:
            assert _uses(step, "actions/checkout") or _uses(step, "actions/setup-python"), step
    return ran


def _lay_out(checkout: Path) -> None:
    """A user's repository as the workflow expects it: the quickstart suite in tests/mcp, its servers where
    the suite's `args:` name them."""
    shutil.copytree(ROOT / "examples", checkout / "examples")
    shutil.copytree(ROOT / "examples" / "quickstart", checkout / "tests" / "mcp")


def test_the_sharded_workflow_runs_its_shards_then_merges_them(tmp_path: Path) -> None:
    workflow = YAML(typ="safe").load(WORKFLOW.read_text())
    shard_job, merge_job = workflow["jobs"]["shard"], workflow["jobs"]["merge"]
    assert merge_job["needs"] == "shard" and merge_job["if"] == "always()"
    shards = shard_job["strategy"]["matrix"]["shard"]
    checkout = tmp_path / "checkout"
    _lay_out(checkout)
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    for value in shards:
        [(status, out, _, outputs)] = _run_job(shard_job, {"shard": value}, checkout, artifacts)
        assert (status, outputs) == (0, "exit-code=0\n"), out
    merge_dir = tmp_path / "merge"
    _lay_out(merge_dir)
    [(status, out, summary, outputs)] = _run_job(merge_job, {}, merge_dir, artifacts)
    assert (status, outputs) == (0, "exit-code=0\n"), out
    assert "pass rate 100%, threshold 90%: met" in out
    assert summary.startswith("### toolproof ci: 13/13 passed")
    merged = json.loads((merge_dir / "reports" / "report.json").read_text())
    ids = [result["node_id"] for result in merged["results"]]
    assert len(ids) == 13 and ids[0] == "tests/mcp/01_tiny_tools.yaml::echo returns its text"
    assert ids == sorted(ids, key=lambda node: node.split("::")[0])  # files in suite order, as one run
    assert (merge_dir / "reports" / "report.html").read_text().count("echo returns its text") >= 1
    assert sorted(path.name for path in (artifacts / "toolproof-reports").iterdir()) == [
        "badge.json",
        "junit.xml",
        "report.html",
        "report.json",
    ]
