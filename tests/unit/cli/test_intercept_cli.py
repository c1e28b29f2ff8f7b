"""`toolproof intercept` on the command line: registered, documented, and light to ask for help."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
from toolproof.cli import main
try:
    main(["intercept", "--help"])
except SystemExit:
    pass
print("HEAVY:" + ",".join(sorted(name for name in ("mcp", "anyio", "pydantic") if name in sys.modules)))
"""


def test_help_names_every_option_and_imports_nothing_heavy() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    options = ("--server CMD", "--trajectory FILE", "--timeout DURATION", "--audit-log OUT", "--json FILE")
    assert all(option in done.stdout for option in options)
    assert "'-' for stdout" not in done.stdout  # stdout is the protocol channel here
    assert done.stdout.strip().splitlines()[-1] == "HEAVY:"


def test_the_server_and_the_trajectory_are_required() -> None:
    done = subprocess.run([sys.executable, "-m", "toolproof", "intercept"], capture_output=True, text=True)
    assert done.returncode == 2
    assert "--server" in done.stderr and "--trajectory" in done.stderr
    assert done.stdout == ""
