"""Evaluate one agent case over one observed run: every check in dependency order, judge checks batched.

Scopes: a conversation-level check reads the whole run (tool checks: every call of every turn; text and judge
checks: the final reply; status, latency and tokens: every turn); a turn-level check reads its turn only.
A check whose dependency did not pass, or whose precondition (`when`) does not hold over the tool calls of its
scope, is skipped; a check with no data to judge is not evaluated; both are reported and counted apart from
passes and failures. A run whose metadata says `no_reply` (an mcp-assert audit log, which records tool calls
only) has no reply to judge: its text, JSON and judge checks on the reply are not evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from toolproof.check.arguments import as_text, compact_json
from toolproof.check.calls import call_check, tool_input, tools_called, tools_not_called
from toolproof.check.extract import extract
from toolproof.check.judge import Judge, JudgeRequest, RunFacts, Subject, build_request, verdicts
from toolproof.check.judge import label as judge_label
from toolproof.check.preconditions import unmet
from toolproof.check.response import (
    Answer,
    NotEvaluated,
    field_check,
    guardrail_check,
    jsonpath_check,
    latency_check,
    regex_check,
    schema_check,
    status_check,
    text_check,
)
from toolproof.check.sequence import sequence
from toolproof.check.steps import CallScope, Steps
from toolproof.check.usage import summed_usage, token_limit
from toolproof.core.expressions import Clock, Scope, dot_path, shadowed
from toolproof.model.result import CaseResult, Failure, FailureKind, Status
from toolproof.model.scenario import (
    AgentCase,
    Assertion,
    CallCheck,
    FieldCheck,
    GuardrailCheck,
    JsonPathCheck,
    JudgeCheck,
    LatencyCheck,
    RegexCheck,
    SchemaCheck,
    SequenceCheck,
    StatusCheck,
    TextCheck,
    TokenLimitCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)
from toolproof.model.transcript import ToolCall, Transcript, Turn, Usage

Verdict = Failure | NotEvaluated | None
REPLY_CHECKS = (TextCheck, RegexCheck, JsonPathCheck, FieldCheck, SchemaCheck)
NO_REPLY = NotEvaluated("the run recorded no reply, only tool calls")


@dataclass(frozen=True)
class Outcome:
    """What became of one check."""

    check: Assertion
    turn: int | None
    label: str
    status: Status
    failure: Failure | None = None
    reason: str | None = None

    @property
    def passed(self) -> bool:
        return self.status is Status.PASS

    def as_dict(self) -> dict[str, Any]:
        item: dict[str, Any] = {"check": self.label, "kind": self.check.kind, "status": self.status.value}
        if self.check.id:
            item["id"] = self.check.id
        if self.turn is not None:
            item["turn"] = self.turn + 1
        if self.failure is not None:
            item |= {
                "message": self.failure.message,
                "expected": self.failure.expected,
                "actual": self.failure.actual,
                **self.failure.details,
            }
        if self.reason:
            item["reason"] = self.reason
        return item


@dataclass(frozen=True)
class Evaluation:
    """Every check's outcome for one case over one run."""

    case: AgentCase
    run: Transcript
    outcomes: tuple[Outcome, ...]
    warnings: tuple[str, ...] = ()
    judge_requests: int = 0
    extracted: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        """ERROR if any check errored, else FAIL if any failed, else PASS (SKIP if nothing was evaluated)."""
        statuses = {outcome.status for outcome in self.outcomes}
        for status in (Status.ERROR, Status.FAIL, Status.PASS):
            if status in statuses:
                return status
        return Status.SKIP

    def assertion_results(self, trial: int = 1) -> list[CaseResult]:
        """One result per check, named `case › check`."""
        return [
            CaseResult(
                name=f"{self.case.name} › {outcome.label}",
                file=self.case.source.file,
                line=outcome.check.line or self.case.source.line,
                status=outcome.status,
                failure=outcome.failure,
                reason=outcome.reason,
                trial=trial,
            )
            for outcome in self.outcomes
        ]

    def case_result(self, trial: int = 1) -> CaseResult:
        """One result for the whole case: its failing checks in the message, every outcome in the details."""
        status = self.status
        bad = [outcome for outcome in self.outcomes if outcome.status in (Status.FAIL, Status.ERROR)]
        apart = [outcome for outcome in self.outcomes if outcome.status is Status.SKIP]
        reason = None
        if apart:
            reason = f"{len(apart)} not counted: " + "; ".join(f"{o.label} ({o.reason})" for o in apart)
        failure = None
        if bad:
            kind = next(o.failure.kind for o in bad if o.failure is not None and o.status is status)
            lines = [
                f"{outcome.label}: {outcome.failure.message if outcome.failure else outcome.reason}"
                for outcome in bad
            ]
            failure = Failure(
                kind=kind,
                message="\n".join(lines),
                check=f"{len(bad)} of {len(self.outcomes)}",
                details={
                    "assertions": [outcome.as_dict() for outcome in self.outcomes],
                    "warnings": list(self.warnings),
                    **({"extracted": self.extracted} if self.extracted else {}),
                },
            )
        return CaseResult(
            name=self.case.name,
            file=self.case.source.file,
            line=self.case.source.line,
            status=status,
            failure=failure,
            reason=reason,
            trial=trial,
        )


def describe(check: Assertion) -> str:
    """A short default label for a check."""
    if check.label:
        return check.label
    if isinstance(check, ToolsCalled | ToolsNotCalled):
        return f"{check.kind}: {', '.join(check.tools)}"
    if isinstance(check, CallCheck):
        bounds = {"called": "called", "not_called": "not called", "count": "call count"}[check.condition]
        at = f" at index {check.index}" if check.index is not None else ""
        return f"{check.name} {bounds}{at}"
    if isinstance(check, SequenceCheck):
        shown = " | ".join(" -> ".join(each) or "(none)" for each in check.sequences)
        return f"{'forbidden ' if check.forbidden else ''}sequence ({check.mode}): {shown}"
    if isinstance(check, ToolInputCheck):
        return f"tool input {check.op} {check.tool}: {check.value}"
    if isinstance(check, TextCheck):
        return f"response {check.op}: {', '.join(check.values)}"
    if isinstance(check, RegexCheck):
        return f"response {'matches' if check.should_match else 'does not match'} /{check.pattern}/"
    if isinstance(check, JsonPathCheck):
        return f"jsonpath {check.path} {check.mode}" + (
            f" {compact_json(check.equals)}" if check.mode == "equals" else ""
        )
    if isinstance(check, FieldCheck):
        return f"json_match {check.field}"
    if isinstance(check, SchemaCheck):
        return f"json_schema {check.field or 'response'}"
    if isinstance(check, StatusCheck):
        return f"http_status {check.expected}"
    if isinstance(check, LatencyCheck):
        return f"response_time <= {check.max_ms:g} ms"
    if isinstance(check, TokenLimitCheck):
        limits = [
            f"{name} <= {limit}"
            for name, limit in (
                ("total", check.max_total),
                ("input", check.max_input),
                ("output", check.max_output),
            )
            if limit
        ]
        return f"token_limit {', '.join(limits)}"
    if isinstance(check, GuardrailCheck):
        return f"guardrail {check.name or '(any)'} {'triggered' if check.expected else 'not triggered'}"
    return f"judge: {judge_label(check)}"


@dataclass
class _View:
    """The parts of a run each scope reads, computed once per scope (None = the whole conversation)."""

    run: Transcript
    _steps: dict[int | None, tuple[Steps, Steps, list[ToolCall]]] = field(default_factory=dict)
    _answers: dict[int | None, Answer] = field(default_factory=dict)
    _usage: dict[int | None, Usage | None] = field(default_factory=dict)

    def turns(self, turn: int | None) -> tuple[Turn, ...]:
        return self.run.turns if turn is None else (self.run.turns[turn],)

    def numbered(self, turn: int | None) -> list[tuple[int, Turn]]:
        """The turns of the scope with their 0-based numbers in the run."""
        return list(enumerate(self.run.turns)) if turn is None else [(turn, self.run.turns[turn])]

    def reply_turn(self, turn: int | None) -> Turn:
        return self.run.final if turn is None else self.run.turns[turn]

    @cached_property
    def has_nodes(self) -> bool:
        return any(turn.nodes for turn in self.run.turns)

    @property
    def no_reply(self) -> bool:
        """The run recorded no reply at all (not an empty one)."""
        return self.run.metadata.get("no_reply") is True

    def steps(self, turn: int | None) -> tuple[Steps, Steps, list[ToolCall]]:
        """(tool calls, nodes, the calls themselves) of the scope."""
        if turn not in self._steps:
            turns = self.turns(turn)
            calls = [call for each in turns for call in each.all_calls()]
            nodes = [node for each in turns for node in each.nodes]
            self._steps[turn] = (Steps.of_calls(calls), Steps.of_nodes(nodes), calls)
        return self._steps[turn]

    def answer(self, turn: int | None) -> Answer:
        if turn not in self._answers:
            self._answers[turn] = Answer(self.reply_turn(turn))
        return self._answers[turn]

    def usage(self, turn: int | None) -> Usage | None:
        if turn not in self._usage:
            self._usage[turn] = summed_usage(self.turns(turn))
        return self._usage[turn]


def _strip_prefixes(check: Assertion, called: set[str]) -> Assertion:
    """MCPLab's alias rule: a listed `server:tool` becomes `tool` when only `tool` was called."""

    def name(tool: str) -> str:
        if ":" in tool and tool not in called:
            short = tool.rsplit(":", 1)[1]
            if short in called:
                return short
        return tool

    if isinstance(check, ToolsCalled | ToolsNotCalled):
        return check.model_copy(update={"tools": tuple(map(name, check.tools))})
    if isinstance(check, SequenceCheck):
        return check.model_copy(
            update={"sequences": tuple(tuple(map(name, each)) for each in check.sequences)}
        )
    if isinstance(check, ToolInputCheck):
        return check.model_copy(update={"tool": name(check.tool)})
    if isinstance(check, CallCheck):
        return check.model_copy(update={"name": name(check.name)})
    return check


def _check(check: Assertion, turn: int | None, view: _View, scope: Scope) -> Verdict:
    """The verdict of one non-judge check."""
    calls, nodes, raw = view.steps(turn)
    if isinstance(check, ToolsCalled):
        return tools_called(check, calls)
    if isinstance(check, ToolsNotCalled):
        return tools_not_called(check, calls)
    if isinstance(check, CallCheck):
        return call_check(check, CallScope(calls, nodes, view.has_nodes), scope)
    if isinstance(check, SequenceCheck):
        return sequence(check, calls)
    if isinstance(check, ToolInputCheck):
        return tool_input(check, calls, raw)
    if view.no_reply and isinstance(check, REPLY_CHECKS):
        return NO_REPLY
    reply = view.reply_turn(turn).reply
    if isinstance(check, TextCheck):
        return text_check(check, reply)
    if isinstance(check, RegexCheck):
        return regex_check(check, reply)
    if isinstance(check, JsonPathCheck):
        return jsonpath_check(check, view.answer(turn))
    if isinstance(check, FieldCheck):
        return field_check(check, view.answer(turn), scope)
    if isinstance(check, SchemaCheck):
        return schema_check(check, view.answer(turn))
    if isinstance(check, StatusCheck):
        return status_check(check, view.numbered(turn))
    if isinstance(check, LatencyCheck):
        return latency_check(check, view.numbered(turn))
    if isinstance(check, TokenLimitCheck):
        return token_limit(check, view.usage(turn))
    if isinstance(check, GuardrailCheck):
        return guardrail_check(check, view.turns(turn))
    raise TypeError(f"not a deterministic check: {check.kind}")


def _outcome(check: Assertion, turn: int | None, verdict: Verdict) -> Outcome:
    label = describe(check) if turn is None else f"turn {turn + 1}: {describe(check)}"
    if verdict is None:
        return Outcome(check, turn, label, Status.PASS)
    if isinstance(verdict, NotEvaluated):
        return Outcome(check, turn, label, Status.SKIP, reason=f"not evaluated: {verdict.reason}")
    failure = verdict.model_copy(update={"check": check.kind})
    status = Status.FAIL if failure.kind is FailureKind.EXPECTATION else Status.ERROR
    return Outcome(check, turn, label, status, failure)


def _target_text(check: JudgeCheck, turn: int | None, view: _View) -> str | Failure:
    """The node output a judge check with `target_node` reads, or an error saying what is missing."""
    _, nodes, _ = view.steps(turn)
    wanted = check.target_node or ""
    found = [step.node for step in nodes.steps if step.node is not None and wanted in step.name]
    if not found:
        return Failure(
            kind=FailureKind.CONFIG,
            message=f"no executed node's name contains "
            f"{check.target_node!r} (nodes: {', '.join(nodes.called()) or 'none'})",
            expected=check.target_node,
            actual=nodes.called(),
        )
    node = found[-1]
    if not check.output_key:
        return as_text(node.output)
    try:
        return as_text(dot_path(node.output, check.output_key))
    except LookupError as error:
        return Failure(
            kind=FailureKind.CONFIG,
            message=f"node {node.name!r}: {error.args[0]}",
            expected=check.output_key,
            actual=node.output,
        )


class Evaluating:
    """One case being evaluated over one run, judge questions asked out of band: `question()` evaluates
    every check it can and returns the next batch for the judge (None when the evaluation is complete),
    `answer()` takes the judge's reply to it (or the exception the judge raised), `result()` is the
    evaluation. Nothing is evaluated twice."""

    def __init__(self, case: AgentCase, run: Transcript, clock: Clock, judged: bool) -> None:
        self.case = case
        self.run = run
        self.view = _View(run)
        self.scope = Scope(clock, case.context)
        self.judged = judged
        self.waiting: tuple[JudgeRequest, list[int], list[Subject]] | None = None
        self.requests = 0
        self.done: dict[int, Outcome] = {}
        self.by_id: dict[str, int] = {}
        self.items = case.all_assertions()
        called = set(self.view.steps(None)[0].where)
        if case.strip_server_prefix:
            self.items = [(turn, _strip_prefixes(check, called)) for turn, check in self.items]
        for number, (_, check) in enumerate(self.items):
            if check.id is not None:
                self.by_id.setdefault(check.id, number)

    def blocked(self, number: int) -> str | None:
        """'waiting' while a dependency is pending, a skip reason if one did not pass or the check's
        precondition does not hold, else None."""
        turn, check = self.items[number]
        if check.when is not None and self.missing_turn(turn) is None:
            why = unmet(check.when, self.view.steps(turn)[2])
            if why is not None:
                return f"skipped: when: {why}"
        for wanted in check.depends_on:
            other = self.by_id.get(wanted)
            if other is None:
                return f"depends on unknown id {wanted!r}"
            if other not in self.done:
                return "waiting"
            if self.done[other].status is not Status.PASS:
                return f"skipped: depends on {wanted}, which did not pass ({self.done[other].status.value})"
        return None

    def settle(self, number: int, outcome: Outcome) -> None:
        self.done[number] = outcome

    def missing_turn(self, turn: int | None) -> Failure | None:
        if turn is None or turn < len(self.run.turns):
            return None
        return Failure(
            kind=FailureKind.EXPECTATION,
            message=f"turn {turn + 1} was not recorded (the run has {len(self.run.turns)} turns)",
            expected=turn + 1,
            actual=len(self.run.turns),
        )

    def step(self) -> bool:
        """Evaluate everything ready: deterministic checks, then one judge batch. False when nothing moved."""
        moved = False
        judge_ready: list[int] = []
        for number, (turn, check) in enumerate(self.items):
            if number in self.done:
                continue
            block = self.blocked(number)
            if block == "waiting":
                continue
            if block is not None:
                self.settle(number, _skipped(check, turn, block))
            elif isinstance(check, JudgeCheck):
                judge_ready.append(number)
                continue
            else:
                verdict = self.missing_turn(turn) or _check(check, turn, self.view, self.scope)
                self.settle(number, _outcome(check, turn, verdict))
            moved = True
        if judge_ready:
            self.ask_judge(judge_ready)
            moved = True
        return moved

    def ask_judge(self, numbers: list[int]) -> None:
        """Settle what needs no judge; hold the rest as the question the judge is asked next."""
        subjects: list[Subject] = []
        asked: list[int] = []
        for number in numbers:
            turn, check = self.items[number]
            assert isinstance(check, JudgeCheck)
            missing = self.missing_turn(turn)
            target = missing or (_target_text(check, turn, self.view) if check.target_node else None)
            if isinstance(target, Failure) or (target is None and self.view.no_reply):
                self.settle(number, _outcome(check, turn, target or NO_REPLY))
                continue
            answer = target if target is not None else self.view.reply_turn(turn).reply
            subjects.append(Subject(check, None if answer == self.run.final.reply else answer))
            asked.append(number)
        if not subjects:
            return
        if not self.judged:
            for number in asked:
                turn, check = self.items[number]
                self.settle(number, _outcome(check, turn, NotEvaluated("no judge configured")))
            return
        _, _, calls = self.view.steps(None)
        prompt = self.case.turns[0].user if self.case.turns else ""
        facts = RunFacts(self.run.final.reply, prompt, calls, _catalog(self.run))
        self.waiting = (build_request(subjects, facts, self.case.judge_context), asked, subjects)
        self.requests += 1

    def question(self) -> JudgeRequest | None:
        """Evaluate every check that is ready; the judge batch that must be answered before any more can
        be, or None once every check has its outcome."""
        while self.waiting is None and len(self.done) < len(self.items) and self.step():
            pass
        return self.waiting[0] if self.waiting else None

    def answer(self, reply: str | Exception) -> None:
        """Settle the checks of the pending question with the judge's reply, or with its failure (the judge
        is outside toolproof: its failure is a verdict, not a crash)."""
        assert self.waiting is not None, "answer() without a question()"
        request, asked, subjects = self.waiting
        self.waiting = None
        if isinstance(reply, Exception):
            failure = Failure(
                kind=FailureKind.TRANSPORT, message=f"the judge failed: {type(reply).__name__}: {reply}"
            )
            results: list[Failure | None] = [failure] * len(subjects)
        else:
            results = verdicts(request, subjects, reply)
        for number, result in zip(asked, results, strict=True):
            turn, check = self.items[number]
            self.settle(number, _outcome(check, turn, result))

    def result(self) -> Evaluation:
        """The evaluation, once `question()` has returned None."""
        if self.question() is not None:
            raise RuntimeError("result() before every judge question was answered")
        for number, (turn, check) in enumerate(self.items):
            if number not in self.done:
                self.settle(number, _skipped(check, turn, "skipped: its dependencies never resolved"))
        warnings = [
            f"context variable {name} is hidden by the built-in of that name"
            for name in shadowed(self.case.context)
        ]
        warnings.extend(warning for warning in self.scope.warnings if warning not in warnings)
        outcomes = tuple(self.done[number] for number in range(len(self.items)))
        extracted = extract(self.case.extract, self.run.final.reply)
        return Evaluation(self.case, self.run, outcomes, tuple(warnings), self.requests, extracted)


def _catalog(run: Transcript) -> list[dict[str, Any]]:
    """The tool catalog a live run recorded (`metadata["tools"]`), for judges that are shown it."""
    tools = run.metadata.get("tools")
    return [tool for tool in tools if isinstance(tool, dict)] if isinstance(tools, list) else []


def _skipped(check: Assertion, turn: int | None, reason: str) -> Outcome:
    label = describe(check) if turn is None else f"turn {turn + 1}: {describe(check)}"
    return Outcome(check, turn, label, Status.SKIP, reason=reason)


def evaluate(case: AgentCase, run: Transcript, *, clock: Clock, judge: Judge | None = None) -> Evaluation:
    """Every check of `case` over `run`. Judge checks go to `judge` in one batched request (more only when a
    judge check depends on a check that depends on another judge check); without a judge they are not
    evaluated."""
    evaluating = Evaluating(case, run, clock, judged=judge is not None)
    while (request := evaluating.question()) is not None:
        assert judge is not None
        try:
            reply: str | Exception = judge(request)
        except Exception as error:  # the judge is outside toolproof: its failure is a verdict, not a crash
            reply = error
        evaluating.answer(reply)
    return evaluating.result()
