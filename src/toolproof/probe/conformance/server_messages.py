"""What the server sent on its own during the probe: log messages, and the sampling and elicitation requests
its tools made (the link answers them; see wire), and the log messages and progress each tool call sent while
it was in flight. Each is "not applicable" when the server sent none."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import mcp_types as types
from pydantic import BaseModel, ValidationError

from toolproof.probe.conformance.checks import (
    ProbedServer,
    RequirementResult,
    failed,
    judged,
    passed,
    skipped,
)
from toolproof.probe.conformance.tool_calls import none_called, progress_token

PRIMITIVE = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}
DEFAULTS = "elicitation defaults match their types (SEP-1034)"
ENUMS = "elicitation enums are well-formed (SEP-1330)"
LOGGED = "a tool's log messages arrive during its call"
NO_LOG_UNASKED = ("server-stateless/sep-2575-server-no-log-without-loglevel",)  # the 2026-07-28 era's rule
PROGRESSED = "a tool's progress arrives during its call"


def _sent(server: ProbedServer, method: str) -> list[dict[str, Any]]:
    return [m.get("params") or {} for m in server.link.seen if m.get("method") == method]


def _well_formed(
    check: str, section: str, sent: list[dict[str, Any]], model: type[BaseModel], what: str
) -> RequirementResult:
    if not sent:
        return skipped(check, section, f"the server sent no {what} during the probe")
    problems = []
    for params in sent:
        try:
            model.model_validate(params)
        except ValidationError as invalid:
            problem = invalid.errors()[0]
            problems.append(f"{'.'.join(map(str, problem['loc']))}: {problem['msg']}")
    if problems:
        return failed(check, section, "; ".join(problems[:3]))
    return passed(check, section, f"{len(sent)} received")


def server_messages(server: ProbedServer) -> list[RequirementResult]:
    logs = _sent(server, "notifications/message")
    check, section = "log messages are well-formed", "server/utilities/logging"
    logged = _well_formed(check, section, logs, types.LoggingMessageNotificationParams, "log message")
    if logs and "logging" not in server.capabilities:
        logged = failed(check, section, f"{len(logs)} log message(s) sent without declaring logging")
    verdicts = [
        logged,
        _well_formed(
            "sampling requests are well-formed",
            "client/sampling#creating-messages",
            _sent(server, "sampling/createMessage"),
            types.CreateMessageRequestParams,
            "sampling request",
        ),
        _well_formed(
            "elicitation requests are well-formed",
            "client/elicitation#form-mode-elicitation-requests",
            _sent(server, "elicitation/create"),
            types.ElicitRequestFormParams,
            "form elicitation request",
        ),
    ]
    forms = [
        p.get("requestedSchema")
        for p in _sent(server, "elicitation/create")
        if p.get("mode", "form") == "form"
    ]
    fields = [
        (name, f)
        for form in forms
        if isinstance(form, dict)
        for name, f in (form.get("properties") or {}).items()
        if isinstance(f, dict)
    ]
    verdicts += during_calls(server)
    section = "client/elicitation#requested-schema"
    if not fields:
        reason = "the server asked for no form elicitation during the probe"
        return [*verdicts, skipped(DEFAULTS, section, reason), skipped(ENUMS, section, reason)]
    defaults = [f"{name}: {p}" for name, f in fields if "default" in f and (p := default_problem(f))]
    with_defaults = [name for name, f in fields if "default" in f]
    none = "no field of the forms asked for has a default"
    verdicts.append(judged(DEFAULTS, section, defaults, with_defaults, none))
    enums = [name for name, f in fields if enum_kind(f)]
    bad = [f"{name}: {p}" for name, f in fields if enum_kind(f) and (p := enum_problem(f))]
    verdicts.append(judged(ENUMS, section, bad, enums, "no field of the forms asked for is an enum"))
    return verdicts


def default_problem(field: dict[str, Any]) -> str:
    """SEP-1034: a default has the field's type (and is one of its enum values)."""
    default, kind = field["default"], field.get("type")
    allowed = PRIMITIVE.get(str(kind))
    if allowed is None:
        return f"a default on a field of type {kind!r}"
    if (isinstance(default, bool) and kind != "boolean") or not isinstance(default, allowed):
        return f"default {default!r} is not a {kind}"
    if "enum" in field and default not in field["enum"]:
        return f"default {default!r} is not one of its enum values"
    return ""


def enum_kind(field: dict[str, Any]) -> str:
    if "enum" in field or "oneOf" in field:
        return "single"
    items = field.get("items")
    if field.get("type") == "array" and isinstance(items, dict) and ("enum" in items or "anyOf" in items):
        return "multi"
    return ""


def _options_problem(options: Any, key: str) -> str:
    if not isinstance(options, list) or not options:
        return f"{key} is not a non-empty list"
    if key in ("oneOf", "anyOf"):
        if not all(isinstance(o, dict) and isinstance(o.get("const"), str) and "title" in o for o in options):
            return f"each {key} option needs a string const and a title"
    elif not all(isinstance(o, str) for o in options):
        return f"{key} values must be strings"
    return ""


def enum_problem(field: dict[str, Any]) -> str:
    """SEP-1330: the single-select (enum, oneOf, legacy enumNames) and multi-select (array of enum or anyOf)
    forms of an enum field are well-formed."""
    if enum_kind(field) == "multi":
        items = field["items"]
        key = "enum" if "enum" in items else "anyOf"
        return _options_problem(items[key], key)
    if field.get("type") != "string":
        return f"a single-select enum must be of type string, not {field.get('type')!r}"
    key = "enum" if "enum" in field else "oneOf"
    if problem := _options_problem(field[key], key):
        return problem
    names = field.get("enumNames")
    if names is not None and (not isinstance(names, list) or len(names) != len(field.get("enum") or [])):
        return "enumNames must list one name per enum value"
    return ""


def _counts(found: dict[str, int]) -> str:
    return ", ".join(f"{name}: {count}" for name, count in sorted(found.items()))


def _logged(server: ProbedServer, logged: dict[str, int], called: str, section: str) -> RequirementResult:
    """In the 2026-07-28 era only the tool calls ask for log messages (`io.modelcontextprotocol/logLevel`), so
    one outside their spans answers a request that did not ask, or comes after the call's answer."""
    inside = {index for start, end in server.spans.values() for index in range(start, end)}
    outside = [
        index
        for index, message in enumerate(server.link.seen)
        if message.get("method") == "notifications/message" and index not in inside
    ]
    if server.link.modern and outside:
        problem = (
            f"{len(outside)} log message(s) outside the tool calls that asked for them: a request without "
            f"{types.LOG_LEVEL_META_KEY} MUST get none, and a call's come before its answer"
        )
        return replace(failed(LOGGED, section, problem), official=NO_LOG_UNASKED)
    if not logged:
        verdict = skipped(LOGGED, section, f"no tool called sent a log message during its call ({called})")
    else:
        verdict = passed(LOGGED, section, _counts(logged))
    return replace(verdict, official=NO_LOG_UNASKED) if server.link.modern else verdict


def during_calls(server: ProbedServer) -> list[RequirementResult]:
    """How many log messages and progress notifications each tool the probe called sent while its call was in
    flight (the official suite's fixtures send three of each; a server's own tools send what they send), and
    no progress for a call after its answer (progress stops when the request completes)."""
    logging_section, progress_section = (
        "server/utilities/logging",
        "basic/utilities/progress#behavior-requirements",
    )
    if why_not := none_called(server):
        return [skipped(LOGGED, logging_section, why_not), skipped(PROGRESSED, progress_section, why_not)]
    seen, called = server.link.seen, ", ".join(sorted(server.called))
    logged: dict[str, int] = {}
    progressed: dict[str, int] = {}
    late: dict[str, int] = {}
    for name, (start, end) in server.spans.items():
        token = progress_token(name)
        logs = [m for m in seen[start:end] if m.get("method") == "notifications/message"]
        ours = [
            index
            for index, m in enumerate(seen)
            if m.get("method") == "notifications/progress"
            and (m.get("params") or {}).get("progressToken") == token
        ]
        if logs:
            logged[name] = len(logs)
        if during := [index for index in ours if start <= index < end]:
            progressed[name] = len(during)
        if after := [index for index in ours if index >= end]:
            late[name] = len(after)
    verdicts = [_logged(server, logged, called, logging_section)]
    if late:
        problem = (
            f"progress after the tool's answer ({_counts(late)}): it MUST stop when the request completes"
        )
        verdicts.append(failed(PROGRESSED, progress_section, problem))
    elif progressed:
        verdicts.append(passed(PROGRESSED, progress_section, _counts(progressed)))
    else:
        reason = f"no tool called reported progress during its call ({called})"
        verdicts.append(skipped(PROGRESSED, progress_section, reason))
    return verdicts
