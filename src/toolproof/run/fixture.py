"""Fixture isolation: each case works on its own copy of the fixture directory."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def isolated_fixture(source: Path | None) -> Iterator[Path | None]:
    """Yield a fresh copy of `source` (same base name, inside a temporary directory), removed afterwards.

    Symlinks are copied as links, never followed; the original is never touched. With no source, yield None.
    """
    if source is None:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="toolproof-fixture-"))
    try:
        copy = root / source.resolve().name
        shutil.copytree(source, copy, symlinks=True)
        yield copy
    finally:
        shutil.rmtree(root, ignore_errors=True)
