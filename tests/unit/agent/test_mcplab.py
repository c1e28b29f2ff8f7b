"""MCPLab scenarios (seeds 000, 001): every snippet as a fixture, with a passing and a failing run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.agent.builders import ScriptedJudge, call, evaluate_case, load_file, only_case, run

from toolproof.load import mcplab
from toolproof.load.agent_cases import CASE_SUFFIXES, load_agent_cases
from toolproof.load.errors import LoadError
from toolproof.load.walk import walk
from toolproof.model.result import Status
from toolproof.model.scenario import AgentCase, JsonPathCheck, RegexCheck, SequenceCheck, TextCheck
from toolproof.model.transcript import Transcript

DATA = Path(__file__).parent / "data" / "mcplab"

REFUND = ("lookup_account", "verify_identity", "process_refund")
CASES: list[tuple[str, Transcript, Transcript, str]] = [
    # fixture, passing run, failing run, the failing run's first message starts with
    (
        "tool_constraints.yaml",
        run(*REFUND),
        run("lookup_account", "delete_account"),
        "Required tool not used: verify_identity",
    ),
    (
        "allowed_sequences.yaml",
        run("lookup_account", "verify_identity", "check_policy", "process_refund"),
        run("lookup_account", "check_policy", "verify_identity", "process_refund"),
        "Tool sequence did not match any allowed sequence",
    ),
    (
        "ordered_sequence.yaml",
        run("lookup_account", "audit", "verify_identity", "process_refund"),
        run("verify_identity", "lookup_account", "process_refund"),
        "Tool sequence order was not satisfied",
    ),
    (
        "response_contains.yaml",
        run(reply="Your Refund Processed today."),
        run(reply="Refund pending."),
        'Response does not contain "refund processed"',
    ),
    (
        "response_not_contains.yaml",
        run(reply="All done."),
        run(reply="Sorry, INTERNAL ERROR."),
        'Response contains "internal error"',
    ),
    (
        "response_starts_with.yaml",
        run(reply="Hello Ada!"),
        run(reply="Hi Ada, hello!"),
        'Response does not start with "hello"',
    ),
    (
        "response_ends_with.yaml",
        run(reply="We are done. Thank you"),
        run(reply="Thank you!"),
        'Response does not end with "thank you"',
    ),
    (
        "response_equals.yaml",
        run(reply="Success"),
        run(reply="success\n"),
        'Response does not equal "success"',
    ),
    (
        "response_regex.yaml",
        run(reply="Refund  completed."),
        run(reply="refund-completed"),
        "Response does not match /refund\\s+(processed|completed)/",
    ),
    (
        "response_jsonpath.yaml",
        run(reply='{"status": "success"}'),
        run(reply='{"status": "pending"}'),
        'JSONPath $.status has no value equal to "success"',
    ),
    (
        "response_jsonpath_exists.yaml",
        run(reply='{"data": {"id": 7}}'),
        run(reply='{"data": {}}'),
        "JSONPath $.data.id matched nothing",
    ),
    (
        "response_jsonpath_not_exists.yaml",
        run(reply='{"data": {}}'),
        run(reply='{"error": "boom"}'),
        "JSONPath $.error should match nothing",
    ),
    (
        "tool_input_assertions.yaml",
        run(call("search_items", {"query": "item-123", "limit": 10})),
        run(call("search_items", {"query": "Item-123", "limit": "10"})),
        "no call of search_items has arguments",
    ),
]


@pytest.mark.parametrize(("name", "good", "bad", "message"), CASES, ids=[case[0] for case in CASES])
def test_snippet_passes_and_fails(name: str, good: Transcript, bad: Transcript, message: str) -> None:
    case = only_case(DATA / name, mcplab.load)
    assert case.dialect == "mcplab" and case.assertions
    assert evaluate_case(case, good).status is Status.PASS
    failed = [o for o in evaluate_case(case, bad).outcomes if o.status is Status.FAIL]
    assert failed and failed[0].failure is not None
    assert failed[0].failure.message.startswith(message), failed[0].failure.message


def test_one_check_per_listed_tool() -> None:
    case = only_case(DATA / "tool_constraints.yaml", mcplab.load)
    assert [check.kind for check in case.assertions] == ["tools_called", "tools_called", "tools_not_called"]
    outcomes = evaluate_case(case, run("lookup_account", "delete_account", "delete_account")).outcomes
    assert [o.status for o in outcomes] == [Status.PASS, Status.FAIL, Status.FAIL]
    assert outcomes[2].failure is not None
    assert outcomes[2].failure.message.startswith("Forbidden tool used: delete_account")


def test_response_checks_follow_mcplab_semantics() -> None:
    (regex,) = only_case(DATA / "response_regex.yaml", mcplab.load).assertions
    assert isinstance(regex, RegexCheck)
    assert (regex.flavor, regex.ignore_case, regex.strip_inline_flags) == ("js", True, True)
    (text,) = only_case(DATA / "response_equals.yaml", mcplab.load).assertions
    assert isinstance(text, TextCheck) and (text.ignore_case, text.trim) == (True, False)
    first, second = only_case(DATA / "response_jsonpath.yaml", mcplab.load).assertions
    assert isinstance(first, JsonPathCheck) and isinstance(second, JsonPathCheck)
    assert (first.mode, second.mode, second.equals) == ("exists", "equals", "success")


def test_the_seed_regex_as_printed_is_a_yaml_error_with_its_position() -> None:
    (error,) = load_file(DATA / "response_regex_as_written.yaml", mcplab.load)
    assert isinstance(error, LoadError)
    assert (error.line, error.column) == (7, 24)
    assert "unknown escape character 's'" in error.message


def _judge() -> ScriptedJudge:
    return ScriptedJudge(lambda item, answer: "08:00" in answer and "09:30" in answer)


@pytest.mark.parametrize("name", ["agent_check.yaml", "agent_context.yaml"])
def test_agent_checks_with_a_scripted_judge(name: str) -> None:
    case = only_case(DATA / name, mcplab.load)
    judge = _judge()
    good = evaluate_case(case, run("query_logs", reply="From 08:00 to 09:30."), judge)
    assert good.status is Status.PASS and good.judge_requests == 1
    bad = evaluate_case(case, run("query_logs", reply="It started at 08:00."), judge)
    assert bad.status is Status.FAIL
    assert {o.failure.message for o in bad.outcomes if o.failure} == {"scripted"}
    context = judge.requests[0].payload.get("context")
    if name == "agent_context.yaml":
        assert context == {
            "scenario_prompt": "When did the incident start and end?",
            "tool_sequence": ["query_logs"],
        }
        assert [c["label"] for c in judge.requests[0].payload["checks"]] == [
            "addresses_question",
            "logical_time_range",
        ]
    else:
        assert context is None


def test_eval_config_with_a_library_reference() -> None:
    cases = load_file(DATA / "library" / "evals" / "suite.yaml", mcplab.load)
    assert [c.id for c in cases] == ["lookup-only", "inline-refund"]
    library, inline = cases
    assert isinstance(library, AgentCase) and library.source.file.name == "lookup-only.yaml"
    assert isinstance(inline, AgentCase) and inline.metadata["agents"] == ["claude-haiku"]
    assert (
        evaluate_case(inline, run("lookup_account", "x", "process_refund", reply="Refund sent")).status
        is Status.PASS
    )
    assert (
        evaluate_case(inline, run("process_refund", "lookup_account", reply="Refund sent")).status
        is Status.FAIL
    )


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("id: x\nprompt: p\neval:\n  tool_constraint:\n    required_tools: [a]\n", 4, 3, "unknown key"),
        (
            "id: x\nprompt: p\neval:\n  response_assertions:\n    - type: containz\n      value: a\n",
            5,
            7,
            "'containz' is not one of",
        ),
        (
            "id: x\nprompt: p\neval:\n  response_assertions:\n    - type: regex\n",
            5,
            7,
            "required key 'pattern'",
        ),
        ("scenarios:\n  - ref: nowhere\n", 2, 5, "library test case 'nowhere' not found"),
    ],
)
def test_load_errors_name_line_column_and_field(
    tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    (error,) = load_file(path, mcplab.load)
    assert isinstance(error, LoadError)
    assert (error.line, error.column) == (line, column) and message in error.message, str(error)


def test_unknown_key_gets_a_did_you_mean() -> None:
    text = {"id": "x", "prompt": "p", "eval": {"tool_sequense": ["a"]}}
    (error,) = mcplab.load(text, Path("inline.yaml"))
    assert isinstance(error, LoadError) and error.field == "eval.tool_sequense"
    assert error.hint == "did you mean 'tool_sequence'?"


def test_empty_allow_is_no_check_and_a_single_empty_list_means_no_calls() -> None:
    none = mcplab.load({"id": "a", "prompt": "p", "eval": {"tool_sequence": {"allow": []}}}, Path("a.yaml"))
    assert isinstance(none[0], AgentCase) and none[0].assertions == ()
    (empty,) = mcplab.load(
        {"id": "a", "prompt": "p", "eval": {"tool_sequence": {"allow": [[]]}}}, Path("a.yaml")
    )
    assert isinstance(empty, AgentCase)
    (check,) = empty.assertions
    assert isinstance(check, SequenceCheck) and check.sequences == ((),)
    assert evaluate_case(empty, run()).status is Status.PASS
    assert evaluate_case(empty, run("x")).status is Status.FAIL


def test_detect() -> None:
    assert mcplab.detect({"scenarios": [{"id": "a", "prompt": "p"}], "agents": []})
    assert mcplab.detect({"id": "a", "prompt": "p", "eval": {}})
    assert not mcplab.detect({"name": "x", "expect": [], "prompt": "p"})
    assert not mcplab.detect({"scenario": "s", "input_utterance": "u"})
    assert not mcplab.detect({"assert": {"tool": "t"}})


def test_extract_reads_values_for_the_report_and_never_decides() -> None:
    case = only_case(DATA / "extract.yaml", mcplab.load)
    assert [rule.name for rule in case.extract] == ["item_count", "in_stock", "price", "sku"]
    found = evaluate_case(case, run(reply="Found 42 items, in stock: true; it costs 9.50, SKU-AB"))
    assert found.status is Status.PASS
    assert found.extracted == {"item_count": 42, "in_stock": True, "price": 9.5, "sku": "SKU-AB"}
    missing = evaluate_case(case, run(reply="Nothing here"))
    assert missing.status is Status.FAIL  # the contains check; extraction itself never fails a run
    assert missing.extracted == dict.fromkeys(("item_count", "in_stock", "price", "sku"))
    assert missing.case_result().failure is not None
    assert missing.case_result().failure.details["extracted"] == missing.extracted
    lowercase = evaluate_case(case, run(reply="found 42 items"))
    assert lowercase.extracted["item_count"] is None  # no flags: the match is case-sensitive


@pytest.mark.parametrize(
    ("rule", "field", "message"),
    [
        ({"name": "n", "regex": "(?P<value>x)"}, "extract[0].regex", "Invalid regex"),
        ({"name": "n", "from": "tool_output", "regex": "x"}, "extract[0].from", "not a source"),
        ({"regex": "x"}, "extract[0]", "required key 'name'"),
    ],
)
def test_bad_extract_rules_are_load_errors(rule: dict[str, str], field: str, message: str) -> None:
    (error,) = mcplab.load({"id": "x", "prompt": "p", "extract": [rule]}, Path("x.yaml"))
    assert isinstance(error, LoadError) and error.field == field and message in error.message, str(error)


def test_snapshot_eval_is_kept_as_metadata() -> None:
    snapshot = {"enabled": True, "baseline_snapshot_id": "snap-1"}
    (case,) = mcplab.load({"id": "x", "prompt": "p", "snapshot_eval": snapshot}, Path("x.yaml"))
    assert isinstance(case, AgentCase) and case.metadata["snapshot_eval"] == snapshot and not case.assertions


def test_a_library_reference_names_the_test_case_id_not_the_file(tmp_path: Path) -> None:
    library = tmp_path / "mcplab"
    (library / "evals").mkdir(parents=True)
    (library / "test-cases").mkdir()
    (library / "evals" / "suite.yaml").write_text("scenarios:\n  - ref: lib-refund\n  - ref: lib-refun\n")
    (library / "test-cases" / "refund.yaml").write_text("id: lib-refund\nprompt: Please refund\n")
    (library / "test-cases" / "lib-refun.yaml").write_text("id: other\nprompt: p\n")  # named, not its id
    found, missing = load_file(library / "evals" / "suite.yaml", mcplab.load)
    assert isinstance(found, AgentCase) and found.id == "lib-refund"
    assert found.source.file == library / "test-cases" / "refund.yaml"
    assert isinstance(missing, LoadError) and missing.message == "library test case 'lib-refun' not found"
    assert missing.hint == "did you mean 'lib-refund'?"


def test_a_whole_library_directory_skips_the_files_that_hold_no_cases(tmp_path: Path) -> None:
    library = tmp_path / "mcplab"
    (library / "evals").mkdir(parents=True)
    (library / "test-cases").mkdir()
    (library / "evals" / "suite.yaml").write_text(
        "agents:\n  - ref: haiku\nscenarios:\n  - ref: lib-refund\n"
    )
    (library / "test-cases" / "refund.yaml").write_text("id: lib-refund\nprompt: Please refund\n")
    (library / "agents.yaml").write_text("haiku:\n  provider: anthropic\n  model: claude-3-5-haiku\n")
    (library / "servers.yaml").write_text("weather:\n  transport: http\n  url: http://localhost:3000/mcp\n")
    run_dir = library / "results" / "evaluation-runs" / "20260310-090000-000"
    run_dir.mkdir(parents=True)
    results = {"metadata": {"run_id": "r"}, "summary": {}, "scenarios": [{"scenario_id": "x", "eval": {}}]}
    (run_dir / "results.json").write_text(json.dumps(results))
    cases, errors = load_agent_cases(walk([library], CASE_SUFFIXES))
    assert errors == []
    assert [case.id for case in cases] == ["lib-refund"]  # the library's case once, through the suite
