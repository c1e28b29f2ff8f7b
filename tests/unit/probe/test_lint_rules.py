"""Every lint rule: a tool list that triggers it and a close one that does not."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from toolproof.probe import lint_rules
from toolproof.probe.lint_rules import RULE_CODES, Finding, Severity, grade, lint_tools
from toolproof.probe.lint_rules.flows import strongly_connected

GOOD_DESCRIPTION = "Looks up the weather for a city and returns the forecast as text."


def tool(name: str = "get_weather", description: str = GOOD_DESCRIPTION, **schema: Any) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object", **schema}}


def prop(kind: str = "string", description: str = "the city to look up", **extra: Any) -> dict[str, Any]:
    return {"type": kind, "description": description, **extra}


def city(**extra: Any) -> dict[str, Any]:
    return {"properties": {"city": prop(examples=["Paris"], **extra)}, "required": ["city"]}


def many(count: int, description: str = GOOD_DESCRIPTION) -> list[dict[str, Any]]:
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
             "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
             "uniform", "victor", "whiskey"]  # fmt: skip
    return [tool(f"get_{words[i]}", f"Returns the {words[i]} record {description}") for i in range(count)]


def nested(depth: int) -> dict[str, Any]:
    inner: dict[str, Any] = {"type": "string", "description": "leaf value"}
    for level in range(depth - 1):
        inner = {"type": "object", "description": f"level {level}", "properties": {"x": inner}}
    return {"properties": {"x": inner}}


TOKEN_HEAVY = "x" * 4200
SIMILAR = "Returns the current weather for the given city as plain text."

# code -> (triggering tool list, clean tool list)
CASES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "E101": ([tool(description="")], [tool()]),
    "E102": (
        [tool(properties={"city": {"description": "the city"}})],
        [tool(properties={"city": prop(examples=["x"])})],
    ),
    "E103": (
        [tool(properties={"city": {"type": "string", "examples": ["x"]}}, required=["city"])],
        [tool(**city())],
    ),
    "E105": (
        [
            tool(
                "get_order",
                "Returns the order for a reference code.",
                properties={"order_ref": prop(description="order reference")},
            ),
            tool(
                "cancel_order",
                "Cancels an order and returns the receipt.",
                properties={"order_ref": prop(description="order reference")},
            ),
        ],
        [
            tool(
                "get_order",
                "Returns the order for a reference code.",
                properties={"order_ref": prop(description="order reference", pattern="^O[0-9]+$")},
            ),
            tool(
                "cancel_order",
                "Cancels an order and returns the receipt.",
                properties={"order_ref": prop(description="order reference", pattern="^O[0-9]+$")},
            ),
        ],
    ),
    "E107": (
        [
            tool(
                "get_order",
                "Returns the order for a reference code.",
                properties={"order_ref": prop(description="order reference", pattern="^O")},
            ),
            tool(
                "cancel_order",
                "Cancels an order and returns the receipt.",
                properties={"order_ref": prop(description="order reference", pattern="^O")},
            ),
        ],
        [
            tool(
                "get_order",
                "Returns the order for a reference code.",
                properties={"order_ref": prop(description="order reference", pattern="^O")},
            ),
            tool(
                "cancel_order",
                "Cancels an order and returns the receipt.",
                properties={"ticket_code": prop(description="order reference", pattern="^O")},
            ),
        ],
    ),
    "E112": (
        [tool(properties={"api_key": prop(description="the key")})],
        [tool(properties={"api_key": prop(description="the key", writeOnly=True)})],
    ),
    "E113": ([tool(), tool()], [tool(), tool("get_forecast")]),
    "W101": ([tool(description="helper")], [tool()]),
    "W102": (
        [tool(properties={"units": {"type": "string", "enum": ["c", "f"]}})],
        [tool(properties={"units": prop(description="c or f", enum=["c", "f"])})],
    ),
    "W103": ([tool(properties={"city": prop()}, required=["city"])], [tool(**city())]),
    "W104": (
        [tool(properties={"data": {"type": "string"}})],
        [tool(properties={"data": prop(description="raw city data")})],
    ),
    "W105": ([tool("a_weather", SIMILAR), tool("b_weather", SIMILAR + " ")], [tool("a", SIMILAR), tool()]),
    "W106": (
        [tool(f"t{i}", GOOD_DESCRIPTION + TOKEN_HEAVY[:3000]) for i in range(12)],
        [tool(f"t{i}", GOOD_DESCRIPTION) for i in range(12)],
    ),
    "W108": (
        [tool("delete_city", "Looks up a city and returns it.")],
        [tool("delete_city", "Deletes the city and returns what it removed.")],
    ),
    "W109": (
        [tool(properties={"email": prop(description="address to write to")})],
        [tool(properties={"email": prop(description="address to write to", examples=["a@b.c"])})],
    ),
    "W110": (
        [
            tool(
                description="Returns the forecast.",
                properties={"alpha": prop(), "beta": prop(), "gamma": prop()},
            )
        ],
        [
            tool(
                description="Returns the forecast for alpha, beta and gamma.",
                properties={"alpha": prop(), "beta": prop(), "gamma": prop()},
            )
        ],
    ),
    "W111": ([tool(description="Returns a value.")], [tool()]),
    "W112": (many(21), many(20)),
    "W114": ([tool(**nested(4))], [tool(**nested(3))]),
    "W115": ([tool(description=GOOD_DESCRIPTION + TOKEN_HEAVY)], [tool()]),
    "W116": ([tool(description="Looks up the weather for a city quickly.")], [tool()]),
}


def codes(tools: list[dict[str, Any]]) -> set[str]:
    return {finding.code for finding in lint_tools(tools)}


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_triggers_and_stays_quiet(code: str) -> None:
    triggering, clean = CASES[code]
    assert code in codes(triggering)
    assert code not in codes(clean)


def test_every_schema_code_is_covered() -> None:
    calling = {"E301", "W107"}  # need a server: tests/integration/probe
    assert set(RULE_CODES) - calling == set(CASES) | {"W103"}


def test_overloaded_tool_is_the_second_w103_rule() -> None:
    busy = tool(description="It can get or list or create or update records and returns them.")
    rules = {finding.rule for finding in lint_tools([busy]) if finding.code == "W103"}
    assert rules == {"overloaded-tool"}
    calm = tool(description="It can get or list records and returns them.")
    assert "W103" not in codes([calm])


@pytest.mark.parametrize("name", ["token", "access_token", "refresh_token", "api_token", "password"])
def test_e112_flags_auth_tokens(name: str) -> None:
    assert "E112" in codes([tool(properties={name: prop(description="credential")})])


@pytest.mark.parametrize("name", ["max_tokens", "page_token", "token_count"])
def test_e112_leaves_counting_tokens(name: str) -> None:
    assert "E112" not in codes([tool(properties={name: prop(kind="integer", description="how many")})])


def test_e105_once_per_field_and_consumer() -> None:
    shared = {"zone_ref": prop(description="a zone"), "zone_refs": prop(description="zones")}
    tools = [
        tool("get_zone", "Returns a zone.", properties=shared),
        tool("set_zone", "Sets a zone.", properties=shared),
    ]
    e105 = [f for f in lint_tools(tools) if f.code == "E105"]
    assert len(e105) == len({(f.tool, f.field, f.message) for f in e105})


def test_e107_is_a_warning_under_its_code() -> None:
    triggering, _ = CASES["E107"]
    (cycle,) = [finding for finding in lint_tools(triggering) if finding.code == "E107"]
    assert cycle.severity is Severity.WARNING


def test_grade_skips_codes_then_promotes_warnings() -> None:
    findings = lint_tools([tool(description="helper")])
    assert {f.code for f in grade(findings, skip=frozenset({"W101"}), strict=False)} == {"W111", "W116"}
    assert {f.severity for f in grade(findings, skip=frozenset(), strict=True)} == {Severity.ERROR}


def test_a_finding_on_one_tool_never_touches_another() -> None:
    bad = tool("broken", "", properties={"x": {}})
    alone = [f for f in lint_tools([tool()]) if f.tool == "get_weather"]
    together = [f for f in lint_tools([tool(), bad]) if f.tool == "get_weather"]
    assert alone == together


def test_findings_are_in_tool_then_schema_order() -> None:
    tools = [
        tool("first", "", properties={"b": {}, "a": {}}),
        tool("second", ""),
    ]
    ordered = [(f.tool, f.code, f.field) for f in lint_tools(tools) if f.code in ("E101", "E102")]
    assert ordered == [
        ("first", "E101", "description"),
        ("first", "E102", "args.b.type"),
        ("first", "E102", "args.a.type"),
        ("second", "E101", "description"),
    ]


def test_tools_that_share_a_name_are_a_finding_not_a_crash() -> None:
    def tool(name: str, field: str) -> dict[str, object]:
        schema = {"type": "object", "properties": {field: {"type": "string"}}}
        return {"name": name, "description": "Reads a record by its reference.", "inputSchema": schema}

    findings = lint_tools([tool("a", "user_ref"), tool("a", "other"), tool("b", "user_ref")])
    assert "E113" in {finding.code for finding in findings}


def linked(name: str, field: str) -> dict[str, Any]:
    return tool(name, "Returns the order for a reference code.", properties={field: prop(pattern="^O")})


def test_e107_once_per_strongly_connected_group() -> None:
    tools = [linked(f"a{i}", "order_ref") for i in range(12)] + [
        linked(f"b{i}", "ticket_code") for i in range(3)
    ]
    cycles = [finding.message for finding in lint_tools(tools) if finding.code == "E107"]
    assert cycles == [
        "Circular dependency between a0, a1, a10, a11, a2, a3, a4, a5, a6, a7 and 2 more: agents may loop.",
        "Circular dependency between b0, b1, b2: agents may loop.",
    ]
    assert not [finding for finding in lint_tools(tools[:1]) if finding.code == "E107"]


def test_strongly_connected_groups() -> None:
    graph = {"a": ["b"], "b": ["c", "d"], "c": ["a"], "d": ["e"], "e": ["d"], "f": ["f"], "g": ["a"]}
    groups = sorted(sorted(group) for group in strongly_connected(graph))
    assert groups == [["a", "b", "c"], ["d", "e"], ["f"], ["g"]]


def test_a_skipped_rule_never_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(tools: Sequence[dict[str, Any]]) -> Iterator[Finding]:
        raise AssertionError("a skipped rule ran")

    monkeypatch.setattr(lint_rules, "LIST_RULES", ((never, frozenset({"E107"})),))
    assert "W116" in {
        finding.code
        for finding in lint_tools([tool(description="Nothing said here about it.")], frozenset({"E107"}))
    }
    with pytest.raises(AssertionError, match="a skipped rule ran"):
        lint_tools([tool()])


def test_every_rule_declares_the_codes_it_reports() -> None:
    for rules, lists in ((lint_rules.TOOL_RULES, False), (lint_rules.LIST_RULES, True)):
        for rule, declared in rules:
            for triggering, _ in CASES.values():
                found = rule(triggering) if lists else (f for item in triggering for f in rule(item))
                assert {finding.code for finding in found} <= declared, rule.__name__


EXPAND_LINK = (  # duckduckgo-mcp-server's expand_link, as its tools/list gives it
    "Expand a shortened ref://<id> link token from search results back into the full URL. Search results "
    "replace very long URLs with short ref:// tokens to save space. fetch_content accepts those tokens "
    "directly, so only call this when you need the real URL, for example to show or cite a link to the "
    "user. Never present a ref:// token to the user as if it were a URL.\n\n    Args:\n        token: A "
    "ref://<id> token exactly as it appeared in search results (the bare id is also accepted).\n    "
)


@pytest.mark.parametrize(
    ("description", "token"),
    [
        (EXPAND_LINK, {"title": "Token", "type": "string"}),
        (GOOD_DESCRIPTION, prop(description="A ref://<id> token exactly as it appeared in search results.")),
        (GOOD_DESCRIPTION, prop(description="The page token from the previous call, for the next page.")),
        (GOOD_DESCRIPTION, prop(description="The CSRF token of the form.")),
    ],
)
def test_e112_leaves_tokens_described_as_no_credential(description: str, token: dict[str, Any]) -> None:
    assert "E112" not in codes([tool("expand_link", description, properties={"token": token})])


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("token", "The Slack bot OAuth token used to post the message."),
        ("token", "Your personal access token."),
        ("api_key", "The key for the next page of the link service."),
        ("password", "The password of the account."),
        ("client_secret", "The client secret."),
    ],
)
def test_e112_flags_credentials_whatever_the_tool_says(name: str, description: str) -> None:
    schema = {name: {"type": "string", "description": description}}
    assert "E112" in codes([tool("expand_link", EXPAND_LINK, properties=schema)])


def test_e112_flags_a_token_nothing_explains() -> None:
    assert "E112" in codes([tool(properties={"token": {"type": "string"}})])
