"""Evaluate one agent case over one observed run: every check in dependency order, judge checks batched.

Scopes: a conversation-level check reads the whole run (tool checks: every call of every turn; text and judge
checks: the final reply; status, latency and tokens: every turn); a turn-level check reads its turn only.
A check whose dependency did not pass, or whose precondition (`when`) does not hold over the tool calls of its
scope, is skipped; a check with no data to judge is not evaluated; both are reported and counted apart from
passes and failures. A run that says `no_reply` (an mcp-assert audit log, which records tool calls
only) has no reply to judge: its checks that read the reply are not evaluated.

Each assertion type's checker is looked up in `check.registry` by the assertion's model class; its module is
imported on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolproof.check.evaluation import CheckOutcome, Evaluation
from toolproof.check.extract import extract
from toolproof.check.json_text import as_text
from toolproof.check.preconditions import unmet
from toolproof.check.registry import NotEvaluated, Verdict, describe, registered
from toolproof.check.run_view import RunView, Scoped
from toolproof.core.expressions import Clock, Scope, dot_path, shadowed
from toolproof.model.result import Failure, FailureKind, Status
from toolproof.model.scenario import AgentCase, Assertion, JudgeCheck
from toolproof.model.transcript import Transcript

if TYPE_CHECKING:
    from toolproof.check.judge import Approved, Judge, JudgeRequest, Subject

__all__ = ["CheckOutcome", "Evaluating", "Evaluation", "describe", "evaluate", "first_failure"]

NO_REPLY = NotEvaluated("the run recorded no reply, only tool calls")


def _strip_prefixes(check: Assertion, called: set[str]) -> Assertion:
    """MCPLab's alias rule: a listed `server:tool` becomes `tool` when only `tool` was called."""

    def name(tool: str) -> str:
        if ":" in tool and tool not in called:
            short = tool.rsplit(":", 1)[1]
            if short in called:
                return short
        return tool

    return check.renamed_tools(name)


def _check(check: Assertion, turn: int | None, view: RunView, scope: Scope) -> Verdict:
    """The verdict of one non-judge check, by the checker registered for its type."""
    entry = registered(check)
    if entry.check is None:
        raise TypeError(f"not a deterministic check: {check.kind}")
    if entry.reads_reply and view.no_reply:
        return NO_REPLY
    return entry.check(check, Scoped(view, turn, scope))


def _outcome(check: Assertion, turn: int | None, verdict: Verdict | Approved) -> CheckOutcome:
    label = describe(check) if turn is None else f"turn {turn + 1}: {describe(check)}"
    if verdict is None:
        return CheckOutcome(check, turn, label, Status.PASS)
    if isinstance(verdict, NotEvaluated):
        return CheckOutcome(check, turn, label, Status.SKIP, reason=f"not evaluated: {verdict.reason}")
    if isinstance(verdict, Failure):
        failure = verdict.model_copy(update={"check": check.kind})
        status = Status.FAIL if failure.kind is FailureKind.EXPECTATION else Status.ERROR
        return CheckOutcome(check, turn, label, status, failure)
    return CheckOutcome(check, turn, label, Status.PASS, reason=str(verdict) or None)  # approved by the judge


def _target_text(check: JudgeCheck, turn: int | None, view: RunView) -> str | Failure:
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
        self.view = RunView(run)
        self.scope = Scope(clock, case.context)
        self.judged = judged
        self.waiting: tuple[JudgeRequest, list[int], list[Subject]] | None = None
        self.requests = 0
        self.done: dict[int, CheckOutcome] = {}
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

    def settle(self, number: int, outcome: CheckOutcome) -> None:
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
        from toolproof.check.judge import (  # only for a case with judge checks
            RunFacts,
            Subject,
            build_request,
        )

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
            results: list[Failure | Approved] = [failure] * len(subjects)
        else:
            from toolproof.check.judge import verdicts  # loaded by ask_judge already

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
    """The tool catalog a live run recorded (`Transcript.tools`), for judges that are shown it."""
    return [tool.model_dump() for tool in run.tools or ()]


def _skipped(check: Assertion, turn: int | None, reason: str) -> CheckOutcome:
    label = describe(check) if turn is None else f"turn {turn + 1}: {describe(check)}"
    return CheckOutcome(check, turn, label, Status.SKIP, reason=reason)


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


def first_failure(checks: Sequence[Assertion], run: Transcript, clock: Clock) -> Failure | None:
    """The first failure of deterministic checks over the whole of `run`, in the order written (how an
    mcp-assert `trajectory:` case reads its checks), named by the check's label (its message then starts
    `label: `), else its kind; None when none fails. A check that could not be evaluated does not fail."""
    view = RunView(run)
    scope = Scope(clock, {})
    for check in checks:
        verdict = _check(check, None, view, scope)
        if isinstance(verdict, Failure):
            message = f"{check.label}: {verdict.message}" if check.label else verdict.message
            return verdict.model_copy(update={"check": check.label or check.kind, "message": message})
    return None
