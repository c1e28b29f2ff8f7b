"""Tool-call checks: presence, counts, positions, sequences in every mode, arguments, nesting."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.agent.builders import call, check, node, run, workflow

from toolproof.check.sequence import sequence
from toolproof.check.steps import Steps
from toolproof.model.result import Status
from toolproof.model.scenario import (
    CallCheck,
    ContainsMatcher,
    ExactMatcher,
    SequenceCheck,
    ToolInputCheck,
    ToolsCalled,
    ToolsNotCalled,
)


def test_required_tools_one_message_per_missing_tool() -> None:
    observed = run("lookup_account", "verify_identity", "lookup_account")
    assert check(ToolsCalled(tools=("lookup_account", "verify_identity")), observed).status is Status.PASS
    failed = check(ToolsCalled(tools=("lookup_account", "process_refund")), observed)
    assert failed.status is Status.FAIL and failed.failure is not None
    assert (
        failed.failure.message
        == "Required tool not used: process_refund (called: lookup_account, verify_identity)"
    )
    assert failed.failure.details == {
        "missing_tools": ["process_refund"],
        "called_tools": ["lookup_account", "verify_identity"],
    }


def test_forbidden_tools_name_every_call() -> None:
    observed = run("lookup", "delete_account", "delete_account")
    assert check(ToolsNotCalled(tools=("drop_table",)), observed).status is Status.PASS
    failed = check(ToolsNotCalled(tools=("delete_account",)), observed)
    assert failed.failure is not None
    assert failed.failure.message == "Forbidden tool used: delete_account (2 times at index 1, 2)"
    assert failed.failure.details["forbidden_tools_called"] == ["delete_account"]
    assert failed.failure.details["all_called_tools"] == ["lookup", "delete_account"]


def test_ordered_sequence_messages_follow_mcplab() -> None:
    ordered = SequenceCheck(sequences=(("lookup_account", "verify_identity", "process_refund"),))
    assert (
        check(ordered, run("lookup_account", "log", "verify_identity", "process_refund")).status
        is Status.PASS
    )
    missing = check(ordered, run("lookup_account", "verify_identity")).failure
    assert missing is not None
    assert missing.message.startswith("Required tool in sequence not used: process_refund")
    order = check(ordered, run("verify_identity", "lookup_account", "process_refund")).failure
    assert order is not None
    assert order.message.startswith(
        "Tool sequence order was not satisfied: lookup_account -> verify_identity -> process_refund"
    )
    assert order.details["first_unmatched"] == "verify_identity"


def test_repeated_names_must_repeat() -> None:
    twice = SequenceCheck(sequences=(("search", "search", "summarize"),))
    assert check(twice, run("search", "search", "summarize")).status is Status.PASS
    assert check(twice, run("search", "summarize", "search")).status is Status.FAIL


def test_allowed_sequences_must_match_the_whole_run() -> None:
    allow = SequenceCheck(
        mode="exact",
        sequences=(
            ("lookup_account", "verify_identity", "process_refund"),
            ("lookup_account", "verify_identity", "check_policy", "process_refund"),
        ),
    )
    assert check(allow, run("lookup_account", "verify_identity", "check_policy", "process_refund")).passed
    failed = check(
        allow, run("lookup_account", "verify_identity", "process_refund", "process_refund")
    ).failure
    assert failed is not None and failed.message.startswith(
        "Tool sequence did not match any allowed sequence"
    )
    empty = SequenceCheck(mode="exact", sequences=((),))
    assert check(empty, run()).passed
    assert not check(empty, run("anything")).passed


@pytest.mark.parametrize(
    ("mode", "reference", "observed", "passes"),
    [
        ("adjacent", ("a", "b"), ("x", "a", "b", "y"), True),
        ("adjacent", ("a", "b"), ("a", "x", "b"), False),
        ("unordered", ("a", "b", "b"), ("b", "a", "b"), True),
        ("unordered", ("a", "b"), ("b", "a", "b"), False),
        ("subset", ("a", "b", "c"), ("c", "a"), True),
        ("subset", ("a", "b"), ("a", "a"), False),
        ("superset", ("a", "b"), ("b", "x", "a"), True),
        ("superset", ("a", "a"), ("a", "x"), False),
    ],
)
def test_other_sequence_modes(
    mode: str, reference: tuple[str, ...], observed: tuple[str, ...], passes: bool
) -> None:
    outcome = check(SequenceCheck(mode=mode, sequences=(reference,)), run(*observed))  # type: ignore[arg-type]
    assert outcome.passed is passes


def test_forbidden_subsequence() -> None:
    leak = SequenceCheck(sequences=(("read_secret", "send_email"),), forbidden=True)
    assert check(leak, run("send_email", "read_secret")).passed
    failed = check(leak, run("read_secret", "summarize", "send_email")).failure
    assert failed is not None and failed.message.startswith("Forbidden tool sequence occurred (ordered)")


NAMES = st.lists(st.sampled_from("abcd"), max_size=8)


def _subsequence(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(item == other for other in it) for item in needle)


def _reference(mode: str, expected: list[str], observed: list[str]) -> bool:
    if mode == "ordered":
        return _subsequence(expected, observed)
    if mode == "adjacent":
        return any(observed[i : i + len(expected)] == expected for i in range(len(observed) + 1))
    if mode == "exact":
        return expected == observed
    if mode == "unordered":
        return sorted(expected) == sorted(observed)
    if mode == "subset":
        return not Counter(observed) - Counter(expected)
    return not Counter(expected) - Counter(observed)


@given(
    st.sampled_from(["ordered", "adjacent", "exact", "unordered", "subset", "superset"]),
    NAMES,
    NAMES,
    st.booleans(),
)
def test_sequence_modes_agree_with_plain_definitions(
    mode: str, expected: list[str], observed: list[str], forbidden: bool
) -> None:
    steps = Steps.of_calls(call(name) for name in observed)
    holds = _reference(mode, expected, observed)
    failure = sequence(SequenceCheck(mode=mode, sequences=(tuple(expected),), forbidden=forbidden), steps)  # type: ignore[arg-type]
    assert (failure is None) is (holds is not forbidden)


@given(st.lists(NAMES, min_size=1, max_size=3), NAMES)
def test_any_of_several_sequences(alternatives: list[list[str]], observed: list[str]) -> None:
    steps = Steps.of_calls(call(name) for name in observed)
    failure = sequence(SequenceCheck(mode="exact", sequences=tuple(map(tuple, alternatives))), steps)
    assert (failure is None) is (observed in alternatives)


def test_must_call_with_arguments_shows_the_closest_call() -> None:
    wanted = CallCheck(
        name="create_order", arguments={"sku": ExactMatcher(value="ABC-123"), "qty": ExactMatcher(value=2)}
    )
    observed = run(
        call("create_order", {"sku": "XYZ", "qty": 5}), call("create_order", {"sku": "ABC-123", "qty": 3})
    )
    failed = check(wanted, observed).failure
    assert failed is not None
    assert failed.message.startswith(
        "no call of create_order matched (2 times called); closest is index 1: argument 'qty' = 3 is not 2"
    )
    assert failed.details["closest_call"]["arguments"] == {"sku": "ABC-123", "qty": 3}
    assert [v["argument"] for v in failed.details["violations"]] == ["qty"]
    good = run(call("create_order", {"sku": "XYZ"}), call("create_order", {"qty": 2, "sku": "ABC-123"}))
    assert check(wanted, good).passed


def test_must_not_call_with_and_without_arguments() -> None:
    observed = run(call("delete", {"id": 1}))
    assert not check(CallCheck(name="delete", condition="not_called"), observed).passed
    with_args = CallCheck(name="delete", condition="not_called", arguments={"id": ExactMatcher(value=2)})
    assert check(with_args, observed).passed
    assert not check(with_args, run(call("delete", {"id": 2}))).passed


def test_counts_exact_min_and_max() -> None:
    observed = run("send_email", "send_email", "send_email", "log")
    assert check(CallCheck(name="send_email", condition="count", count=3), observed).passed
    failed = check(CallCheck(name="send_email", condition="count", count=2), observed).failure
    assert failed is not None and failed.message.startswith(
        "send_email was called 3 times, expected exactly 2"
    )
    assert check(CallCheck(name="send_email", condition="count", min_count=2, max_count=4), observed).passed
    assert not check(CallCheck(name="send_email", condition="count", max_count=2), observed).passed
    assert not check(CallCheck(name="log", condition="count", min_count=2), observed).passed
    assert check(CallCheck(name="never", condition="count", count=0), observed).passed
    assert (
        failed.message
        == "send_email was called 3 times, expected exactly 2 (at index 0, 1, 2; called: send_email, log)"
    )
    absent = check(CallCheck(name="never", condition="count", min_count=1), observed).failure
    assert absent is not None
    assert absent.message == "never was called 0 times, expected at least 1 (called: send_email, log)"


def test_index_is_the_position_among_all_calls() -> None:
    observed = run("search_products", "create_order", "create_shipment")
    assert check(CallCheck(name="create_order", index=1), observed).passed
    failed = check(CallCheck(name="create_order", index=0), observed).failure
    assert failed is not None and failed.message.startswith(
        "expected create_order at index 0: it is search_products"
    )
    assert not check(CallCheck(name="create_order", index=5), observed).passed
    assert check(CallCheck(name="create_order", condition="not_called", index=0), observed).passed


def test_nested_tool_checks_look_inside_the_node() -> None:
    agent = CallCheck(
        name="AI Agent",
        level="auto",
        calls=(
            CallCheck(name="search_products", index=0),
            CallCheck(name="create_order", index=1),
            CallCheck(name="delete_records", condition="not_called"),
        ),
    )
    good = workflow(node("Webhook"), node("AI Agent", "search_products", "create_order"), node("Respond"))
    assert check(agent, good).passed
    wrong = workflow(node("Webhook"), node("AI Agent", "create_order", "search_products", "delete_records"))
    failed = check(agent, wrong).failure
    assert failed is not None
    assert [item["check"] for item in failed.details["nested"]] == [
        "search_products",
        "create_order",
        "delete_records",
    ]
    absent = check(agent, workflow(node("Webhook"), node("Respond"))).failure
    assert absent is not None
    assert [item["message"] for item in absent.details["nested"]] == ["parent node not executed"] * 3


def test_a_run_without_nodes_stands_for_the_agent_node() -> None:
    agent = CallCheck(name="Agent", level="auto", calls=(CallCheck(name="set_tags"),))
    assert check(agent, run("set_tags")).passed
    assert not check(agent, run("other")).passed


def test_auto_level_falls_back_to_tool_calls_only_without_nodes() -> None:
    observed = workflow(node("Webhook"), node("AI Agent", call("process_refund", {"order": "ORD-9921"})))
    assert check(CallCheck(name="Webhook", level="auto", index=0), observed).passed
    nested = check(
        CallCheck(name="process_refund", level="auto"), observed
    ).failure  # a tool call, not a node
    assert nested is not None
    assert nested.message == "process_refund did not run (nodes run: Webhook, AI Agent)"
    counted = check(
        CallCheck(name="process_refund", level="auto", condition="count", count=1), observed
    ).failure
    assert counted is not None
    assert counted.message == (
        "process_refund ran 0 times, expected exactly 1 (nodes run: Webhook, AI Agent)"
    )
    late = check(CallCheck(name="Webhook", level="auto", index=2), observed).failure
    assert late is not None
    assert late.message == "expected Webhook at index 2, but only 2 nodes ran (nodes run: Webhook, AI Agent)"
    flat = run("lookup", call("process_refund", {"order": "ORD-9921"}))
    assert check(CallCheck(name="process_refund", level="auto"), flat).passed
    assert not check(CallCheck(name="cancel_order", level="auto"), flat).passed


def test_node_arguments_are_its_parameters() -> None:
    scrape = CallCheck(
        name="Scrape Website",
        level="auto",
        arguments={"url": ContainsMatcher(value="mibo-ai.com"), "method": ExactMatcher(value="GET")},
    )
    good = workflow(node("Scrape Website", arguments={"url": "https://mibo-ai.com", "method": "GET"}))
    assert check(scrape, good).passed
    bad = workflow(node("Scrape Website", arguments={"url": "https://example.com", "method": "GET"}))
    assert not check(scrape, bad).passed


def test_call_status_can_be_required() -> None:
    succeeded = CallCheck(name="pay", is_error=False)
    assert check(succeeded, run(call("pay", is_error=False))).passed
    failed = check(succeeded, run(call("pay", is_error=True))).failure
    assert failed is not None and "the call failed" in failed.message


def test_tool_input_assertions() -> None:
    observed = run(
        call("search_items", {"query": "Item-123", "limit": 10}), call("search_items", {"query": "x"})
    )
    assert check(ToolInputCheck(tool="search_items", op="contains", value="item-123"), observed).passed
    assert not check(ToolInputCheck(tool="search_items", op="regex", value=r"item-\d+"), observed).passed
    assert check(ToolInputCheck(tool="search_items", op="regex", value=r"Item-\d+"), observed).passed
    assert check(
        ToolInputCheck(tool="search_items", op="jsonpath", value="$.limit", has_equals=True, equals=10),
        observed,
    ).passed
    assert not check(
        ToolInputCheck(tool="search_items", op="jsonpath", value="$.limit", has_equals=True, equals="10"),
        observed,
    ).passed
    missing = check(ToolInputCheck(tool="other", op="contains", value="x"), observed).failure
    assert missing is not None and missing.message.startswith("tool not used: other")


def test_server_prefix_alias() -> None:
    required = ToolsCalled(tools=("MCPLab:lookup",))
    assert check(required, run("lookup"), strip_server_prefix=True).passed
    assert not check(required, run("lookup")).passed
    assert check(required, run("MCPLab:lookup"), strip_server_prefix=True).passed


def test_nested_checks_read_every_execution_of_the_node() -> None:
    loop = CallCheck(name="Agent", level="auto", calls=(CallCheck(name="send", condition="count", count=2),))
    twice = workflow(node("Agent", "send"), node("Other"), node("Agent", "send"))
    assert check(loop, twice).passed
    assert not check(loop, workflow(node("Agent", "send"))).passed
    with_args = CallCheck(
        name="Agent",
        level="auto",
        arguments={"mode": ExactMatcher(value="bulk")},
        calls=(CallCheck(name="send"),),
    )
    only_other = workflow(
        node("Agent", "send", arguments={"mode": "single"}), node("Agent", arguments={"mode": "bulk"})
    )
    failed = check(with_args, only_other).failure
    assert failed is not None and "send" in failed.message


def test_a_skipped_node_did_not_run() -> None:
    observed = workflow(node("Webhook"), node("IF", status="skipped"), node("Send Email"))
    required = check(CallCheck(name="IF", level="auto"), observed).failure
    assert required is not None
    assert required.message == "IF did not run (nodes run: Webhook, Send Email; skipped: IF)"
    assert check(CallCheck(name="IF", level="auto", condition="not_called"), observed).passed
    assert check(CallCheck(name="Send Email", level="auto", index=1), observed).passed  # skipped: no index


def test_nested_checks_under_a_node_that_ran_elsewhere_say_so() -> None:
    agent = CallCheck(name="AI Agent", level="auto", index=1, calls=(CallCheck(name="search"),))
    observed = workflow(node("AI Agent", "search"), node("Respond"))
    failed = check(agent, observed).failure
    assert failed is not None
    assert [item["message"] for item in failed.details["nested"]] == [
        "parent node ran at index 0, not at index 1"
    ]
    assert failed.message.endswith("; search: parent node ran at index 0, not at index 1")
    wrong_arguments = agent.model_copy(update={"index": None, "arguments": {"x": ExactMatcher(value=1)}})
    unmatched = check(wrong_arguments, observed).failure
    assert unmatched is not None
    assert unmatched.details["nested"][0]["message"] == "parent node ran, but did not match"


def test_must_not_call_with_arguments_shows_them_as_expected() -> None:
    forbidden = CallCheck(name="delete", condition="not_called", arguments={"id": ExactMatcher(value=2)})
    failed = check(forbidden, run(call("delete", {"id": 2}))).failure
    assert failed is not None
    assert failed.expected == {"not": {"name": "delete", "arguments": {"id": 2}}}
    plain = check(CallCheck(name="delete", condition="not_called"), run("delete")).failure
    assert plain is not None and plain.expected == "no call of delete"
