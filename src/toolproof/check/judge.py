"""Judge checks: one batched request per run, and the verdicts read back from the judge's answer.

The request carries the final answer, the optional context (scenario prompt, tool sequence, tool inputs, tool
outputs for grounding) and every check with an id; each negative constraint is a check of its own. The judge
answers `{"results": [{"id", "pass", "score"?, "reason"}]}`. Checks with a threshold are decided by the score
(in [0, 1]), the others by `pass`. The call to a model is not made here: `Judge` is any callable from
request to answer text (a provider, or a scripted judge in tests).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolproof.check.failures import fail
from toolproof.check.registry import declare
from toolproof.model.result import Failure
from toolproof.model.scenario import JudgeCheck, JudgeContext
from toolproof.model.transcript import ToolCall

SYSTEM_PROMPT = (
    "You evaluate the answer of an AI agent. The user message is a JSON object: `final_answer` is the "
    "agent's final answer, `context` (optional) tells what the agent was asked, which tools it had and "
    "which it used, "
    "and `checks` lists the checks to judge. Judge every check on its own, against the check's `answer` "
    "when it has one, else against `final_answer`; use the context only when it is given. A check with "
    '`scoring: "score"` needs a `score` between 0 and 1 (1 = fully satisfied). A check with '
    '`kind: "constraint"` passes when the answer does NOT do what its prompt describes. Reply with JSON '
    'only, in this shape: {"results": [{"id": "<check id>", "pass": true, "score": 0.9, '
    '"reason": "<one sentence>"}]}.'
)
INVALID_JSON = "Agent check failed: the judge returned invalid JSON for the batched agent checks"
MAX_OUTPUT_CHARS = 4000
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Approved:
    """A judge check that passed, with the judge's reason and score, so that reports can show why."""

    reason: str
    score: float | None = None

    def __str__(self) -> str:
        scored = f"score {self.score:g}" if self.score is not None else ""
        return "; ".join(part for part in (scored, self.reason) if part)


@dataclass(frozen=True)
class JudgeItem:
    """One question put to the judge: a check, or one negative constraint of a check."""

    id: str
    position: int  # which of the request's checks it belongs to
    prompt: str
    scored: bool
    constraint: bool = False


@dataclass(frozen=True)
class JudgeRequest:
    """The one request of a run: a system prompt, the user message (JSON text) and what each id stands for."""

    system: str
    payload: dict[str, Any]
    items: tuple[JudgeItem, ...]

    @property
    def user(self) -> str:
        return json.dumps(self.payload, ensure_ascii=False, indent=2)


Judge = Callable[[JudgeRequest], str]


@dataclass(frozen=True)
class Subject:
    """What one judge check looks at: its check, and its own answer text when not the final answer."""

    check: JudgeCheck
    answer: str | None = None


@dataclass(frozen=True)
class RunFacts:
    """What the request may carry about the run."""

    final_answer: str
    prompt: str = ""
    calls: Sequence[ToolCall] = field(default_factory=tuple)
    tools: Sequence[Mapping[str, Any]] = field(default_factory=tuple)  # the catalog offered to the agent


def label(check: JudgeCheck) -> str:
    """The check's label, else the start of its criteria."""
    if check.label:
        return check.label
    return check.criteria if len(check.criteria) <= 60 else check.criteria[:60] + "…"


# asked out of band: no checker
declare(JudgeCheck, describe=lambda check: f"judge: {label(check)}", looks_at="reply")


def build_request(subjects: Sequence[Subject], facts: RunFacts, context: JudgeContext) -> JudgeRequest:
    """The batched request for all `subjects` of one run."""
    items: list[JudgeItem] = []
    checks: list[dict[str, Any]] = []
    for position, subject in enumerate(subjects):
        check = subject.check
        base = f"agent-check-{position + 1}"
        scored = check.threshold is not None
        entry: dict[str, Any] = {
            "id": base,
            "label": label(check),
            "prompt": check.criteria,
            "kind": "criteria",
            "scoring": "score" if scored else "pass_fail",
        }
        if subject.answer is not None:
            entry["answer"] = subject.answer
        if check.grounding:
            entry["grounding"] = "judge factual claims against context.tool_outputs only"
        checks.append(entry)
        items.append(JudgeItem(base, position, check.criteria, scored))
        for number, constraint in enumerate(check.negative_constraints, 1):
            constraint_id = f"{base}-constraint-{number}"
            item = {
                "id": constraint_id,
                "label": f"{label(check)} / constraint {number}",
                "prompt": constraint,
                "kind": "constraint",
                "scoring": "pass_fail",
            }
            if subject.answer is not None:
                item["answer"] = subject.answer
            checks.append(item)
            items.append(JudgeItem(constraint_id, position, constraint, False, constraint=True))
    payload: dict[str, Any] = {"final_answer": facts.final_answer}
    extra = _context(facts, context, grounding=any(subject.check.grounding for subject in subjects))
    if extra:
        payload["context"] = extra
    payload["checks"] = checks
    return JudgeRequest(SYSTEM_PROMPT, payload, tuple(items))


def _context(facts: RunFacts, context: JudgeContext, *, grounding: bool) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if context.include_prompt and facts.prompt:
        found["scenario_prompt"] = facts.prompt
    if context.include_tool_sequence:
        found["tool_sequence"] = [call.tool for call in facts.calls]
    if context.include_tool_inputs:
        found["tool_inputs"] = [{"tool": call.tool, "arguments": call.arguments} for call in facts.calls]
    if context.include_tool_catalog and facts.tools:
        found["tool_catalog"] = [dict(tool) for tool in facts.tools]
    if grounding or context.include_tool_outputs:
        found["tool_outputs"] = [
            {
                "tool": call.tool,
                "arguments": call.arguments,
                "output": _output_text(call.result),
                "is_error": call.is_error,
            }
            for call in facts.calls
        ]
    return found


def _output_text(result: Any) -> str:
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_OUTPUT_CHARS else text[:MAX_OUTPUT_CHARS] + "…"


def extract_json(text: str) -> Any:
    """The judge's JSON: a fenced ```json block, else the first balanced `{…}`; raises ValueError."""
    fenced = _FENCE.search(text)
    if fenced:
        return json.loads(fenced.group(1))
    start = text.find("{")
    while start >= 0:
        end = _balanced_end(text, start)
        if end is not None:
            try:
                return json.loads(text[start:end])
            except ValueError:
                pass
        start = text.find("{", start + 1)
    raise ValueError("no JSON object in the judge's answer")


def _balanced_end(text: str, start: int) -> int | None:
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _answers(text: str) -> dict[str, Mapping[str, Any]] | None:
    """The judge's results by id, or None when the answer is not the expected JSON shape."""
    try:
        data = extract_json(text)
    except ValueError:
        return None
    results = data.get("results") if isinstance(data, Mapping) else None
    if not isinstance(results, list) or not all(isinstance(item, Mapping) for item in results):
        return None
    return {str(item.get("id")): item for item in results}


def _verdict(item: JudgeItem, check: JudgeCheck, answer: Mapping[str, Any]) -> tuple[bool, str, Any]:
    """(passed, reason, score) for one item; a malformed answer fails it with the reason saying why."""
    reason = str(answer.get("reason") or "").strip()
    if item.scored:
        score = answer.get("score")
        if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
            return (
                False,
                f"the judge gave no numeric score (answer: {json.dumps(dict(answer), default=str)})",
                None,
            )
        if not 0 <= score <= 1:
            return False, f"the judge's score {score} is outside [0, 1]", score
        threshold = check.threshold if check.threshold is not None else 0.0
        return score >= threshold, reason, score
    verdict = answer.get("pass")
    if isinstance(verdict, str) and verdict.lower() in ("true", "false"):
        verdict = verdict.lower() == "true"
    if not isinstance(verdict, bool):
        return (
            False,
            f"the judge gave no pass/fail verdict (answer: {json.dumps(dict(answer), default=str)})",
            None,
        )
    return verdict, reason, None


def verdicts(
    request: JudgeRequest, subjects: Sequence[Subject], answer_text: str
) -> list[Failure | Approved]:
    """One verdict per subject, in order: Approved (with the judge's reason) when it passed, else a Failure
    saying why."""
    answers = _answers(answer_text)
    if answers is None:
        excerpt = answer_text if len(answer_text) <= 300 else answer_text[:300] + "…"
        return [fail(None, INVALID_JSON, actual=excerpt, judge_answer=excerpt) for _ in subjects]
    results: list[Failure | Approved] = []
    for position, subject in enumerate(subjects):
        check = subject.check
        mine = [item for item in request.items if item.position == position]
        main, constraints = mine[0], mine[1:]
        found = answers.get(main.id)
        if found is None:
            results.append(
                fail(
                    None,
                    f'Judge did not return a result for "{label(check)}"',
                    check.criteria,
                    None,
                    check_id=main.id,
                )
            )
            continue
        passed, reason, score = _verdict(main, check, found)
        violated = []
        for item in constraints:
            answer = answers.get(item.id)
            if answer is None:
                violated.append((item, "the judge returned no result for this constraint"))
                continue
            ok, why, _ = _verdict(item, check, answer)
            if not ok:
                violated.append((item, why))
        details: dict[str, Any] = {"check_id": main.id, "reason": reason}
        if score is not None:
            details |= {"score": score, "threshold": check.threshold}
        if passed and not violated:
            results.append(Approved(str(reason or ""), score))
            continue
        parts = []
        if not passed:
            if main.scored and score is not None:
                parts.append(
                    f"score {score:g} is below the threshold {check.threshold:g}"
                    + (f": {reason}" if reason else "")
                )
            else:
                parts.append(reason or f"Agent check failed: {label(check)}")
        for item, why in violated:
            parts.append(f"violated constraint {item.prompt!r}" + (f": {why}" if why else ""))
        details["violated_constraints"] = [item.prompt for item, _ in violated]
        expected = (
            check.criteria if check.threshold is None else f"score >= {check.threshold:g}: {check.criteria}"
        )
        results.append(
            fail(None, "; ".join(parts), expected, score if score is not None else reason, **details)
        )
    return results
