"""The dialect registry tells documents by their shape and imports only the chosen dialect's loader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolproof.load import mcp_assert, mcplab, mibo, promptkit, scenario_file
from toolproof.load.dialects import DIALECTS

PROBE = """
import sys
from pathlib import Path
from toolproof.load.dialects import load_document
from toolproof.load.yaml_source import read_yaml
[document] = read_yaml(Path(sys.argv[1])).documents
print(len(load_document(document)))
loaded = sorted(name for name in sys.modules if name.startswith("toolproof.load."))
print(" ".join(loaded))
"""


def test_a_server_file_loads_no_agent_loader(tmp_path: Path) -> None:
    case = tmp_path / "case.yaml"
    case.write_text("name: t\nserver: {command: x}\nassert: {tool: t, expect: {not_error: true}}\n")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(case)], capture_output=True, text=True, check=True, timeout=60
    )
    count, modules = done.stdout.splitlines()
    assert count == "1"
    assert "toolproof.load.mcp_assert" in modules.split()
    for agent in ("promptkit", "mibo", "mcplab", "scenario_file"):
        assert f"toolproof.load.{agent}" not in modules.split()


def test_each_loader_reexports_the_registry_shape_test() -> None:
    by_module = {dialect.module: dialect.detect for dialect in DIALECTS}
    for loader in (mcp_assert, mcplab, mibo, promptkit, scenario_file):
        assert by_module[loader.__name__.rsplit(".", 1)[1]] is loader.detect
