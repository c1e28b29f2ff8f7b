"""`toolproof init` as a Python call: a commented starter suite, or a suite generated from a live server with
its snapshots recorded."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    from toolproof.api import Protocol
    from toolproof.api.authoring import SnapshotResult, Transport
    from toolproof.author.generate import Generated


@dataclass(frozen=True)
class InitResult:
    """What `init` wrote into `directory`: the starter's files (`written`), or, from a server, the generated
    suite and the snapshots taken of it."""

    directory: Path
    written: tuple[Path, ...] = ()
    generated: Generated | None = None
    snapshots: SnapshotResult | None = None

    @property
    def exit_code(self) -> int:
        """128 + N after a stop by signal N; 1 when a snapshot could not be recorded or differs from the one
        kept; else 0."""
        taken = self.snapshots
        if taken is None:
            return ExitCode.OK
        if taken.stopped_by is not None:
            return ExitCode.stopped_by(taken.stopped_by)
        return ExitCode.FAILED if taken.failed or taken.errors else ExitCode.OK


def init(
    directory: str | Path = "evals",
    *,
    server: str | None = None,
    transport: Transport | None = None,
    headers: Mapping[str, str] | None = None,
    fixture: str | Path | None = None,
    timeout: float = 30.0,
    protocol: Protocol = "2025-11-25",
    include_writes: bool = False,
    overwrite: bool = False,
    jobs: int = 2,
) -> InitResult:
    """Without `server`, write the commented starter suite, its fixture and example server into `directory`
    (existing files stop it unless `overwrite`). With `server`, `generate` one case per tool, resource and
    prompt into `directory`, then record their snapshots (an answer recorded before is kept, and compared,
    unless `overwrite`). Raises UsageError for a bad setting, a server that cannot be listed, a starter
    file that exists, or a file that cannot be written."""
    from toolproof.api.authoring import generate, snapshot

    folder = Path(directory)
    if server is None:
        from toolproof.author.starter import StarterExists, write_starter

        try:
            return InitResult(folder, tuple(write_starter(folder, overwrite=overwrite)))
        except (StarterExists, OSError) as error:
            raise UsageError(str(error)) from None
    done = generate(
        server,
        folder,
        transport=transport,
        headers=headers,
        fixture=fixture,
        timeout=timeout,
        protocol=protocol,
        include_writes=include_writes,
        overwrite=overwrite,
        jobs=jobs,
    )
    taken = snapshot(
        [folder],
        update=True,
        fixture=fixture,
        timeout=timeout,
        protocol=protocol,
        jobs=jobs,
        keep_recorded=not overwrite,
    )
    return InitResult(folder, generated=done.generated, snapshots=taken)
