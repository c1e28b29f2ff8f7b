"""`toolproof matrix`: one suite, several real servers, a case x server table in every report."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from tests.integration.author.conftest import TINY, Toolproof, write

pytestmark = pytest.mark.servers


def test_case_by_server_table(tmp_path: Path, toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {
        "echo.yaml": "name: echo answers\nassert: {tool: echo, args: {text: hi, message: hi}, "
                     "expect: {contains: [hi]}}\n",
        "sum.yaml": "name: sum\nassert: {tool: get-sum, args: {a: 1, b: 2}, expect: {contains: ['3']}}\n",
    })
    junit, table = tmp_path / "junit.xml", tmp_path / "table.json"
    outcome = toolproof("matrix", str(suite), "--server", f"tiny={sys.executable} {TINY}",
                        "--server", "everything=mcp-server-everything", "--junit", str(junit),
                        "--output", str(table), report=True)
    assert outcome.status == 1
    assert outcome.verdicts() == {
        "echo answers [tiny]": "PASS", "sum [tiny]": "FAIL",
        "echo answers [everything]": "PASS", "sum [everything]": "PASS",
    }
    assert "| case         | tiny | everything |" in outcome.out
    assert "| sum          | FAIL | PASS       |" in outcome.out
    assert json.loads(table.read_text())["cases"][1] == {"name": "sum",
                                                         "results": {"tiny": "FAIL", "everything": "PASS"}}
    names = {case.get("name") for case in ElementTree.parse(junit).iter("testcase")}
    assert names == set(outcome.verdicts())


def test_server_specs_are_checked(tmp_path: Path, toolproof: Toolproof) -> None:
    suite = write(tmp_path / "suite", {"a.yaml": "name: a\nassert: {tool: echo}\n"})
    assert toolproof("matrix", str(suite), "--server", "no-name").status == 2
    assert toolproof("matrix", str(suite), "--server", "a=x", "--server", "a=y").status == 2
    assert toolproof("matrix", str(suite)).status == 2
