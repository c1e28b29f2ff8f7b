"""toolproof's own scenario format: the examples load, every check key reaches the vocabulary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.unit.agent.builders import call, conversation, evaluate_case, load_file, node, turn, workflow

from toolproof.load import scenario_file
from toolproof.load.errors import LoadError
from toolproof.model.result import Status
from toolproof.model.scenario import (
    AgentCase,
    AnyMatcher,
    CallCheck,
    ContainsMatcher,
    DateMatcher,
    ExactMatcher,
    FieldCheck,
    GuardrailCheck,
    JsonPathCheck,
    JudgeCheck,
    LatencyCheck,
    OneOfMatcher,
    RegexCheck,
    RegexMatcher,
    SchemaCheck,
    SchemaMatcher,
    SequenceCheck,
    StatusCheck,
    TextCheck,
    TextMatcher,
    TokenLimitCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)

EXAMPLE = Path(__file__).parents[3] / "examples" / "agent" / "toolproof" / "support_agent.yaml"


def load(data: dict[str, Any]) -> AgentCase:
    (case,) = scenario_file.load(data, Path("case.yaml"))
    assert isinstance(case, AgentCase), case
    return case


def error(data: dict[str, Any]) -> LoadError:
    found = scenario_file.load(data, Path("case.yaml"))
    assert found and isinstance(found[0], LoadError), found
    return found[0]


def test_the_example_loads_with_positions() -> None:
    refund, booking = load_file(EXAMPLE, scenario_file.load)
    assert isinstance(refund, AgentCase) and isinstance(booking, AgentCase)
    assert (refund.name, refund.id, refund.source.line) == ("refund for a double charge", "refund", 4)
    assert [t.user for t in refund.turns][1] == "The order number is ORD-9921"
    assert refund.context["CUSTOMER"] == {"id": "C-17", "tier": "gold"}
    first = refund.assertions[0]
    assert isinstance(first, CallCheck) and first.id == "refunded" and first.line == 22
    assert booking.source.document == 1 and booking.turns[0].user == "Book a table for four tomorrow at 8pm"


@pytest.mark.parametrize(
    ("item", "kind", "fields"),
    [
        ({"called": "t"}, CallCheck, {"name": "t", "condition": "called", "level": "tool"}),
        ({"not_called": "t"}, CallCheck, {"condition": "not_called"}),
        ({"not_called": ["a", "b"]}, ToolsNotCalled, {"tools": ("a", "b")}),
        ({"count": {"tool": "t", "min": 1, "max": 3}}, CallCheck, {"min_count": 1, "max_count": 3}),
        ({"count": {"tool": "t", "exactly": 2}}, CallCheck, {"count": 2, "condition": "count"}),
        ({"tools_called": ["a", "b"]}, ToolsCalled, {"tools": ("a", "b")}),
        ({"tools_not_called": "x"}, ToolsNotCalled, {"tools": ("x",)}),
        ({"sequence": ["a", "b"]}, SequenceCheck, {"mode": "ordered", "sequences": (("a", "b"),)}),
        ({"sequence": {"superset": ["a"]}}, SequenceCheck, {"mode": "superset"}),
        ({"sequence": {"any_of": [["a"], []]}}, SequenceCheck, {"mode": "exact", "sequences": (("a",), ())}),
        ({"not_sequence": {"adjacent": ["a", "b"]}}, SequenceCheck, {"mode": "adjacent", "forbidden": True}),
        (
            {"tool_input": {"tool": "t", "jsonpath": "$.a", "equals": 1}},
            ToolInputCheck,
            {"op": "jsonpath", "value": "$.a", "has_equals": True, "equals": 1},
        ),
        (
            {"reply": {"equals": "ok", "case_sensitive": True, "trim": True}},
            TextCheck,
            {"op": "equals", "values": ("ok",), "ignore_case": False, "trim": True},
        ),
        ({"regex": "x+"}, RegexCheck, {"pattern": "x+", "flavor": "re2"}),
        (
            {"regex": {"pattern": "x", "flavor": "python", "match": False}},
            RegexCheck,
            {"flavor": "python", "should_match": False},
        ),
        ({"jsonpath": "$.a"}, JsonPathCheck, {"mode": "exists"}),
        ({"jsonpath": {"path": "$.a", "exists": False}}, JsonPathCheck, {"mode": "not_exists"}),
        (
            {"field": {"path": "a.b", "matches": {"regex": "^x"}, "not": True}},
            FieldCheck,
            {"negate": True, "expected": RegexMatcher(pattern="^x", flavor="re2")},
        ),
        ({"schema": {"type": "object"}}, SchemaCheck, {"json_schema": {"type": "object"}, "field": None}),
        ({"schema": {"schema": {"type": "array"}, "field": "data"}}, SchemaCheck, {"field": "data"}),
        ({"http_status": 201}, StatusCheck, {"expected": 201}),
        ({"latency": {"max_ms": 250}}, LatencyCheck, {"max_ms": 250.0}),
        ({"tokens": {"max_output": 10}}, TokenLimitCheck, {"max_output": 10, "max_total": None}),
        (
            {"guardrail": {"name": "pii", "triggered": False}},
            GuardrailCheck,
            {"name": "pii", "expected": False},
        ),
        ({"judge": "polite"}, JudgeCheck, {"criteria": "polite", "threshold": None}),
        (
            {
                "judge": {
                    "criteria": "c",
                    "threshold": 0.7,
                    "not": "rude",
                    "grounding": True,
                    "node": "N",
                    "key": "a.b",
                }
            },
            JudgeCheck,
            {"negative_constraints": ("rude",), "grounding": True, "target_node": "N", "output_key": "a.b"},
        ),
        ({"called": "t", "id": "x", "label": "my label"}, CallCheck, {"id": "x", "label": "my label"}),
    ],
)
def test_every_check_key(item: dict[str, Any], kind: type, fields: dict[str, Any]) -> None:
    (check,) = load({"expect": [item, {"tools_called": ["zzz"], "id": "other"}]}).assertions[:1]
    assert isinstance(check, kind)
    for name, value in fields.items():
        assert getattr(check, name) == value, name


@pytest.mark.parametrize(
    "item",
    [
        {"called": "t"},
        {"not_called": ["a", "b"]},
        {"tools_called": "a", "id": "x", "depends_on": "y", "pass_threshold": 1},
        {
            "count": {"tool": "t", "args": {"a": 1, "b": {"contains": "x"}}, "min": 1, "max": 3},
            "label": "l",
            "when": {"tool_called": "t"},
            "pass_threshold": 0.5,
        },
        {
            "node": {"name": "N", "strict": True, "forbidden_args": "p", "calls": [{"called": "t"}]},
            "depends_on": ["y"],
        },
        {"called": {"tool": "t", "forbidden_values": {"q": {"regex": "s"}}, "error": False, "index": 2}},
    ],
)
def test_checks_made_without_their_validator_equal_validated_ones(item: dict[str, Any]) -> None:
    made = load({"expect": [item, {"called": "z", "id": "y"}]}).assertions[0]
    validated = type(made).model_validate(made.model_dump())
    assert made == validated and repr(made) == repr(validated)  # the same values of the same types


def test_matchers() -> None:
    (check,) = load(
        {
            "expect": [
                {
                    "called": {
                        "tool": "t",
                        "args": {
                            "a": 3,
                            "b": {"contains": "x"},
                            "c": {"regex": "^y", "flavor": "js", "ignore_case": True},
                            "d": {"date": "TODAY", "tolerance_minutes": 30},
                            "e": {"date": "2026-03-10"},
                            "f": {"one_of": [1, {"any": True}]},
                            "g": {"any": True, "optional": True},
                            "h": {"schema": {"type": "string"}},
                            "i": {"text": 10},
                            "j": {"expr": "CONCAT('a', 'b')"},
                            "k": {"exact": {"regex": "literal"}},
                            "l": {"plain": "dict"},
                        },
                    }
                }
            ]
        }
    ).assertions
    assert isinstance(check, CallCheck)
    args = check.arguments
    assert args["a"] == ExactMatcher(value=3)
    assert args["b"] == ContainsMatcher(value="x")
    assert args["c"] == RegexMatcher(pattern="^y", flavor="js", ignore_case=True)
    assert args["d"] == DateMatcher(expression="TODAY", tolerance_minutes=30)
    assert args["e"] == DateMatcher(value="2026-03-10")
    assert args["f"] == OneOfMatcher(variants=(ExactMatcher(value=1), AnyMatcher()))
    assert args["g"] == AnyMatcher(optional=True)
    assert args["h"] == SchemaMatcher(json_schema={"type": "string"})
    assert args["i"] == TextMatcher(value=10)
    assert args["j"] == ExactMatcher(expression="CONCAT('a', 'b')")
    assert args["k"] == ExactMatcher(value={"regex": "literal"})
    assert args["l"] == ExactMatcher(value={"plain": "dict"})


def test_node_checks_and_scopes() -> None:
    case = load(
        {
            "turns": [{"user": "hi", "expect": [{"reply": {"contains": "hello"}}]}],
            "expect": [
                {
                    "node": {
                        "name": "Agent",
                        "calls": [{"called": {"tool": "search", "index": 0}}, {"not_called": "delete"}],
                    }
                }
            ],
        }
    )
    good = workflow(node("Agent", "search", "answer"), reply="hello there")
    assert evaluate_case(case, good).status is Status.PASS
    assert (
        evaluate_case(case, workflow(node("Agent", "answer", "search"), reply="hello")).status is Status.FAIL
    )
    flat = conversation(turn(call("search"), reply="hello"))
    assert evaluate_case(case, flat).status is Status.PASS  # a run without nodes stands for the agent node


@pytest.mark.parametrize(
    ("data", "field", "message", "hint"),
    [
        ({"expect": [{"caled": "x"}]}, "expect[0].caled", "unknown check", "did you mean 'called'?"),
        ({"expect": [{"called": "x", "not_called": "y"}]}, "expect[0]", "found 2", None),
        (
            {"expect": [{"called": {"tool": "x", "arg": {}}}]},
            "expect[0].called.arg",
            "unknown key",
            "did you mean 'args'?",
        ),
        ({"expect": [{"count": {"tool": "x"}}]}, "expect[0].count", "give exactly, min or max", None),
        (
            {"expect": [{"sequence": {"exactly": ["a"]}}]},
            "expect[0].sequence.exactly",
            "unknown key",
            "did you mean 'exact'?",
        ),
        ({"expect": [{"regex": {"pattern": "x", "flavor": "perl"}}]}, "expect[0]", "flavor", None),
        ({"expect": [{"http_status": "ok"}]}, "expect[0].http_status", "must be a whole number", None),
        (
            {"expect": [{"judge": {"criteria": "c", "threshold": 2}}]},
            "expect[0].judge.threshold",
            "must be between 0 and 1",
            None,
        ),
        (
            {"expect": [{"called": "x", "depends_on": "nope"}]},
            "expect[0]",
            "depends on unknown id 'nope'",
            None,
        ),
        (
            {"expect": [{"called": "x", "id": "a"}, {"called": "y", "id": "a"}]},
            "expect[1]",
            "duplicate id",
            None,
        ),
        ({"prompt": "a", "turns": [], "expect": []}, "turns", "either prompt or turns", None),
        ({"expect": [], "promt": "x"}, "promt", "unknown key", "did you mean 'prompt'?"),
        (
            {"expect": [{"called": {"tool": "t", "args": {"a": {"regex": "x", "contains": "y"}}}}]},
            "expect[0].called.args.a",
            "a matcher has one of",
            None,
        ),
        ({"prompt": "a", "system": 5}, "system", "must be a string, got a number (5)", None),
        ({"prompt": "a", "context": {1: "x"}}, "context[1]", "a variable's name must be a string", None),
    ],
)
def test_load_errors(data: dict[str, Any], field: str, message: str, hint: str | None) -> None:
    found = error(data)
    assert found.field == field and message in found.message, str(found)
    if hint:
        assert found.hint == hint


def test_error_positions_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "case.yaml"
    path.write_text("name: x\nprompt: hi\nexpect:\n  - called: a\n  - reply: {contans: b}\n")
    (found,) = load_file(path, scenario_file.load)
    assert isinstance(found, LoadError)
    assert (found.line, found.column, found.field) == (5, 13, "expect[1].reply.contans")
    assert found.hint == "did you mean 'contains'?"


def test_detect() -> None:
    assert scenario_file.detect({"expect": []})
    assert scenario_file.detect({"turns": [{"user": "hi"}]})
    assert not scenario_file.detect({"turns": [{"input_utterance": "hi"}]})
    assert not scenario_file.detect({"assert": {"expect": {}}})


def test_servers_and_agent_for_live_runs(tmp_path: Path) -> None:
    from toolproof.load.agent_cases import load_agent_cases

    path = tmp_path / "live.yaml"
    path.write_text(
        "prompt: hi\nexpect: []\n"
        "servers:\n  notes: {command: python, args: [n.py], transport: STDIO}\n"
        "  web: {url: 'http://x/mcp', transport: http}\n"
        "agent: {provider: scripted, max_steps: 3}\n"
        "judge_context: {tool_outputs: true, tool_catalog: true}\n"
    )
    (case,), errors = load_agent_cases([path])
    assert not errors
    assert case.servers["notes"].args == ["n.py"]
    assert case.agent == {"provider": "scripted", "max_steps": 3}
    assert case.judge_context.include_tool_outputs and case.judge_context.include_tool_catalog
    path.write_text(
        "prompt: hi\nexpect: []\nservers:\n  notes: {transport: http}\n  bad name: {command: x}\n"
        "agent: {provider: scripted, max_steps: 0, modle: x}\n"
    )
    _, errors = load_agent_cases([path])
    messages = {(error.field, error.message) for error in errors}
    assert ("servers.notes", "a http server needs a url") in messages
    assert ("servers.bad name", "a server name is letters, digits, '_' and '-' only") in messages
    assert ("agent.max_steps", "must be a whole number >= 1, got 0") in messages
    assert ("agent.modle", "unknown key") in messages


def test_every_check_takes_when_and_pass_threshold() -> None:
    document = {
        "name": "conditional",
        "prompt": "find a laptop",
        "expect": [
            {
                "called": {"tool": "search", "args": {"q": {"contains": "laptop"}}},
                "when": {"tool_called_pattern": "^sea"},
                "pass_threshold": 0.5,
            }
        ],
    }
    (case,) = scenario_file.load(document, Path("c.yaml"))
    assert not isinstance(case, LoadError)
    (check,) = case.assertions
    assert check.when is not None and check.pass_threshold == 0.5
    assert evaluate_case(case, conversation(turn())).status is Status.SKIP
    assert evaluate_case(case, conversation(turn(call("search", {"q": "laptops"})))).status is Status.PASS
    assert evaluate_case(case, conversation(turn(call("search", {"q": "shoes"})))).status is Status.FAIL
    document["expect"][0]["when"] = {"tool_called_pattern": "(?=x)"}
    (error,) = scenario_file.load(document, Path("c.yaml"))
    assert isinstance(error, LoadError) and error.field == "expect[0].when.tool_called_pattern"


@pytest.mark.parametrize(
    ("matcher", "message"),
    [
        ("{date: \"DATE_ADD(TODAY, 1, 'fortnight')\"}", "unknown unit 'fortnight'"),
        ("{expr: ORDR}", "unknown name ORDR (context variables: ORDER)"),
        ('{expr: "NOW(1)"}', "NOW takes (), got 1 arguments"),
        ("{date: 'AT_TIME(TODAY, 9)'}", "time '9' is not HH:MM"),
        ("{date: tomorrow}", "unknown name tomorrow"),
        ("{date: 2026-13-45}", "is not an ISO 8601 date or date-time"),
    ],
)
def test_bad_expressions_are_load_errors_where_they_stand(tmp_path: Path, matcher: str, message: str) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(
        f"prompt: hi\nexpect:\n  - called: {{tool: book, args: {{when: {matcher}}}}}\ncontext: {{ORDER: 1}}\n"
    )
    (found,) = load_file(path, scenario_file.load)
    assert isinstance(found, LoadError), found
    assert (found.file, found.line) == (path, 3)
    assert found.field in ("expect[0].called.args.when.date", "expect[0].called.args.when.expr")
    assert message in found.message
