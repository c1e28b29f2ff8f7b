"""`toolproof lint`: the real servers against mcp-assert, tools files, the rules that call tools, --fix."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.probe.conftest import Probed, target

from toolproof.cli import main

SERVERS = ["mcp-server-everything", "mcp-server-memory", "mcp-server-time", "mcp-server-filesystem {tmp}"]


def findings(report: dict[str, object]) -> Counter[tuple[str, str]]:
    found: Counter[tuple[str, str]] = Counter()
    for result in report["results"]:  # type: ignore[attr-defined]
        name = result["name"]
        if result["status"] == "PASS" and not result["warnings"]:
            continue
        tool, code = name.split(": ")[0].rsplit(" ", 1)
        found[(tool, code)] += 1
    return found


@pytest.mark.servers
@pytest.mark.parity
@pytest.mark.parametrize("server", SERVERS)
def test_same_findings_as_mcp_assert(probe: Callable[..., Probed], server: str, tmp_path: Path) -> None:
    command = server.format(tmp=tmp_path)
    done = probe("lint", "--server", command)
    binary = shutil.which("mcp-assert")
    assert binary is not None
    theirs_run = subprocess.run(
        [binary, "lint", "--server", command, "--json"], capture_output=True, text=True
    )
    theirs = Counter((f["tool"], f["code"]) for f in json.loads(theirs_run.stdout)["findings"])
    ours = findings(done.report)
    # the one documented difference on these servers: mcp-assert repeats E105 per consumer field
    assert {key: count for key, count in ours.items()} == {
        key: (min(count, ours[key]) if key[1] == "E105" else count) for key, count in theirs.items()
    }
    assert done.status == (1 if any(code.startswith("E1") for _, code in ours) else 0)
    assert theirs_run.returncode == done.status


def test_tools_file_without_a_server(probe: Callable[..., Probed], tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps({"tools": [{"name": "t", "description": "", "inputSchema": {"type": "object"}}]})
    )
    done = probe("lint", "--tools-file", str(tools))
    assert done.status == 1
    assert done.verdicts() == {
        "t E101: Tool has no description: an agent cannot tell when to use it.": "FAIL"
    }


def test_tools_file_errors_exit_2(probe: Callable[..., Probed], tmp_path: Path) -> None:
    bad = tmp_path / "tools.json"
    bad.write_text("{\n  nope\n}")
    done = probe("lint", "--tools-file", str(bad))
    assert done.status == 2
    assert f"{bad}:2:3: not JSON" in done.err
    assert probe("lint").status == 2
    assert probe("lint", "--tools-file", str(bad), "--call-tools").status == 2


def test_calling_rules(probe: Callable[..., Probed]) -> None:
    server = target("--only", "ok,counter,big,wipe")
    assert probe("lint", "--server", server).status == 0
    done = probe(
        "lint", "--server", server, "--call-tools", "--detect-nondeterminism", "--skip-rules", "W116"
    )
    failing = {name.split(":")[0] for name, status in done.verdicts().items() if status == "FAIL"}
    warned = {r["name"].split(":")[0] for r in done.report["results"] if r["warnings"]}
    assert failing == {"big E301"}
    assert "counter W107" in warned
    assert done.status == 1
    assert probe("lint", "--server", server, "--call-tools", "--max-response-kb", "200").status == 0


def test_strict_threshold_and_skip(probe: Callable[..., Probed], tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    quiet = {"description": "Looks up the weather quickly and well.", "inputSchema": {"type": "object"}}
    tools.write_text(json.dumps([{"name": "a", **quiet}, {"name": "b", **quiet}]))  # W116 twice, W105
    lint = ("lint", "--tools-file", str(tools))
    assert probe(*lint).status == 0
    assert probe(*lint, "--strict").status == 1
    assert probe(*lint, "--threshold", "2").status == 1
    assert probe(*lint, "--threshold", "3").status == 0
    assert probe(*lint, "--strict", "--skip-rules", "W116,w105").status == 0


def test_fix_prints_a_json_patch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = tmp_path / "tools.json"
    tool = {"name": "t", "description": "", "inputSchema": {"type": "object", "properties": {"k": {}}}}
    tools.write_text(json.dumps([tool]))
    assert main(["lint", "--tools-file", str(tools), "--fix", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    paths = [operation["path"] for operation in document["patches"]["t"]]
    assert paths == [
        "/description",
        "/inputSchema/properties/k/type",
        "/inputSchema/properties/k/description",
    ]
    assert main(["lint", "--tools-file", str(tools), "--fix"]) == 1
    assert '"op": "add"' in capsys.readouterr().out


def test_ten_thousand_tools(probe: Callable[..., Probed]) -> None:
    done = probe("lint", "--server", target("--tools", "10000"), "-q")
    assert done.status == 0
    assert done.report["summary"]["warned"] == 10001  # W105 once per tool but the last, W112 once


def test_the_lint_threshold_is_a_finding_count_not_a_pass_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.json"
    quiet = {"description": "Looks up the weather quickly and well.", "inputSchema": {"type": "object"}}
    tools.write_text(json.dumps([{"name": "a", **quiet}]))  # warnings only
    assert main(["lint", "--tools-file", str(tools), "--threshold", "5"]) == 0
    assert "pass rate" not in capsys.readouterr().out  # ci's pass-rate gate is not lint's --threshold


def test_a_hundred_tools_of_one_shape_give_one_cycle(probe: Callable[..., Probed]) -> None:
    done = probe("lint", "--server", target("--alike", "100"), "-q")
    cycles = [name for name in done.verdicts() if " E107: " in name]
    assert cycles == [
        "op_0 E107: Circular dependency between op_0, op_1, op_10, op_11, op_12, op_13, op_14, op_15, op_16, "
        "op_17 and 90 more: agents may loop."
    ]
    assert done.status == 0


def test_skipped_calling_rules_call_nothing(probe: Callable[..., Probed]) -> None:
    server = target("--only", "counter")
    done = probe("lint", "--server", server, "--detect-nondeterminism", "--skip-rules", "W107,W116")
    assert done.verdicts() == {"counter: no findings": "PASS"}
    counted = probe("lint", "--server", server, "--detect-nondeterminism", "--skip-rules", "W116")
    assert "counter W107: 3 different outputs from 3 identical calls." in counted.verdicts()


def test_a_lint_that_calls_no_tool_loads_no_argument_generator(tmp_path: Path) -> None:
    """Without --call-tools or --detect-nondeterminism nothing is called: the argument generator and JSON
    Schema's validators (0.1 s of imports) are not loaded."""
    script = (
        "import sys\nfrom toolproof.cli import main\n"
        "main(['lint', '--server', sys.argv[1], '-q', '--json', sys.argv[2]])\n"
        "print(sorted({'jsonschema', 'toolproof.probe.arguments'} & set(sys.modules)))\n"
    )
    argv = [sys.executable, "-c", script, target("--only", "ok"), str(tmp_path / "report.json")]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
