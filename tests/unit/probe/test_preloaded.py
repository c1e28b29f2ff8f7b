"""What lint, audit and fuzz import while their servers start (`api.probes.PRELOADED`) leaves the MCP SDK
alone: the session imports it in a thread of its own meanwhile, and two threads importing the SDK's circular
package at once can deadlock."""

from __future__ import annotations

import subprocess
import sys

from toolproof.api.probes import PRELOADED

PROBE = """
import sys
for module in sys.argv[1:]:
    __import__(module)
print(sorted(name for name in sys.modules if name.split(".")[0] in ("mcp", "mcp_types")))
"""


def test_the_preloaded_modules_import_no_mcp_sdk() -> None:
    modules = [module for probe in PRELOADED.values() for module in probe]
    done = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
