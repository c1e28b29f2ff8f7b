"""`fuzz`: every tool of a server sent hostile inputs, each answer classified and each crash minimised, as a
Python call (the `toolproof fuzz` command)."""

from __future__ import annotations

import functools
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from toolproof.api.reports import Reports, RunStream
from toolproof.api.results import ProbeResult
from toolproof.exit_codes import UsageError

if TYPE_CHECKING:
    from toolproof.mcp.spec import ConnectSpec
    from toolproof.model.events import Sink
    from toolproof.model.result import CaseResult
    from toolproof.probe.fuzz import FuzzCall
    from toolproof.probe.scan.run import Unreached

Gathered = list[tuple[str, "list[FuzzCall] | None"]]
"""Each chosen tool's name and its probes: empty when skipped as destructive, None when not reached."""


Probes = tuple[tuple[str, "tuple[FuzzCall, ...] | None"], ...]
"""Each chosen tool's name and its probes, as in `Gathered`."""


@dataclass(frozen=True)
class FuzzedServer:
    """What `fuzz` found on one server: the server as its results name it (their file), each chosen tool's
    probes and the command line that replays this server alone."""

    server: str
    probes: Probes
    replay: str


@dataclass(frozen=True)
class FuzzResult(ProbeResult):
    """The verdicts of `fuzz`, with the seed used, each chosen tool's probes (empty: skipped as destructive,
    None: not reached within `max_time`; several servers: one after another), the command line that
    replays the run, the case files written and, server by server, what each server reached gave."""

    seed: int = 0
    probes: Probes = ()
    replay: str = ""
    written: tuple[Path, ...] = ()
    servers: tuple[FuzzedServer, ...] = ()


def fuzz(
    spec: ConnectSpec | Sequence[ConnectSpec],
    *,
    runs: int = 50,
    seed: int | None = None,
    tools: Sequence[str] = (),
    jobs: int = 1,
    max_time: float | None = None,
    include_writes: bool = False,
    output: str | Path | None = None,
    reports: Reports | None = None,
    sink: Sink | None = None,
    progress: TextIO | None = None,
) -> FuzzResult:
    """Send each tool of the server `spec` names (see `server_spec`; only `tools`, when given) up to `runs`
    inputs built from its schema with the random `seed` (default: a new one, in the result) and classify
    each answer (passed, rejected, crash, timeout, protocol-error, skipped); each distinct crash is
    minimised. Tools annotated destructive are skipped unless `include_writes`. `jobs`: calls in flight at
    once; `max_time`: seconds after which no input is sent (the tools not reached are named). Each tool's
    results are reported as it finishes, in tool order; `progress`: a stream (a terminal) that shows which
    tool is being fuzzed. `output`: write each finding as a case into that directory. A server that cannot
    be reached sets `unreached` (exit status 2); a stop signal ends the run and what was found is reported,
    with 128 + N. Several specs: the servers are fuzzed side by side, each as if alone (its own process,
    session, restarts and the same seed, so the same inputs), and reported one after another in the order
    given; the report's settings name each server's replay command (`replays`, by the results' file); a
    server that cannot be reached beyond the first is in `also_unreached`. `tools` and `output` name one
    server's tools: they take one spec. Raises UsageError for a tool the server does not list."""
    import secrets

    from toolproof.api.probes import run_guarded, server_secrets, source_path, unreached
    from toolproof.mcp.errors import RequestFailed
    from toolproof.probe.side_by_side import ServerOrder, each_server
    from toolproof.run.interrupt import Interrupted

    specs = list(spec) if isinstance(spec, Sequence) else [spec]
    if not specs:
        raise UsageError("fuzz: no server given")
    if len(specs) > 1 and output is not None:
        raise UsageError("--output writes the cases of one server: give one --server")
    if len(specs) > 1 and tools:
        raise UsageError("--tool names a tool of one server: give one --server")
    chosen_seed = seed if seed is not None else secrets.randbelow(2**31)
    replay = _replay(specs, chosen_seed, runs, tools, include_writes)
    sources = [str(source_path(each)) for each in specs]
    replays = [_replay([each], chosen_seed, runs, tools, include_writes) for each in specs]
    events = (reports or Reports()).sink(set().union(*(server_secrets(each) for each in specs)), sink)
    stream = RunStream(events, f"toolproof fuzz {', '.join(sources)}")
    settings: dict[str, object] = {
        "seed": chosen_seed,
        "runs": runs,
        "timeout_s": specs[0].request_timeout,
        "max_time_s": max_time,
        "replay": replay,
    }
    if len(specs) > 1:
        settings["replays"] = dict(zip(sources, replays, strict=True))
    shown = progress if len(specs) == 1 else None  # one status line cannot follow several servers
    fuzzing = [_Run(each, runs, chosen_seed, tools, jobs, max_time, include_writes, shown) for each in specs]
    order: ServerOrder[CaseResult] = ServerOrder(len(specs), stream.add)
    lost: dict[int, Unreached] = {}
    refused: list[str] = []
    listed: list[int] = []

    def start(tools: int) -> None:
        """The run starts when the first server lists its tools (the total grows as the others report)."""
        if not listed:
            stream.start(tools, settings)
        listed.append(tools)

    async def one(index: int, _started: Callable[[], None]) -> None:
        try:
            wrong = await fuzzing[index].fuzz(start, functools.partial(order.add, index))
            if wrong is not None:
                refused.append(wrong)
        except RequestFailed as error:
            lost[index] = unreached(specs[index], error)
        finally:
            order.finish(index)

    started = time.perf_counter()
    outcome = run_guarded(lambda: each_server(len(specs), one))
    if refused:
        raise UsageError(refused[0])
    duration = time.perf_counter() - started
    missing = [lost[index] for index in sorted(lost)]
    if len(missing) == len(specs):
        return FuzzResult((), duration, unreached=missing[0], also_unreached=tuple(missing[1:]))
    stream.end(duration)
    written = _write_cases(Path(output), fuzzing[0].gathered, specs[0]) if output is not None else []
    servers = tuple(
        FuzzedServer(sources[index], _frozen(run.gathered), replays[index])
        for index, run in enumerate(fuzzing)
        if index not in lost
    )
    return FuzzResult(
        tuple(stream.results),
        duration,
        stopped_by=outcome.signal if isinstance(outcome, Interrupted) else None,
        unreached=missing[0] if missing else None,
        also_unreached=tuple(missing[1:]),
        seed=chosen_seed,
        probes=tuple(tool for server in servers for tool in server.probes),
        replay=replay,
        written=tuple(written),
        servers=servers,
    )


def _frozen(gathered: Gathered) -> Probes:
    return tuple((name, None if probes is None else tuple(probes)) for name, probes in gathered)


@dataclass
class _Run:
    spec: ConnectSpec
    runs: int
    seed: int
    tools: Sequence[str]
    jobs: int
    max_time: float | None
    include_writes: bool
    progress: TextIO | None

    def __post_init__(self) -> None:
        self.gathered: Gathered = []  # filled as answers come: a stop by signal keeps what was found

    async def fuzz(self, start: Callable[[int], None], add: Callable[[CaseResult], None]) -> str | None:
        """Fuzz the chosen tools into `gathered`: `start(tools)` once they are chosen, then `add` each tool's
        results as it finishes (in tool order); when a stop signal cancels it, the inputs answered so far;
        or a usage error."""
        from toolproof.api.probes import preload, source_path
        from toolproof.probe.connection import Prober

        loaded = preload("fuzz")  # while the server starts
        async with Prober(self.spec) as prober:
            tools = await prober.list_tools()
        await loaded()
        from toolproof.probe.fuzz import FuzzPlan, fuzz_tools, tool_results
        from toolproof.probe.tools import is_destructive, skip_reason, tool_name

        names = [tool_name(tool) for tool in tools]
        unknown = [name for name in self.tools if name not in names]
        if unknown:
            listed = ", ".join(names)
            return f"--tool: no tool named {', '.join(map(repr, unknown))} (the server lists {listed})"
        chosen = [tool for tool in tools if not self.tools or tool_name(tool) in self.tools]
        writes = self.include_writes
        probed = [index for index, tool in enumerate(chosen) if writes or not is_destructive(tool)]
        fuzzed = set(probed)
        gathered = self.gathered
        gathered += [(tool_name(tool), None if index in fuzzed else []) for index, tool in enumerate(chosen)]
        source = source_path(self.spec)
        start(len(chosen))
        ordered = _InOrder(add)
        for index, (name, probes) in enumerate(gathered):
            if probes is not None:
                ordered.add(index, [_not_fuzzed(name, source, skip_reason(chosen[index]))])
        progress = _Progress([gathered[index][0] for index in probed], self.progress)

        def done(position: int, probes: list[FuzzCall]) -> None:
            index = probed[position]
            gathered[index] = (gathered[index][0], probes)
            ordered.add(index, tool_results(gathered[index][0], probes, source))
            progress.done(position)

        plan = FuzzPlan(seed=self.seed, runs=self.runs, jobs=self.jobs, max_time_s=self.max_time)
        outcomes: list[list[FuzzCall] | None] = [None for _ in probed]  # filled as answers come
        finished = False
        try:
            await fuzz_tools(
                self.spec, [chosen[index] for index in probed], plan, done, progress.started, outcomes
            )
            finished = True
        finally:  # also when a stop signal cancelled it: the tools cut short report what they found
            progress.clear()
            for position, index in enumerate(probed):
                name, probes = gathered[index]
                partial = outcomes[position]
                if probes is not None:
                    continue
                if partial:
                    gathered[index] = (name, partial)
                    ordered.add(index, tool_results(name, partial, source))
                elif finished:  # only when max_time ran out
                    why = f"not reached within --max-time {self.max_time:g}s"
                    ordered.add(index, [_not_fuzzed(name, source, why)])
                else:
                    gathered[index] = (name, [])
                    ordered.add(index, [_not_fuzzed(name, source, "not fuzzed: the run was stopped first")])
        return None


def _not_fuzzed(name: str, source: Path, why: str) -> CaseResult:
    from toolproof.model.result import CaseResult, Status

    return CaseResult(name=name, file=source, status=Status.SKIP, reason=why)


def _replay(
    specs: Sequence[ConnectSpec], seed: int, runs: int, tools: Sequence[str], include_writes: bool
) -> str:
    """The command line that sends the same inputs to the servers `specs` name again (they share the
    transport and timeout, as the command's options give them)."""
    from toolproof.model.server_config import Transport

    words = ["toolproof", "fuzz"]
    for spec in specs:
        words += ["--server", spec.url or shlex.join([spec.command, *spec.args])]
    words += ["--seed", str(seed), "--runs", str(runs)]
    for name in tools:
        words += ["--tool", name]
    if specs[0].transport is Transport.SSE:
        words += ["--transport", specs[0].transport.value]
    if include_writes:
        words.append("--include-writes")
    words += ["--timeout", f"{specs[0].request_timeout:g}s"]
    return shlex.join(words)


class _InOrder:
    """Hands each tool's results to `emit` once it and every tool before it are done, so they come out in
    tool order whatever the workers' order."""

    def __init__(self, emit: Callable[[CaseResult], None]) -> None:
        from toolproof.report.ordering import InOrder

        self._emit = emit
        self._order: InOrder[list[CaseResult]] = InOrder()

    def add(self, index: int, results: list[CaseResult]) -> None:
        for ready in self._order.add(index, results):
            for result in ready:
                self._emit(result)


class _Progress:
    """`[done/total] fuzzing tool` on `stream` (a terminal) while tools are fuzzed; nothing without one."""

    def __init__(self, names: list[str], stream: TextIO | None) -> None:
        from toolproof.core.sanitize import clean
        from toolproof.report.progress import StatusLine

        self._line = StatusLine(stream) if stream is not None else None
        self._names = [clean(name) for name in names]
        self._done = 0

    def started(self, index: int) -> None:
        if self._line is not None:
            self._line.show(f"[{self._done}/{len(self._names)}] fuzzing {self._names[index]}")

    def done(self, index: int) -> None:
        self._done += 1
        if self._line is not None:
            self._line.show(f"[{self._done}/{len(self._names)}] {self._names[index]} done")

    def clear(self) -> None:
        if self._line is not None:
            self._line.clear()


def _write_cases(directory: Path, gathered: Gathered, spec: ConnectSpec) -> list[Path]:
    from toolproof.probe.cases import write_cases
    from toolproof.probe.fuzz import finding_case, findings

    cases = {
        f"{finding.first.tool}_{finding.first.input.category}": finding_case(finding, spec)
        for _, probes in gathered
        for finding in findings(probes or [])
    }
    return write_cases(directory, cases)
