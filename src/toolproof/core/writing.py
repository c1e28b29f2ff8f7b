"""Write files and warnings without ever failing the run."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import IO, TextIO

from toolproof.core.sanitize import clean


def warn(message: str, stderr: TextIO | None = None) -> None:
    """Print `toolproof: <message>` on stderr; a stderr that cannot be written is ignored."""
    stream = sys.stderr if stderr is None else stderr
    try:
        stream.write(f"toolproof: {clean(message)}\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def silence(stream: IO[str]) -> None:
    """Point `stream`'s descriptor at /dev/null once its reader has gone (a closed pipe), so that what is
    still buffered for it, and anything written later, is dropped quietly instead of failing again at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)


def umask() -> int:
    """The process's file mode creation mask."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # where /proc does not say: read it by setting it, and set it back at once
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` as UTF-8 to a temporary file beside `path`, then rename it over `path`, creating parent
    directories: a reader never sees half a file. The file gets the mode any new file gets (0666 less the
    umask), as a plain write gives it. Raises OSError."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        os.fchmod(handle, 0o666 & ~umask())  # mkstemp's 0600 is for a temporary file, not a report
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_best_effort(
    path: str | os.PathLike[str], text: str, *, atomic: bool = False, stderr: TextIO | None = None
) -> bool:
    """Write `text` as UTF-8 to `path` (with `atomic`, as `write_atomic` does), creating parent directories;
    on failure warn once and return False."""
    target = Path(path)
    try:
        if atomic:
            write_atomic(target, text)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    except OSError as exc:
        warn(f"could not write {target}: {exc.strerror or exc}", stderr)
        return False
    return True


def ignored_directory(directory: Path) -> None:
    """Create `directory` (a state directory such as `.toolproof/`) and a `.gitignore` in it that makes git
    ignore all of it. Raises OSError."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# created by toolproof\n*\n", encoding="utf-8")
