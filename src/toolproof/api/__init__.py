"""toolproof's Python API: run server suites, check recorded agent runs, evaluate agents live.

Each call returns a `SuiteResult` (the verdicts and the exit status the command line would give) and
reports nothing unless asked to (`reports=Reports(...)`, or any event `sink`). A problem that stops a call
before anything runs (a missing path, a bad setting) raises `UsageError`. The command line is a thin layer
over these calls. The calls live here; what they are given and give back lives beside them (`reports`:
`Reports`; `results`: `SuiteResult`, `Collection`), and every name is importable from here.
"""

from __future__ import annotations

import importlib
import os
import shlex
import sys
import time
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from toolproof.api.reports import Reports
from toolproof.api.reports import report_results as report_results
from toolproof.api.results import Collection, SuiteResult
from toolproof.api.results import exit_code_of as exit_code_of
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:  # the other commands' calls load on first use (`__getattr__`): one command imports its own
    from toolproof.api.audit import audit as audit
    from toolproof.api.authoring import coverage as coverage
    from toolproof.api.authoring import generate as generate
    from toolproof.api.authoring import matrix as matrix
    from toolproof.api.authoring import snapshot as snapshot
    from toolproof.api.conformance import conformance as conformance
    from toolproof.api.fuzz import fuzz as fuzz
    from toolproof.api.init import init as init
    from toolproof.api.intercept import intercept as intercept
    from toolproof.api.lint import lint as lint
    from toolproof.api.load_measure import load_server as load_server
    from toolproof.api.probes import server_spec as server_spec
    from toolproof.api.scan import scan as scan
    from toolproof.api.schema import schema as schema

if TYPE_CHECKING:
    from toolproof.load.collect import Collected, Selection
    from toolproof.load.shards import Shard, Sharded
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.model.scenario import AgentCase
    from toolproof.model.server_case import Case
    from toolproof.model.transcript import Platform
    from toolproof.probe.load import LoadPlan, LoadReport
    from toolproof.report.gate import Gate
    from toolproof.report.resume import Resume
    from toolproof.run.interrupt import Interrupted
    from toolproof.sources.options import ServerOptions

__all__ = [
    "Collection",
    "Reports",
    "SuiteResult",
    "audit",
    "check_traces",
    "collect_suite",
    "conformance",
    "coverage",
    "evaluate",
    "fuzz",
    "generate",
    "init",
    "intercept",
    "lint",
    "load_server",
    "matrix",
    "measure_load",
    "merge_reports",
    "run_suite",
    "scan",
    "schema",
    "server_spec",
    "snapshot",
]

CALLS = {
    "audit": "audit",
    "conformance": "conformance",
    "coverage": "authoring",
    "fuzz": "fuzz",
    "generate": "authoring",
    "init": "init",
    "intercept": "intercept",
    "lint": "lint",
    "load_server": "load_measure",
    "matrix": "authoring",
    "scan": "scan",
    "schema": "schema",
    "server_spec": "probes",
    "snapshot": "authoring",
}
"""The calls defined in a module of `api/` (call -> module), imported the first time one is asked for."""


def __getattr__(name: str) -> object:
    if name not in CALLS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    call = getattr(importlib.import_module(f"{__name__}.{CALLS[name]}"), name)
    globals()[name] = call
    return call


def __dir__() -> list[str]:
    return sorted({*globals(), *CALLS})


class _Api(types.ModuleType):
    """This package: where a module is named like its call (`api/lint.py`, `lint`), importing the module
    binds the call to the name, as when every call was imported up front."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}" and name in CALLS:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Api

Protocol = Literal["2025-11-25", "2026-07-28", "auto"]
_NAMED = 3  # cases named in a warning before "and N more"


def path_list(paths: str | os.PathLike[str] | Sequence[str | Path]) -> list[Path]:
    """`paths` as a list; a single path (`"suite.yaml"`) is one path, never a sequence of characters."""
    if isinstance(paths, (str, os.PathLike)):
        return [Path(paths)]
    return [Path(each) for each in paths]


def collect_suite(
    paths: Sequence[str | Path],
    *,
    select: str | None = None,
    shard: str | None = None,
    resume: str | Path | None = None,
    last_failed: bool = False,
    failed_first: bool = False,
    maxfail: int = 0,
) -> Collection:
    """Load the suite files `paths` name (directories are walked; a YAML file in them that holds no test
    is skipped with a note) and keep the cases `select` (a `-k` pattern) matches, those that failed last
    time only (`last_failed`) or first (`failed_first`), and of those the ones of `shard` (`K/N`, see
    `load/shards.py`), less those the JSON report `resume` of a stopped run holds results of
    (`report/resume.py`): the stages of `load/collect.py`; `maxfail` goes with the collection to
    `run_collection`. Raises UsageError for a missing path, a malformed pattern, shard or report, or a
    pattern that selects none of the cases found."""
    if not paths:
        raise UsageError("give at least one suite file or directory")
    stopped = read_resume(resume)
    chosen = selection(
        select=select,
        last_failed=last_failed,
        failed_first=failed_first,
        shard=shard,
        resume=stopped,
        maxfail=maxfail,
    )
    collected = _collect(path_list(paths), chosen)
    resumed = None if stopped is None else replace(stopped, order=collected.order or ())
    return Collection(collected.items, collected.sharded, resumed, chosen.maxfail)


def selection(
    *,
    select: str | None = None,
    last_failed: bool = False,
    failed_first: bool = False,
    shard: str | None = None,
    resume: Resume | None = None,
    maxfail: int = 0,
) -> Selection:
    """The selection stages the options of every command that runs cases ask for (-k, --lf, --ff,
    --shard, --resume, --maxfail), with what failed last time read from `.toolproof/`; raises UsageError for
    a malformed shard."""
    from toolproof.load.collect import Selection

    failed = None
    if last_failed or failed_first:
        from toolproof.report.history import last_failed as recorded

        failed = frozenset(recorded())
    finished = resume.finished if resume is not None else None
    return Selection(select, failed, last_failed, parse_shard(shard), finished, maxfail)


@overload
def _collect(
    paths: Sequence[Path], chosen: Selection, kind: Literal["server"] = ..., leave_out: frozenset[Path] = ...
) -> Collected[Case]: ...


@overload
def _collect(
    paths: Sequence[Path],
    chosen: Selection,
    kind: Literal["agent"],
    leave_out: frozenset[Path] = ...,
    skip_found: Callable[[Path], str | None] | None = ...,
) -> Collected[AgentCase]: ...


def _collect(
    paths: Sequence[Path],
    chosen: Selection,
    kind: Literal["server", "agent"] = "server",
    leave_out: frozenset[Path] = frozenset(),
    skip_found: Callable[[Path], str | None] | None = None,
) -> Collected[Case] | Collected[AgentCase]:
    """`load.collect` for every command, its problems as UsageErrors."""
    from toolproof import load

    try:
        if kind == "server":
            return load.collect(paths, chosen, leave_out=leave_out)
        return load.collect(paths, chosen, kind="agent", leave_out=leave_out, skip_found=skip_found)
    except load.SuiteNotFound as missing:
        raise UsageError(f"{missing.path}: no such file or directory") from None
    except load.SelectionError as problem:
        raise UsageError(str(problem)) from None


def read_resume(path: str | Path | None) -> Resume | None:
    """The stopped run's report `--resume` names (None without one); raises UsageError naming it."""
    if path is None:
        return None
    from toolproof.report.html import ReportFormatError
    from toolproof.report.resume import Resume

    try:
        return Resume.read(Path(path))
    except ReportFormatError as problem:
        raise UsageError(f"--resume {problem}") from None


def parse_shard(text: str | None) -> Shard | None:
    """`--shard K/N` as a `Shard` (None without one); raises UsageError for a malformed value."""
    from toolproof.load import SelectionError
    from toolproof.load.shards import Shard

    try:
        return None if text is None else Shard.parse(text)
    except SelectionError as problem:
        raise UsageError(str(problem)) from None


def measure_load(plan: LoadPlan, *, handle_signals: bool = False) -> LoadReport:
    """Load a server as `plan` says (`toolproof load`) and report what was measured. With `handle_signals`,
    SIGINT, SIGTERM and SIGHUP stop it early (only from the main thread): the report then says so and holds
    what was measured until then. Raises `probe.load.LoadError` when the server cannot be started or
    reached."""
    import anyio

    from toolproof.probe.load import LoadError, Tally, run_load
    from toolproof.run.interrupt import Interrupted, run_until_signal

    tally = Tally.of(plan)
    unreachable: list[LoadError] = []

    async def main() -> None:
        try:
            await run_load(plan, tally)
        except LoadError as error:  # raised below, never wrapped in the signal guard's exception group
            unreachable.append(error)

    outcome = run_until_signal(main) if handle_signals else anyio.run(main)
    if unreachable:
        raise unreachable[0]
    return tally.report(plan, outcome.signal.name if isinstance(outcome, Interrupted) else None)


def merge_reports(
    paths: Sequence[str | Path], *, reports: Reports | None = None, sink: Sink | None = None
) -> SuiteResult:
    """The run the saved JSON reports `paths` make together (the shards of one `--shard K/N` split, in any
    order, or reports without a shard, joined), sent to `reports` as a run of its own. Its exit status is
    0 unless `reports` has a gate (`Reports.gate`: a threshold or a baseline), which decides it as for a
    run. Raises UsageError naming the report that cannot be read, or the shard that is missing or
    repeated."""
    from toolproof.report.html import ReportFormatError
    from toolproof.report.merge import merge_reports as merged_run

    try:
        merged = merged_run(path_list(paths))
    except ReportFormatError as problem:
        raise UsageError(str(problem)) from None
    given = reports or Reports()
    title = given.title or merged.title
    events = replace(given, title=title).sink((), sink)
    report_results(merged.results, events, title, merged.duration_s)
    gate = given.gate
    return SuiteResult(tuple(merged.results), merged.duration_s, gate=gate, decides=gate is not None)


def run_suite(
    paths: Sequence[str | Path],
    *,
    fixture: str | Path | None = None,
    server: str | Sequence[str] | None = None,
    docker: str | None = None,
    timeout: float = 30.0,
    subscription_wait: float = 5.0,
    jobs: int | None = None,
    select: str | None = None,
    protocol: Protocol = "2025-11-25",
    environ: Mapping[str, str] | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
    handle_signals: bool = False,
    reuse_server: bool = False,
) -> SuiteResult:
    """Run every case of the suite files or directories `paths` against real MCP servers.

    `fixture`: a directory each case gets its own copy of as `{{fixture}}`. `server`: a stdio command that
    replaces every case's (a string is split as a shell would, never run by one). `docker`: run stdio
    servers in this image. `timeout`: seconds per case (a case's own wins). `subscription_wait`: seconds
    `expect_notification: true` waits for a resource update after the read. `jobs`: cases at once (default:
    one per core). `select`: a `-k` pattern. `environ`: the environment servers inherit and `${VAR}` reads
    (default: this process's). `handle_signals`: SIGINT, SIGTERM and SIGHUP stop the run cleanly and set
    `stopped_by` (only from the main thread). `reuse_server`: cases that provably only read share one
    server per server identity (`run/server_reuse.py`).
    """
    options = server_options(
        fixture=fixture,
        server=server,
        docker=docker,
        timeout=timeout,
        subscription_wait=subscription_wait,
        protocol=protocol,
        environ=environ,
        reuse_server=reuse_server,
    )
    collection = collect_suite(paths, select=select)
    return run_collection(
        collection, options, jobs=jobs, reports=reports, sink=sink, handle_signals=handle_signals
    )


def server_options(
    *,
    fixture: str | Path | None = None,
    server: str | Sequence[str] | None = None,
    docker: str | None = None,
    timeout: float = 30.0,
    subscription_wait: float = 5.0,
    protocol: Protocol = "2025-11-25",
    environ: Mapping[str, str] | None = None,
    reuse_server: bool = False,
) -> ServerOptions:
    """The run-wide server settings of `run_suite`; raises UsageError for a value no run can use."""
    from toolproof.mcp.spec import protocol_mode
    from toolproof.sources.options import ServerOptions

    if fixture is not None and not Path(fixture).is_dir():
        raise UsageError(f"--fixture {fixture}: not a directory")
    if timeout <= 0:
        raise UsageError(f"--timeout must be greater than 0, got {timeout:g}")
    if subscription_wait < 0:
        raise UsageError(f"--subscription-wait must not be negative, got {subscription_wait:g}")
    try:
        mode = protocol_mode(protocol)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if isinstance(server, str):
        try:
            override = tuple(shlex.split(server))
        except ValueError as error:
            raise UsageError(f"--server: {error}") from None
    else:
        override = tuple(server or ())
    return ServerOptions(
        environ=dict(os.environ if environ is None else environ),
        fixture=Path(fixture).resolve() if fixture is not None else None,
        timeout_s=timeout,
        subscription_wait_s=subscription_wait,
        server_override=override,
        docker=docker or "",
        protocol=mode,
        reuse_server=reuse_server,
    )


def run_collection(
    collection: Collection,
    options: ServerOptions,
    *,
    jobs: int | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
    handle_signals: bool = False,
    trials: int = 1,
    maxfail: int | None = None,
    slowest_first: bool = True,
) -> SuiteResult:
    """Run collected cases (see `run_suite`); load errors become ERROR results in their place. `trials`:
    run each case that many times (one result per case, with its pass rate); `maxfail`: stop after that
    many failed cases (default: the collection's, `collect_suite`). With more than one job and a
    `reports.state_dir`, the cases that took longest when they last ran start first (results keep the
    collection's order); `slowest_first=False`, or `maxfail`, starts them in the collection's order."""
    from toolproof.run.secrets import run_secrets

    secrets = run_secrets([case.server for case in collection.cases], options.environ)
    given = reports or Reports()
    events = replace(given, sharded=collection.sharded, resume=collection.resume).sink(secrets, sink)
    _warn_unused_overrides(collection.cases, options, events)
    _warn_literal_fixture(collection.cases, options, events)
    slots = jobs or os.cpu_count() or 2
    started = time.monotonic()
    maxfail = collection.maxfail if maxfail is None else maxfail
    expected = _last_durations(reports) if slowest_first and not maxfail else {}

    async def main() -> list[CaseResult]:
        from toolproof.run.server_suite import run_server_suite

        return await run_server_suite(
            collection.items,
            options,
            jobs=slots,
            sink=events,
            trials=trials,
            maxfail=maxfail,
            expected_s=expected,
        )

    outcome: list[CaseResult] | Interrupted
    if trials == 1 and collection.starts_no_server:  # nothing waits: no event loop (run/serverless_suite.py)
        from toolproof.run.serverless_suite import run_serverless_suite

        outcome = run_serverless_suite(
            collection.items, options, sink=events, maxfail=maxfail, handle_signals=handle_signals
        )
    else:
        import anyio

        from toolproof.run.interrupt import run_until_signal

        outcome = run_until_signal(main) if handle_signals else anyio.run(main)
    result = _suite_result(
        outcome, time.monotonic() - started, collection.sharded, collection.resume, given.gate
    )
    ran = len(outcome) if isinstance(outcome, list) else len(collection.items)
    return replace(result, not_run=len(collection.items) - ran) if maxfail else result


def _last_durations(reports: Reports | None) -> dict[str, float]:
    """Each case's seconds in its last run, from the reports' state directory (none without one)."""
    if reports is None or reports.state_dir is None:
        return {}
    from toolproof.report.timings import last_durations

    return last_durations(Path(reports.state_dir))


def _suite_result(
    outcome: list[CaseResult] | Interrupted,
    duration_s: float,
    sharded: Sharded | None = None,
    resume: Resume | None = None,
    gate: Gate | None = None,
) -> SuiteResult:
    """What a run gave: with `resume`, the stopped run's results beside its own."""
    from toolproof.run.interrupt import Interrupted

    if isinstance(outcome, Interrupted):
        return SuiteResult((), duration_s, stopped_by=outcome.signal, sharded=sharded, gate=gate)
    results = outcome if resume is None else resume.combined(outcome)
    return SuiteResult(tuple(results), duration_s, sharded=sharded, gate=gate)


def _names(cases: Sequence[Case], which: str = "") -> str:
    """`2 cases<which>: 'a', 'b'`, naming at most a few."""
    shown = ", ".join(repr(case.name) for case in cases[:_NAMED])
    more = f" and {len(cases) - _NAMED} more" if len(cases) > _NAMED else ""
    count = f"{len(cases)} case{'' if len(cases) == 1 else 's'}"
    return f"{count}{which}: {shown}{more}"


def _warn_unused_overrides(cases: Sequence[Case], options: ServerOptions, sink: Sink) -> None:
    """One warning to `sink` naming the http/sse cases that --server and --docker (stdio only) do not
    change."""
    from toolproof.model.events import Warned
    from toolproof.model.server_config import Transport

    given = (("--server", options.server_override), ("--docker", options.docker))
    flags = [flag for flag, value in given if value]
    remote = [case for case in cases if case.server.transport is not Transport.STDIO]
    if flags and remote:
        verb = "applies" if len(flags) == 1 else "apply"
        unchanged = _names(remote, " over http/sse")
        told = f"{' and '.join(flags)} {verb} to stdio servers only; not used for {unchanged}"
        sink.handle(Warned(told))


def _warn_literal_fixture(cases: Sequence[Case], options: ServerOptions, sink: Sink) -> None:
    """One warning to `sink` naming the cases that use `{{fixture}}` in a run without a fixture directory."""
    import re

    from toolproof.model.events import Warned

    if options.fixture is not None:
        return
    placeholder = re.compile(r"\{\{\s*fixture\s*\}\}")
    using = [case for case in cases if placeholder.search(case.model_dump_json())]
    if using:
        told = f"{{{{fixture}}}} stays as written without --fixture DIR; used by {_names(using)}"
        sink.handle(Warned(told))


def check_traces(
    cases: Sequence[str | Path],
    traces: Sequence[str | Path],
    *,
    skip_judge: bool = False,
    by_case: bool = False,
    timezone: str | tzinfo | None = None,
    now: str | datetime | None = None,
    platform: Platform | None = None,
    response_path: str | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
    select: str | None = None,
    last_failed: bool = False,
    failed_first: bool = False,
    maxfail: int = 0,
    shard: str | None = None,
) -> SuiteResult:
    """Check the agent runs recorded in `traces` (files or directories) against the agent cases in `cases`,
    without running anything (and without importing the MCP SDK).

    `timezone` and `now`: the zone and moment date expressions such as TODAY see (default: local, and each
    run's recorded start). `platform`, `response_path`: how legacy Mibo bodies are read. `skip_judge`:
    report judge checks as not evaluated. `by_case`: one result per case and run instead of per check.
    `select`, `last_failed`, `failed_first`, `maxfail`, `shard`: as `toolproof run`'s -k, --lf, --ff,
    --maxfail and --shard (`load/collect.py`).
    """
    from toolproof.load import LoadError
    from toolproof.run.trace_inputs import read_runs, recorded_run, time_zone, when
    from toolproof.run.trace_suite import Clocks, check_suite, has_judge, pair

    chosen = selection(
        select=select, last_failed=last_failed, failed_first=failed_first, shard=shard, maxfail=maxfail
    )
    zone = time_zone(timezone)
    moment = when(now, zone) if now is not None else None
    runs, recorded = read_runs(path_list(traces), platform, response_path)
    collected = _collect(path_list(cases), chosen, "agent", frozenset(recorded), recorded_run)
    whole = [item for item in collected.found if not isinstance(item, LoadError)]
    paired = pair(whole, runs)  # among every case found: which runs a case gets depends on the others
    if whole and runs and not any(paired.values()):
        named = sorted({each.scenario for each in runs if each.scenario})
        raise UsageError(f"no recorded run matches any case (runs name scenarios {named or 'none'})")
    runs_of = {id(case): paired[index] for index, case in enumerate(whole)}
    loaded, sharded = collected.cases, collected.sharded
    judged = [case.name for case in loaded if has_judge(case)]
    if judged and not skip_judge:
        shown = ", ".join(judged[:5]) + (f" and {len(judged) - 5} more" if len(judged) > 5 else "")
        raise UsageError(
            f"judge checks need a judge, and none is configured ({shown}); pass --skip-judge to "
            "report them as not evaluated"
        )
    started = time.monotonic()
    given = reports or Reports()
    events = replace(given, sharded=sharded).sink((), sink)

    results = check_suite(
        collected.items,
        lambda case: runs_of[id(case)],
        Clocks(zone, moment),
        by_case=by_case,
        sink=events,
        maxfail=chosen.maxfail,
    )
    unchecked = not any(runs_of[id(case)] and case.all_assertions() for case in loaded if not case.skip)
    return SuiteResult(
        tuple(results), time.monotonic() - started, nothing_ran=unchecked, sharded=sharded, gate=given.gate
    )


def evaluate(
    paths: Sequence[str | Path],
    *,
    config: str | Path | None = None,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    script: str | Path | None = None,
    max_steps: int | None = None,
    judge_provider: str | None = None,
    judge_model: str | None = None,
    judge_base_url: str | None = None,
    judge_script: str | Path | None = None,
    skip_judge: bool = False,
    servers: Sequence[str] = (),
    target: str | Path | None = None,
    trials: int | None = None,
    k: int | None = None,
    pass_threshold: float | None = None,
    record: str | Path | None = None,
    replay: str | Path | None = None,
    save_traces: str | Path | None = None,
    timeout: float | None = None,
    fixture: str | Path | None = None,
    jobs: int | None = None,
    select: str | None = None,
    environ: Mapping[str, str] | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
    handle_signals: bool = False,
    last_failed: bool = False,
    failed_first: bool = False,
    maxfail: int = 0,
    shard: str | None = None,
    max_rps: float | Mapping[str, float] | None = None,
    resume: str | Path | None = None,
    protocol: Protocol = "2025-11-25",
) -> SuiteResult:
    """Run every agent case of `paths` live (a model and the case's MCP servers, or its HTTP agent), then
    check and judge each run. Settings left None come from the project file (`config`, default
    ./toolproof.yaml), else the defaults; the arguments mean what `toolproof eval`'s flags of the same name
    mean (`last_failed`, `failed_first`, `maxfail`, `shard`, `max_rps`, `resume`: --lf, --ff, --maxfail,
    --shard, --max-rps, --resume; `max_rps` is one rate for every provider, or rates by provider kind;
    `protocol` the era spoken with the case's MCP servers, as --protocol)."""
    from toolproof.mcp.spec import protocol_mode
    from toolproof.run.agent_eval import EvalRequest, ModelFlags, run_eval

    rates = {"*": max_rps} if isinstance(max_rps, (int, float)) else dict(max_rps or {})
    for kind, rate in rates.items():
        if rate <= 0:
            raise UsageError(f"--max-rps {'' if kind == '*' else kind + '='}{rate:g}: must be greater than 0")
    stopped = read_resume(resume)
    try:
        mode = protocol_mode(protocol)
    except ValueError as error:
        raise UsageError(str(error)) from None
    chosen = selection(
        select=select,
        last_failed=last_failed,
        failed_first=failed_first,
        shard=shard,
        resume=stopped,
        maxfail=maxfail,
    )

    def path(value: str | Path | None) -> Path | None:
        return None if value is None else Path(value)

    def cases(leave_out: frozenset[Path]) -> Collected[AgentCase]:
        return _collect(path_list(paths), chosen, "agent", leave_out)

    request = EvalRequest(
        collect=cases,
        config=path(config),
        agent=ModelFlags(provider, model, base_url, api_key_env, path(script), max_steps),
        judge=ModelFlags(judge_provider, judge_model, judge_base_url, None, path(judge_script)),
        skip_judge=skip_judge,
        servers=tuple(servers),
        target=path(target),
        trials=trials,
        k=k,
        pass_threshold=pass_threshold,
        record=path(record),
        replay=path(replay),
        save_traces=path(save_traces),
        timeout_s=timeout,
        fixture=path(fixture),
        jobs=jobs,
        environ=environ,
        maxfail=chosen.maxfail,
        max_rps=rates,
        protocol=mode,
    )
    started = time.monotonic()
    taken: list[tuple[Sharded | None, Resume | None]] = [(None, None)]

    def sink_for(secrets: frozenset[str], collected: Collected[AgentCase]) -> Sink:
        resumed = replace(stopped, order=collected.order or ()) if stopped else None
        taken[0] = (collected.sharded, resumed)
        return replace(reports or Reports(), sharded=collected.sharded, resume=resumed).sink(secrets, sink)

    outcome = run_eval(request, sink_for, handle_signals=handle_signals)
    return _suite_result(outcome, time.monotonic() - started, *taken[0], (reports or Reports()).gate)
