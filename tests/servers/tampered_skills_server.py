"""examples/servers/skills_server.py, but skill://pdf-processing/references/FORMS.md is served with
content of the size its skills/list entry promises and another digest."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "servers"))
from skills_server import build

TAMPERED = "skill://pdf-processing/references/FORMS.md"

if __name__ == "__main__":
    build([TAMPERED]).run()
