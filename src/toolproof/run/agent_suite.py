"""Run planned agent cases: each trial opens its servers, plays the conversation, is checked and judged.

A trial's failure is a verdict, never a raise: a server that cannot start, a tool name clash, a run that
times out, a model that fails or never gives a final answer, a cassette that does not hold a request (of
the model, the judge, a tool or an HTTP agent: a `config` error that ends the trial, never a live call). With
several trials a case gets one result that stands for all of them (pass@k, pass^k, the pass threshold);
trials of all cases share the `jobs` slots. No server process outlives the run. With `save_traces`, each
trial's transcript is also written as toolproof's native transcript JSON (secrets masked; a file that cannot
be written is a warning, not a failure).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import anyio

from toolproof.check.looked_at import run_steps
from toolproof.check.scenario import Evaluation
from toolproof.check.stop import with_stop
from toolproof.check.trials import combine_trials
from toolproof.core.expressions import Clock
from toolproof.core.writing import write_best_effort
from toolproof.load.errors import LoadError
from toolproof.mcp.errors import RequestFailed
from toolproof.mcp.process import reap_strays
from toolproof.model.events import Sink, TrialFinished
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.scenario import AgentCase
from toolproof.model.target import HttpTarget
from toolproof.model.transcript import Transcript
from toolproof.providers.base import Provider
from toolproof.run.agent_plan import AgentSpec, Plan, Unplannable
from toolproof.run.fixture import isolated_fixture
from toolproof.run.judging import JudgeModel, evaluate_judged
from toolproof.run.load_errors import Broken, by_document, met_load_error
from toolproof.run.scheduler import Slot, run_all
from toolproof.sources.agent.cassette import (
    Cassette,
    CassetteError,
    RecordingProvider,
    RecordingSender,
    RecordingToolHost,
    ReplayProvider,
    ReplaySender,
    ReplayToolHost,
    cassette_file,
)
from toolproof.sources.agent.host import ToolHost
from toolproof.sources.agent.loop import AgentSettings, run_conversation
from toolproof.sources.agent.mcp_tools import ToolNameClash, open_tool_host
from toolproof.sources.connect import connect_spec
from toolproof.sources.http_target import Send, run_http_target
from toolproof.sources.options import ServerOptions
from toolproof.sources.traces import native

Item = Plan | Unplannable | LoadError


@dataclass(frozen=True)
class EvalOptions:
    """Run-wide settings of `toolproof eval`."""

    server: ServerOptions
    providers: Mapping[AgentSpec, Provider]
    judge: JudgeModel | None = None
    trials: int = 1
    k: int | None = None
    pass_threshold: float = 1.0
    record: Path | None = None
    replay: Path | None = None
    save_traces: Path | None = None
    secrets: frozenset[str] = frozenset()


def unplannable_result(item: Unplannable) -> CaseResult:
    case = item.case
    failure = Failure(kind=FailureKind.CONFIG, message=item.message)
    return CaseResult(
        name=case.name, file=case.source.file, line=case.source.line, status=Status.ERROR, failure=failure
    )


async def run_agent_suite(
    items: Sequence[Item], options: EvalOptions, *, jobs: int, sink: Sink, maxfail: int = 0
) -> list[CaseResult]:
    """Every item's verdict (one per case, whatever the number of trials), in order."""
    trial_slots = anyio.CapacityLimiter(max(1, jobs))

    async def execute(item: Plan | Unplannable | Broken, slot: Slot) -> CaseResult:
        if isinstance(item, tuple):
            return met_load_error(sink, item)
        if isinstance(item, Unplannable):
            return unplannable_result(item)
        if options.trials == 1:
            return (await run_trial(item, options, 1)).result
        trials: list[Trial | None] = [None] * options.trials

        async def one(number: int) -> None:
            async with trial_slots:
                trials[number - 1] = trial = await run_trial(item, options, number)
            sink.handle(TrialFinished(trial.result, number, options.trials))

        async with anyio.create_task_group() as group:
            for number in range(1, options.trials + 1):
                group.start_soon(one, number)
        done = [trial for trial in trials if trial is not None]
        return combine_trials(
            [trial.result for trial in done],
            [trial.evaluation for trial in done],
            k=options.k,
            threshold=options.pass_threshold,
        )

    def name_of(item: Plan | Unplannable | Broken) -> str:
        return item[0].case_name if isinstance(item, tuple) else item.case.name

    try:
        entries = cast(list[Plan | Unplannable | Broken], by_document(items))  # mypy cannot solve T here
        return await run_all(
            entries, execute, name_of, jobs=jobs, sink=sink, title="toolproof eval", maxfail=maxfail
        )
    finally:
        reap_strays()


@dataclass(frozen=True)
class Trial:
    """One trial's verdict, and the evaluation of its checks when the run went to its end (for per-check
    pass thresholds over trials)."""

    result: CaseResult
    evaluation: Evaluation | None = None


async def run_trial(plan: Plan, options: EvalOptions, trial: int) -> Trial:
    """One trial of one case, to a verdict."""
    case = plan.case
    started = time.perf_counter()

    def verdict(status: Status, failure: Failure | None = None, **extra: Any) -> CaseResult:
        return CaseResult(
            name=case.name,
            file=case.source.file,
            line=case.source.line,
            status=status,
            failure=failure,
            duration_s=time.perf_counter() - started,
            trial=trial,
            **extra,
        )

    if case.skip:
        return Trial(verdict(Status.SKIP, reason="skip: true in the case"))
    cassette = _cassette(case, options, trial)
    if isinstance(cassette, Failure):
        return Trial(verdict(Status.ERROR, cassette))
    stderr: list[str] = []
    try:
        with anyio.fail_after(options.server.timeout_s):
            run = await _play(plan, options, cassette, stderr)
        now = datetime.now().astimezone()
        assert now.tzinfo is not None
        judge = _judge(options, cassette)
        evaluation = await evaluate_judged(case, run, clock=Clock(now, now.tzinfo), judge=judge)
        if cassette is not None and not options.replay:
            cassette.save()
    except TimeoutError:
        message = f"timed out after {options.server.timeout_s:g}s while the agent ran"
        failure = Failure(kind=FailureKind.TIMEOUT, message=message)
        return Trial(verdict(Status.FAIL, failure, stderr="".join(stderr)))
    except RequestFailed as error:
        return Trial(verdict(Status.FAIL, error.failure, stderr=error.stderr or "".join(stderr)))
    except ToolNameClash as error:
        return Trial(verdict(Status.ERROR, Failure(kind=FailureKind.CONFIG, message=str(error))))
    except CassetteError as error:
        return Trial(verdict(Status.ERROR, Failure(kind=FailureKind.CONFIG, message=f"cassette: {error}")))
    if options.save_traces is not None:
        _save_trace(options.save_traces, case, trial, run, options.secrets)
    result = with_stop(evaluation.case_result(trial=trial), run)
    failed = result.status in (Status.FAIL, Status.ERROR)
    timed = result.model_copy(
        update={
            "duration_s": time.perf_counter() - started,
            "stderr": "".join(stderr) if failed else "",
            "phases": {"agent": (run.duration_ms or 0.0) / 1000},
            "steps": run_steps(evaluation),
        }
    )
    return Trial(timed, evaluation if run.stop is None else None)


async def _play(
    plan: Plan, options: EvalOptions, cassette: Cassette | None, stderr: list[str]
) -> Transcript:
    """Run the case once (over HTTP when it names a target, else through the agent loop): the run, which
    records why it stopped early. Raises CassetteError when the cassette does not hold a request."""
    case = plan.case
    target = case_target(case)
    if target is not None:
        through = _http_sender(options, cassette)
        return await run_http_target(case, target, environ=options.server.environ, through=through)
    provider = _provider(plan, options, cassette)
    async with _tool_host(plan, options, cassette, stderr) as host:
        return await run_conversation(case.id or case.name, _users(case), provider, host, _settings(plan))


def _provider(plan: Plan, options: EvalOptions, cassette: Cassette | None) -> Provider:
    """The plan's model: live, recorded into the cassette, or answered from the cassette alone."""
    if cassette is not None and options.replay:
        return ReplayProvider(cassette)
    live = options.providers.get(plan.agent)
    assert live is not None, "a planned agent always has its provider"
    return live if cassette is None else RecordingProvider(live, cassette)


def _judge(options: EvalOptions, cassette: Cassette | None) -> JudgeModel | None:
    """The judge, recorded into the cassette or answered from it when there is one."""
    judge = options.judge
    if judge is None or cassette is None:
        return judge
    wrapped = ReplayProvider(cassette) if options.replay else RecordingProvider(judge.provider, cassette)
    return replace(judge, provider=wrapped)


def _http_sender(options: EvalOptions, cassette: Cassette | None) -> Callable[[Send], Send] | None:
    """How an HTTP target's requests go: live (None), recorded into the cassette, or answered from it alone
    (the live sender is then never used)."""
    if cassette is None:
        return None
    if options.replay:
        return lambda _live: ReplaySender(cassette)
    return lambda live: RecordingSender(live, cassette)


def _users(case: AgentCase) -> list[str]:
    return [turn.user for turn in case.turns]


def _settings(plan: Plan) -> AgentSettings:
    agent = plan.agent
    return AgentSettings(
        model=agent.model,
        system=agent.system,
        max_steps=agent.max_steps,
        max_tokens=agent.max_tokens,
        temperature=agent.temperature,
        guardrails=agent.guardrails,
    )


def _trial_case(case: AgentCase, trial: int) -> AgentCase:
    """The case as its trial's files are named: later trials get ` [trial N]`."""
    return case if trial == 1 else case.model_copy(update={"name": f"{case.name} [trial {trial}]"})


def _save_trace(
    directory: Path, case: AgentCase, trial: int, run: Transcript, secrets: frozenset[str]
) -> None:
    """Write `run` for `toolproof check --trace`, named as the trial's cassette but ending `.trace.json`."""
    path = cassette_file(directory, _trial_case(case, trial)).with_suffix(".trace.json")
    named = run if run.run is not None else run.model_copy(update={"run": f"trial {trial}"})
    write_best_effort(path, native.dump(named, secrets), atomic=True)


def _cassette(case: AgentCase, options: EvalOptions, trial: int) -> Cassette | Failure | None:
    """The trial's cassette (None without --record or --replay), masking the run's secrets as the reports do;
    a cassette that cannot be read is a `config` failure."""
    directory = options.replay or options.record
    if directory is None:
        return None
    path = cassette_file(directory, _trial_case(case, trial))
    if options.record:
        return Cassette.recording(path, options.secrets, environ=options.server.environ)
    try:
        return Cassette.replaying(path, options.secrets, environ=options.server.environ)
    except CassetteError as error:
        return Failure(kind=FailureKind.CONFIG, message=f"cassette: {error}")


@asynccontextmanager
async def _tool_host(
    plan: Plan, options: EvalOptions, cassette: Cassette | None, stderr: list[str]
) -> AsyncIterator[ToolHost]:
    """The tools of the plan's servers (live, recorded or replayed); their stderr is kept in `stderr`. With a
    fixture, each trial's servers get their own copy of it as `{{fixture}}`, as each case of `run` does."""
    if cassette is not None and options.replay:
        yield ReplayToolHost(cassette)
        return
    timeout = options.server.timeout_s
    with isolated_fixture(options.server.fixture) as fixture:
        variables = {"fixture": str(fixture)} if fixture else {}
        specs = {
            name: connect_spec(server, variables, options.server, request_timeout=timeout)
            for name, server in plan.servers.items()
        }
        async with open_tool_host(specs) as host:
            try:
                yield RecordingToolHost(host, cassette) if cassette is not None else host
            finally:
                stderr.append(host.stderr)


def case_target(case: AgentCase) -> HttpTarget | None:
    """The HTTP endpoint the case is sent to instead of the agent loop, if it names one."""
    return case.target
