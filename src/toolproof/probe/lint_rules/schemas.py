"""The schema rules: whether input schemas say what to send, and what the tool list costs an agent."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from toolproof.probe.lint_rules.findings import (
    ALL_TOOLS,
    SERVER,
    Finding,
    description_of,
    finding,
    name_of,
    prop_description,
    properties_of,
    required_of,
    token_cost,
)
from toolproof.probe.tools import Tool

GENERIC_NAMES = frozenset(
    [
        "data",
        "value",
        "input",
        "output",
        "payload",
        "info",
        "content",
        "body",
        "params",
        "args",
        "options",
        "config",
        "settings",
        "result",
        "object",
        "item",
        "obj",
        "val",
        "str",
        "num",
    ]
)
SECRET_PATTERNS = (
    "password", "passwd", "secret", "api_key", "apikey", "api-key", "auth_token", "credential",
    "private_key", "privatekey", "access_key", "accesskey", "client_secret", "webhook_secret",
    "bearer", "jwt",
)  # fmt: skip
AUTH_TOKENS = ("auth_token", "access_token", "refresh_token", "bearer_token", "api_token", "id_token")
COUNTING_TOKENS = frozenset(
    [
        "token_budget",
        "token_count",
        "token_limit",
        "token_length",
        "max_tokens",
        "num_tokens",
        "token_usage",
        "total_tokens",
        "context_tokens",
        "prompt_tokens",
        "output_tokens",
        "page_token",
        "next_page_token",
        "cursor_token",
        "pagination_token",
    ]
)
CREDENTIAL_WORDS = re.compile(
    r"\b(?:auth\w*|api[ _-]?key|bearer|credentials?|secrets?|passwords?|oauth|log ?in|sign ?in|jwt|"
    r"personal access|access token)\b",
    re.IGNORECASE,
)
"""What a description calls a credential."""
NOT_CREDENTIAL_WORDS = re.compile(
    r"\bref://|\b(?:links?|references?|pages?|pagination|paginate|cursors?|continuation|csrf|xsrf|"
    r"nonces?|idempotency|sync|tokeniz\w*|tokenis\w*)\b",
    re.IGNORECASE,
)
"""What a description calls a token that opens nothing: a link, a reference, a page, a form's CSRF token."""
USER_FACING = (
    "query", "search", "email", "url", "uri", "phone", "address", "username", "name", "title", "message",
    "prompt", "question", "filter", "sort", "locale", "timezone", "language", "currency", "country", "region",
)  # fmt: skip
LIST_TOKENS = 8000
TOOL_TOKENS = 1000
MAX_TOOLS = 20
MAX_DEPTH = 3


def parameter_rules(tool: Tool) -> Iterator[Finding]:
    """E102, E103, W102, W104 and W103 (unconstrained required string), per property."""
    name, required = name_of(tool), required_of(tool)
    for param, prop in properties_of(tool).items():
        said = prop_description(prop)
        field = f"args.{param}"
        if "type" not in prop:
            yield finding(
                name,
                "E102",
                "untyped-parameter",
                f"Parameter {param!r} has no type: agents will send values of the wrong type.",
                f"{field}.type",
            )
        if param in required and not said:
            yield finding(
                name,
                "E103",
                "undescribed-required-parameter",
                f"Required parameter {param!r} has no description: agents will guess its value.",
                f"{field}.description",
            )
        if param not in required and not said:
            yield finding(
                name,
                "W102",
                "undescribed-optional-parameter",
                f"Optional parameter {param!r} has no description.",
                f"{field}.description",
            )
        if param.lower() in GENERIC_NAMES and not said:
            yield finding(
                name,
                "W104",
                "generic-parameter-name",
                f"Parameter {param!r} has a generic name and no description.",
                field,
            )
        constrained = any(key in prop for key in ("enum", "pattern", "examples", "default"))
        if prop.get("type") == "string" and param in required and not constrained:
            yield finding(
                name,
                "W103",
                "unconstrained-required-string",
                f"Required string parameter {param!r} has no enum, pattern, examples or default: "
                "agents may make values up.",
                field,
            )


def sensitive_parameters(tool: Tool) -> Iterator[Finding]:
    """E112: a credential-named parameter not marked writeOnly. A bare `token` is judged by what the
    parameter's description, then the tool's, says it is: a link, reference, page or CSRF token is no
    credential; one described as authentication, or not described at all, is."""
    for param, prop in properties_of(tool).items():
        lower = param.lower()
        if lower in COUNTING_TOKENS or prop.get("writeOnly") is True:
            continue
        named = any(token in lower for token in AUTH_TOKENS) or any(p in lower for p in SECRET_PATTERNS)
        if named or (lower == "token" and _credential_token(prop_description(prop), description_of(tool))):
            yield finding(
                name_of(tool),
                "E112",
                "secret-parameter",
                f"Parameter {param!r} looks like a secret: mark it writeOnly so agents do not log "
                "or cache it.",
                f"args.{param}",
            )


def _credential_token(*texts: str) -> bool:
    """Whether the first of `texts` that says what kind of token it is calls it a credential (True when
    none says)."""
    for text in texts:
        if CREDENTIAL_WORDS.search(text):
            return True
        if NOT_CREDENTIAL_WORDS.search(text):
            return False
    return True


def _depth(props: Mapping[str, Any], level: int) -> int:
    deepest = level
    for prop in props.values():
        if not isinstance(prop, Mapping):
            continue
        nested = prop.get("properties")
        if isinstance(nested, Mapping) and nested:
            deepest = max(deepest, _depth(nested, level + 1))
        items = prop.get("items")
        inner = items.get("properties") if isinstance(items, Mapping) else None
        if isinstance(inner, Mapping) and inner:
            deepest = max(deepest, _depth(inner, level + 1))
    return deepest


def deep_schema(tool: Tool) -> Iterator[Finding]:
    depth = _depth(properties_of(tool), 1)
    if depth > MAX_DEPTH:
        yield finding(
            name_of(tool),
            "W114",
            "deep-schema",
            f"Input schema is {depth} levels deep: agents struggle beyond {MAX_DEPTH}.",
            "inputSchema",
        )


def costly_tool(tool: Tool) -> Iterator[Finding]:
    tokens = token_cost(tool)
    if tokens > TOOL_TOKENS:
        yield finding(
            name_of(tool),
            "W115",
            "costly-definition",
            f"Tool definition takes ~{tokens} tokens: simplify its schema or description.",
            "token_cost",
        )


def missing_examples(tool: Tool) -> Iterator[Finding]:
    for param, prop in properties_of(tool).items():
        if any(word in param.lower() for word in USER_FACING) and not any(
            key in prop for key in ("examples", "enum", "default")
        ):
            yield finding(
                name_of(tool),
                "W109",
                "missing-examples",
                f"User-facing parameter {param!r} has no examples.",
                f"args.{param}.examples",
            )


def bloated_list(tools: Sequence[Tool]) -> Iterator[Finding]:
    tokens = sum(token_cost(tool) for tool in tools)
    if tokens > LIST_TOKENS:
        yield finding(
            ALL_TOOLS,
            "W106",
            "bloated-list",
            f"The tool list takes ~{tokens} tokens of the agent's context.",
            "schema_size",
        )


def too_many_tools(tools: Sequence[Tool]) -> Iterator[Finding]:
    if len(tools) > MAX_TOOLS:
        yield finding(
            SERVER,
            "W112",
            "too-many-tools",
            f"The server lists {len(tools)} tools: choosing among more than {MAX_TOOLS} is "
            "error-prone for agents.",
            "tool_count",
        )
