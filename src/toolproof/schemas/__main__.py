"""Regenerate the stored schemas: `python -m toolproof.schemas [REPO_SCHEMAS_DIR]`."""

from __future__ import annotations

import sys
from pathlib import Path

from toolproof.schemas import HERE, write

for folder in [HERE, *(Path(arg) for arg in sys.argv[1:])]:
    for path in write(folder):
        print(path)
