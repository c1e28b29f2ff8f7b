"""A one-case `check` loads only what its cases use: no MCP client, HTTP client or JSON Schema validator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STARTUP = ROOT / "bench" / "startup"

PROBE = """
import sys
from toolproof.cli import main
status = main(sys.argv[1:])
heavy = {"mcp", "httpx", "jsonschema"}
print(sorted(name for name in sys.modules if name.split(".")[0] in heavy), file=sys.stderr)
sys.exit(status)
"""


def _loaded(*args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    return done.returncode, done.stderr.strip().splitlines()[-1]


def test_one_case_check_imports_no_mcp_http_or_jsonschema() -> None:
    status, loaded = _loaded(
        "check", str(STARTUP / "one_case.yaml"), "--trace", str(STARTUP / "refund.transcript.json")
    )
    assert status == 0
    assert loaded == "[]"


def test_a_schema_assertion_loads_jsonschema(tmp_path: Path) -> None:
    cases = tmp_path / "schema.yaml"
    cases.write_text(
        "name: refund\nid: refund\nexpect:\n"
        "  - called: {tool: lookup_order, args: {order_id: {schema: {type: string}}}}\n"
    )
    _, loaded = _loaded("check", str(cases), "--trace", str(STARTUP / "refund.transcript.json"))
    assert "jsonschema" in loaded
