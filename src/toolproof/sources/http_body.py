"""What an HTTP target sends and what it answered, without the network. Pure.

Request bodies are JSON templates filled value by value (never by pasting text into JSON): in every string
value, `{NAME}` is replaced by the variable NAME; a string that is exactly one placeholder becomes the
variable's value itself (a number stays a number, an object an object). Responses are read as Mibo reads an
agent's answer: the reply at the response path (else the first of `text`, `message`, `content`, `output`,
`answer`, `response`, else the whole body), tool calls and nodes from the inline trace (a canonical `spans`
list, or the Custom API / n8n / Flowise shapes, see `sources/traces/mibo.py`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from toolproof.model.target import HttpTarget
from toolproof.model.transcript import Node, ToolCall
from toolproof.sources.traces.mibo import read_canonical, read_legacy
from toolproof.sources.traces.shapes import mibo_canonical
from toolproof.sources.traces.values import lookup

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class TemplateError(ValueError):
    """A body template names a variable nobody provides."""


def fill_template(template: Any, variables: Mapping[str, Any]) -> Any:
    """`template` with every `{NAME}` in its string values replaced from `variables`, recursively.

    Mapping keys are left alone. Raises TemplateError naming the first unknown placeholder and where it is.
    """
    return _fill(template, variables, "body")


def _fill(value: Any, variables: Mapping[str, Any], where: str) -> Any:
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole:
            return _variable(whole.group(1), variables, where)
        return _PLACEHOLDER.sub(lambda match: _text(_variable(match.group(1), variables, where)), value)
    if isinstance(value, Mapping):
        return {key: _fill(item, variables, f"{where}.{key}") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_fill(item, variables, f"{where}[{index}]") for index, item in enumerate(value)]
    return value


def _variable(name: str, variables: Mapping[str, Any], where: str) -> Any:
    if name not in variables:
        known = ", ".join(sorted(variables))
        raise TemplateError(f"{where}: unknown placeholder {{{name}}} (known: {known})")
    return variables[name]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def template_variables(
    context: Mapping[str, Any], user: str, request_id: str, session_id: str
) -> dict[str, Any]:
    """The variables of one request: the case's context, then the built-ins (which win on a clash)."""
    return {
        **context,
        "user_message": user,
        "input": user,
        "request_id": request_id,
        "external_id": request_id,
        "session_id": session_id,
    }


def decode_body(content: bytes, content_type: str) -> Any:
    """A response body: decoded JSON when it is JSON (whatever the content type says), else its text."""
    text = content.decode("utf-8", errors="replace")
    if "json" in content_type or text.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def read_response(
    body: Any, target: HttpTarget, source: str
) -> tuple[str, tuple[ToolCall, ...], tuple[Node, ...]]:
    """The reply text, tool calls and nodes in one response body.

    Raises TraceError (from the trace readers) when an inline canonical trace is malformed.
    """
    platform = None if target.platform == "auto" else target.platform
    trace = body if target.trace_path is None else lookup(body, target.trace_path)
    found = (
        read_canonical(trace, source).final
        if mibo_canonical(trace)
        else read_legacy({"data": trace}, source, platform=platform).final
    )
    reply = found.reply
    if target.response_path or target.trace_path is not None:
        answer_platform = "custom" if target.response_path else platform
        reply = read_legacy({"data": body}, source, answer_platform, target.response_path).final.reply
    return reply, found.calls, found.nodes
