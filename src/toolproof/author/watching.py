"""Which cases a file change affects, and the file-watching loop (watchfiles: the operating system's change
notifications, debounced; no polling of our own)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from watchfiles import DefaultFilter, awatch

from toolproof.load.dialects import suffixes
from toolproof.load.walk import SKIPPED_DIRECTORIES

WAKE_MS = 1000  # how long the watcher thread waits before checking whether it was stopped


class EditorFilter(DefaultFilter):
    """watchfiles' default filter (version control and cache directories, `.swp`, `x~`, `.#x`) and the
    editor files it lets through: vim's write test `4913`, emacs's autosave `#x#`, kate's `.kate-swp`, gedit's
    `.goutputstream-*`. A change to one of them is no change to the suite."""

    ignore_entity_patterns = (
        *DefaultFilter.ignore_entity_patterns,
        r"^4913$",
        r"^#.*#$",
        r"\.kate-swp$",
        r"^\.goutputstream-",
    )


@dataclass(frozen=True)
class Watched:
    """What to watch: the suite paths (files and directories, walked recursively), the fixture directory, the
    extra paths given with --also, and files to ignore (the run's own reports)."""

    suites: Sequence[Path]
    fixture: Path | None = None
    also: Sequence[Path] = ()
    ignored: frozenset[Path] = field(default_factory=frozenset)

    def roots(self) -> list[Path]:
        """The existing paths to watch, each once."""
        paths = [*self.suites, *([self.fixture] if self.fixture else []), *self.also]
        return list(dict.fromkeys(path.resolve() for path in paths if path.exists()))


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _is_suite_file(path: Path, root: Path) -> bool:
    """A file discovery would read from `root`: a suite suffix, no hidden or skipped directory on the way."""
    if path.suffix.lower() not in suffixes("server") or not _under(path, root):
        return False
    inside = path.relative_to(root).parts if root.is_dir() else ()
    return not any(part.startswith(".") or part in SKIPPED_DIRECTORIES for part in inside)


def affected(changed: Iterable[Path], watched: Watched) -> list[Path] | None:
    """The suite files to rerun for these changes; None when every case must rerun (the fixture or an --also
    path changed). Files that no longer exist are left out; an empty list means nothing to rerun."""
    everything = [path.resolve() for path in [*([watched.fixture] if watched.fixture else []), *watched.also]]
    suites = [path.resolve() for path in watched.suites]
    files: list[Path] = []
    for path in (path.resolve() for path in changed):
        if path in watched.ignored:
            continue
        if any(_under(path, root) for root in everything):
            return None
        if path.is_file() and any(_is_suite_file(path, root) for root in suites):
            files.append(path)
    return sorted(set(files))


async def watch(
    watched: Watched,
    rerun: Callable[[list[Path] | None, list[Path]], Awaitable[None]],
    *,
    debounce_ms: int,
) -> None:
    """Call `rerun(files or None for all, changed paths)` after each burst of changes that affects cases;
    returns only when cancelled."""
    changes_of = awatch(
        *watched.roots(), watch_filter=EditorFilter(), debounce=debounce_ms, rust_timeout=WAKE_MS
    )
    async for changes in changes_of:
        paths = sorted({Path(raw) for _, raw in changes})
        files = affected(paths, watched)
        if files is None or files:
            await rerun(files, paths)
