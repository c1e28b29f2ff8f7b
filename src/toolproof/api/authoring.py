"""The authoring commands as Python calls: `snapshot`, `coverage`, `matrix`, `generate`.

Each takes the suite (or output) paths and the server settings `run_suite` takes; `server` replaces the
cases' servers: a command line (stdio, split as a shell would but run without one) or a URL (`transport`
http, the default for a URL, or sse, with `headers`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolproof.api.reports import Reports
from toolproof.api.results import SuiteResult
from toolproof.exit_codes import ExitCode, UsageError

if TYPE_CHECKING:
    import signal

    from toolproof.api import Protocol
    from toolproof.author.coverage import Coverage
    from toolproof.author.generate import Generated
    from toolproof.author.listing import Listing
    from toolproof.author.matrix import Grid
    from toolproof.load import LoadError
    from toolproof.model.events import Sink
    from toolproof.model.server_case import Case
    from toolproof.model.server_config import ServerConfig
    from toolproof.sources.options import ServerOptions

Transport = Literal["stdio", "sse", "http"]


def server_config(server: str, transport: Transport | None = None, headers: Mapping[str, str] | None = None
                  ) -> ServerConfig:
    """The server `server` names: a command line (stdio) or a URL (Streamable HTTP unless `transport` says
    otherwise); raises UsageError."""
    from toolproof.model.server_config import ServerConfig
    from toolproof.model.server_config import Transport as Kind

    is_url = server.startswith(("http://", "https://"))
    kind = Kind(transport or ("http" if is_url else "stdio"))
    if kind is Kind.STDIO:
        from toolproof.api.probes import command_words

        words = command_words(server)
        return ServerConfig(command=words[0], args=words[1:])
    if not is_url:
        raise UsageError(f"--server: a {transport} server is a http:// or https:// URL, got {server!r}")
    return ServerConfig(transport=kind, url=server, headers=dict(headers or {}))


def _given(server: str | None, transport: Transport | None, headers: Mapping[str, str] | None
           ) -> ServerConfig | None:
    return server_config(server, transport, headers) if server else None


def _options(fixture: str | Path | None, timeout: float, subscription_wait: float, protocol: Protocol
             ) -> ServerOptions:
    from toolproof.api import server_options

    return server_options(fixture=fixture, timeout=timeout, subscription_wait=subscription_wait,
                          protocol=protocol)


def load_items(paths: Sequence[str | Path]) -> list[Case | LoadError]:
    """Every case and load error of the files the paths name, in order; UsageError for no path or a missing
    one."""
    from toolproof.load import SuiteNotFound, load_paths

    if not paths:
        raise UsageError("give at least one suite file or directory (PATH or --suite)")
    try:
        return load_paths([Path(path) for path in paths])
    except SuiteNotFound as error:
        raise UsageError(str(error)) from None


def with_server(items: Sequence[Case | LoadError], server: ServerConfig | None) -> list[Case | LoadError]:
    """The items with every case pointed at `server` (its env, cwd and client capabilities kept)."""
    from toolproof.model.server_case import Case

    if server is None:
        return list(items)
    fields = ("command", "args", "transport", "url", "headers")
    replaced = {name: getattr(server, name) for name in fields}
    return [
        item.model_copy(update={"server": item.server.model_copy(update=replaced)})
        if isinstance(item, Case)
        else item
        for item in items
    ]


def _cases(items: Sequence[Case | LoadError]) -> list[Case]:
    from toolproof.model.server_case import Case

    return [item for item in items if isinstance(item, Case)]


@dataclass(frozen=True)
class SnapshotResult(SuiteResult):
    """The verdicts of `snapshot`: the snapshot file, and with `update` how many snapshots it holds, how many
    are new and how many changed."""

    file: Path = Path()
    recorded: int = 0
    new: int = 0
    changed: int = 0


def snapshot(
    paths: Sequence[str | Path],
    *,
    update: bool = False,
    output: str | Path | None = None,
    server: str | None = None,
    transport: Transport | None = None,
    headers: Mapping[str, str] | None = None,
    fixture: str | Path | None = None,
    timeout: float = 30.0,
    subscription_wait: float = 5.0,
    protocol: Protocol = "2025-11-25",
    jobs: int = 2,
    reports: Reports | None = None,
    sink: Sink | None = None,
    keep_recorded: bool = False,
) -> SnapshotResult:
    """Compare every case's answer (and each server's tools/list) with the snapshot file `output` (default:
    `.snapshots.json` in the first suite directory), masking volatile values; with `update`, record the
    answers into it instead (with `keep_recorded`, only those not recorded yet: the others are compared). An
    answer that differs or has no snapshot fails; a case that could not run is an ERROR. A stop signal ends
    it (128 + N, nothing written). Raises UsageError for a bad path, setting or snapshot file, or a file
    that cannot be written."""
    from toolproof.author.snapshot import run_snapshots
    from toolproof.author.snapshot_file import (
        SnapshotFileError,
        read_snapshots,
        render_snapshots,
        snapshot_path,
    )
    from toolproof.core.writing import write_atomic
    from toolproof.run.interrupt import Interrupted, run_until_signal
    from toolproof.run.secrets import run_secrets

    items = with_server(load_items(paths), _given(server, transport, headers))
    options = _options(fixture, timeout, subscription_wait, protocol)
    first = Path(paths[0])
    file = Path(output) if output is not None else snapshot_path(first if first.is_dir() else first.parent)
    try:
        saved = read_snapshots(file)
    except SnapshotFileError as error:
        raise UsageError(str(error)) from None
    secrets = run_secrets([case.server for case in _cases(items)], options.environ)
    events = (reports or Reports()).sink(secrets, sink)
    outcome = run_until_signal(
        lambda: run_snapshots(
            items, saved, file, options, update=update, jobs=jobs, sink=events, keep_recorded=keep_recorded
        )
    )
    if isinstance(outcome, Interrupted):
        return SnapshotResult((), stopped_by=outcome.signal, file=file)
    if update:
        try:
            write_atomic(file, render_snapshots(outcome.snapshots))
        except OSError as error:
            raise UsageError(str(error)) from None
    recorded = len(outcome.snapshots.snapshots or [])
    return SnapshotResult(
        tuple(outcome.results), file=file, recorded=recorded, new=outcome.new, changed=outcome.changed
    )


@dataclass(frozen=True)
class CoverageResult:
    """What `coverage` measured (None when a stop signal came first), the documents that did not load, and
    the lowest tool coverage that passes."""

    measured: Coverage | None
    errors: tuple[LoadError, ...] = ()
    minimum: int | None = None
    stopped_by: signal.Signals | None = None

    @property
    def below_minimum(self) -> bool:
        measured, minimum = self.measured, self.minimum
        return measured is not None and minimum is not None and measured.percentage < minimum

    @property
    def exit_code(self) -> int:
        """128 + N after a stop by signal N, 1 when tool coverage is below the minimum, 2 when a document did
        not load, else 0."""
        if self.stopped_by is not None:
            return ExitCode.stopped_by(self.stopped_by)
        if self.below_minimum:
            return ExitCode.FAILED
        return ExitCode.USAGE if self.errors else ExitCode.OK

    def document(self) -> str:
        """The coverage as JSON text (mcp-assert's --coverage-json)."""
        from toolproof.author.coverage import coverage_json

        assert self.measured is not None
        return json.dumps(coverage_json(self.measured), indent=2, ensure_ascii=False) + "\n"


def coverage(
    paths: Sequence[str | Path],
    *,
    server: str | None = None,
    transport: Transport | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 15.0,
    protocol: Protocol = "2025-11-25",
    minimum: int | None = None,
    outputs: Sequence[str | Path] = (),
) -> CoverageResult:
    """List the server's tools, resources and prompts (`server`, else the servers the cases name) and
    measure which the suite's cases exercise; write the coverage JSON to each of `outputs`. Raises
    UsageError for a bad path or setting, no server, a server that cannot be listed, or a file that cannot
    be written."""
    from toolproof.author.coverage import measure
    from toolproof.core.sanitize import clean
    from toolproof.core.writing import write_atomic
    from toolproof.load import LoadError
    from toolproof.mcp.errors import RequestFailed
    from toolproof.run.interrupt import Interrupted, run_until_signal

    items = load_items(paths)
    options = _options(None, timeout, 5.0, protocol)
    cases = _cases(items)
    servers = _servers(cases, _given(server, transport, headers))
    errors = tuple(item for item in items if isinstance(item, LoadError))
    try:
        listing = run_until_signal(lambda: _listing(servers, options))
    except RequestFailed as error:
        raise UsageError(clean(error.failure.message)) from None
    if isinstance(listing, Interrupted):  # no coverage without the whole listing: nothing to write
        return CoverageResult(None, errors, minimum, listing.signal)
    result = CoverageResult(measure(cases, listing), errors, minimum)
    for target in outputs:
        try:
            write_atomic(Path(target), result.document())
        except OSError as error:
            raise UsageError(str(error)) from None
    return result


async def _listing(servers: list[ServerConfig], options: ServerOptions) -> Listing:
    """The union of what the servers list (one server, in the usual case)."""
    from toolproof.author.listing import Listing, list_server

    listings = [await list_server(server, options) for server in servers]
    union = Listing()
    for listing in listings:
        for kind in ("tools", "resources", "templates", "prompts"):
            known = {json.dumps(item, sort_keys=True) for item in getattr(union, kind)}
            getattr(union, kind).extend(
                item for item in getattr(listing, kind) if json.dumps(item, sort_keys=True) not in known
            )
    return union


def _servers(cases: list[Case], given: ServerConfig | None) -> list[ServerConfig]:
    if given is not None:
        return [given]
    from toolproof.model.server_case import TrajectoryBlock

    servers: list[ServerConfig] = []
    for case in cases:
        if not isinstance(case.block, TrajectoryBlock) and case.server not in servers:
            servers.append(case.server)
    if not servers:
        raise UsageError("no case names a server; give one with --server")
    return servers


@dataclass(frozen=True)
class MatrixResult(SuiteResult):
    """The verdicts of `matrix` (each case once per server, as `case [NAME]`) and their case x server
    table."""

    table: Grid | None = None


def matrix(
    paths: Sequence[str | Path],
    servers: Mapping[str, str],
    *,
    transport: Transport | None = None,
    headers: Mapping[str, str] | None = None,
    fixture: str | Path | None = None,
    timeout: float = 30.0,
    subscription_wait: float = 5.0,
    protocol: Protocol = "2025-11-25",
    jobs: int = 2,
    output: str | Path | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
) -> MatrixResult:
    """Run every case once against each of `servers` (by name: a command line, or a URL) and tabulate the
    verdicts, one row per case and one column per server; write the table to `output` (as JSON when it ends
    in .json, else as Markdown). A stop signal ends it: the table holds what finished, with 128 + N. Raises
    UsageError for no server, a bad path or setting, or a file that cannot be written."""
    from toolproof.author.matrix import grid, matrix_items
    from toolproof.core.writing import write_atomic
    from toolproof.run.interrupt import Interrupted, run_until_signal
    from toolproof.run.secrets import run_secrets
    from toolproof.run.server_suite import run_server_suite

    if not servers:
        raise UsageError("give at least one --server NAME=CMD")
    named = [(name, server_config(command, transport, headers)) for name, command in servers.items()]
    options = _options(fixture, timeout, subscription_wait, protocol)
    items = load_items(paths)
    expanded = matrix_items(items, named)
    finished = _Finished()  # what ran, for the table when a stop signal ends the run early
    secrets = run_secrets([config for _, config in named], options.environ)
    events = (reports or Reports()).sink(secrets, _Both(finished, sink))
    outcome = run_until_signal(lambda: run_server_suite(expanded, options, jobs=jobs, sink=events))
    results = finished.results if isinstance(outcome, Interrupted) else outcome
    table = grid(_cases(items), list(servers), results)
    if output is not None:
        text = (
            json.dumps(table.json(), indent=2) + "\n"
            if Path(output).suffix == ".json"
            else "\n".join(table.lines()) + "\n"
        )
        try:
            write_atomic(Path(output), text)
        except OSError as error:
            raise UsageError(str(error)) from None
    if isinstance(outcome, Interrupted):
        return MatrixResult(tuple(results), stopped_by=outcome.signal, table=table)
    return MatrixResult(tuple(results), table=table)


class _Finished:
    """A sink that keeps the result of every case that finished."""

    def __init__(self) -> None:
        from toolproof.model.result import CaseResult

        self.results: list[CaseResult] = []

    def handle(self, event: Any) -> None:
        from toolproof.model.events import CaseFinished

        if isinstance(event, CaseFinished):
            self.results.append(event.result)


@dataclass
class _Both:
    first: _Finished
    second: Sink | None = None

    def handle(self, event: Any) -> None:
        self.first.handle(event)
        if self.second is not None:
            self.second.handle(event)


@dataclass(frozen=True)
class GenerateResult:
    """What `generate` wrote (`generated`: the files written and left alone, the drafts skipped, the
    listing); its exit status is 0: every problem raises UsageError."""

    generated: Generated
    exit_code: int = field(default=ExitCode.OK)


def generate(
    server: str,
    output: str | Path,
    *,
    transport: Transport | None = None,
    headers: Mapping[str, str] | None = None,
    fixture: str | Path | None = None,
    timeout: float = 30.0,
    protocol: Protocol = "2025-11-25",
    include_writes: bool = False,
    overwrite: bool = False,
    jobs: int = 2,
) -> GenerateResult:
    """Ask `server` for its tools, resources and prompts and write one case file per item into `output`:
    arguments from the input schema, expectations from two live answers; tools annotated as writing are
    written with `skip: true` unless `include_writes`; existing files are kept unless `overwrite`. Raises
    UsageError for a bad setting, a server that cannot be listed or a file that cannot be written."""
    import anyio

    from toolproof.author.generate import generate as write_suite
    from toolproof.core.sanitize import clean
    from toolproof.mcp.errors import RequestFailed

    config = server_config(server, transport, headers)
    options = _options(fixture, timeout, 5.0, protocol)
    try:
        done = anyio.run(lambda: write_suite(config, Path(output), options, include_writes=include_writes,
                                             overwrite=overwrite, jobs=jobs))
    except RequestFailed as error:
        raise UsageError(clean(error.failure.message)) from None
    except OSError as error:
        raise UsageError(str(error)) from None
    return GenerateResult(done)
