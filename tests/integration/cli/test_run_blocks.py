"""Every block type through `toolproof run` against server-everything: one case that must pass and one that
must fail for each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.integration.cli.conftest import Outcome

SERVER = "server: {command: mcp-server-everything}\n"
CAPS = (
    "server:\n  command: mcp-server-everything\n  client_capabilities:\n"
    "    sampling: {text: mocked reply, model: mock-7}\n"
    "    elicitation: {action: accept, content: {name: Ann, color: red}}\n"
    "    roots: ['{{fixture}}']\n"
)

CASES = {
    "resources list": ("PASS", "assert_resources: {list: {}, expect: {contains: [architecture.md]}}"),
    "resources list wrong": ("FAIL", "assert_resources: {list: {}, expect: {contains: [nothing.md]}}"),
    "resource read": (
        "PASS",
        "assert_resources: {read: 'demo://resource/dynamic/text/1', expect: {contains: [Resource 1]}}",
    ),
    "resource read unknown": (
        "FAIL",
        "assert_resources: {read: 'demo://nothing/here', expect: {not_empty: true}}",
    ),
    "prompt get": (
        "PASS",
        "assert_prompts: {get: {name: args-prompt, arguments: {city: Paris}},"
        " expect: {contains: [weather in Paris]}}",
    ),
    "prompt is_error never holds": (
        "FAIL",
        "assert_prompts: {get: {name: simple-prompt}, expect: {is_error: true}}",
    ),
    "prompt list": ("PASS", "assert_prompts: {list: {}, expect: {contains: [completable-prompt]}}"),
    "completion": (
        "PASS",
        "assert_completion: {ref: {type: ref/prompt, name: completable-prompt},"
        " argument: {name: department, value: E}, expect: {contains: [Engineering]}}",
    ),
    "completion wrong": (
        "FAIL",
        "assert_completion: {ref: {type: ref/prompt, name: completable-prompt},"
        " argument: {name: department, value: E}, expect: {contains: [Marketing]}}",
    ),
    "progress notifications": (
        "PASS",
        "assert_notifications: {tool: trigger-long-running-operation, args: {duration: 0.3, steps: 3},"
        " expect: {min_count: 3, methods: [notifications/progress], not_methods: [notifications/message]}}",
    ),
    "too many notifications": (
        "FAIL",
        "assert_notifications: {tool: trigger-long-running-operation, args: {duration: 0.3, steps: 3},"
        " expect: {max_count: 1}}",
    ),
    "capture progress": (
        "PASS",
        "assert: {tool: trigger-long-running-operation, args: {duration: 0.3, steps: 3},"
        " capture_progress: true, expect: {min_progress: 3}}",
    ),
    "sampling block": (
        "PASS",
        "assert_sampling: {tool: trigger-sampling-request, args: {prompt: hi}, mock_text: canned words,"
        " expect: {contains: [canned words]}}",
    ),
    "sampling block wrong": (
        "FAIL",
        "assert_sampling: {tool: trigger-sampling-request, args: {prompt: hi}, mock_text: canned words,"
        " expect: {contains: [other words]}}",
    ),
    "logging level rejected": ("FAIL", "assert_logging: {set_level: verbose, expect: {min_messages: 0}}"),
    "trajectory": (
        "PASS",
        "trace: [{tool: search, args: {q: x}}, {tool: read, args: {id: 2}}]\n"
        "trajectory: [{type: order, tools: [search, read]}, {type: args_contain, tool: read, args: {id: 2}}]",
    ),
    "trajectory absence": (
        "FAIL",
        "trace: [{tool: search}, {tool: delete}]\ntrajectory: [{type: absence, tools: [delete]}]",
    ),
}

CAPS_CASES = {
    "capabilities answer sampling": (
        "PASS",
        "assert: {tool: trigger-sampling-request, args: {prompt: hi},"
        " expect: {contains: [mocked reply, mock-7]}}",
    ),
    "capabilities answer elicitation": (
        "PASS",
        "assert: {tool: trigger-elicitation-request, expect: {contains: ['Name: Ann']}}",
    ),
    "capabilities answer roots": ("PASS", "assert: {tool: get-roots-list, expect: {contains: ['file://']}}"),
}


def test_each_block_passes_and_fails_as_it_should(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    files = {
        f"{n:02d}.yaml": f"name: {name}\n{SERVER}{body}\n"
        for n, (name, (_, body)) in enumerate(CASES.items())
    }
    files |= {
        f"caps{n}.yaml": f"name: {name}\n{CAPS}{body}\n"
        for n, (name, (_, body)) in enumerate(CAPS_CASES.items())
    }
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    outcome = toolproof(str(write_suite(files)), "--fixture", str(fixture))
    expected = {name: verdict for name, (verdict, _) in (CASES | CAPS_CASES).items()}
    assert outcome.verdicts() == expected, [
        (r["name"], r["failure"]) for r in outcome.report["results"] if r["status"] != expected[r["name"]]
    ]
    assert outcome.result("logging level rejected")["failure"]["kind"] == "rpc_error"
    assert outcome.result("resource read unknown")["failure"]["kind"] == "rpc_error"
    assert "delete" in outcome.result("trajectory absence")["failure"]["message"]


def caps_server(capabilities: str) -> str:
    return f"server:\n  command: mcp-server-everything\n  client_capabilities: {capabilities}\n"


CAPS_FAILURES = {
    "a root that is not configured": (
        caps_server("{roots: ['{{fixture}}']}"),
        "assert: {tool: get-roots-list, expect: {contains: ['file:///not/configured']}}",
        ['"file:///not/configured" not found', "fixture"],
    ),
    "a declined form where accept is expected": (
        caps_server("{elicitation: {action: decline}}"),
        "assert: {tool: trigger-elicitation-request, expect: {contains: ['Name: Ann']}}",
        ['"Name: Ann" not found', "declined"],
    ),
    "a cancelled form where accept is expected": (
        caps_server("{elicitation: {action: cancel}}"),
        "assert: {tool: trigger-elicitation-request, expect: {contains: ['Name: Ann']}}",
        ['"Name: Ann" not found', "cancelled"],
    ),
    "a sampling answer other than the expected one": (
        caps_server("{sampling: {text: mocked reply, model: mock-7}}"),
        "assert: {tool: trigger-sampling-request, args: {prompt: hi}, expect: {contains: [another reply]}}",
        ['"another reply" not found', "mocked reply"],
    ),
}


def test_client_capabilities_fail_when_the_answer_is_not_the_expected_one(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    files = {
        f"fail{n}.yaml": f"name: {name}\n{server}{body}\n"
        for n, (name, (server, body, _)) in enumerate(CAPS_FAILURES.items())
    }
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    outcome = toolproof(str(write_suite(files)), "--fixture", str(fixture))
    assert outcome.status == 1
    assert outcome.verdicts() == dict.fromkeys(CAPS_FAILURES, "FAIL")
    for name, (_, _, said) in CAPS_FAILURES.items():
        failure = outcome.result(name)["failure"]
        assert (failure["kind"], failure["check"]) == ("expectation", "contains"), name
        assert all(words in failure["message"] for words in said), (name, failure["message"])


def test_a_block_that_names_no_request_fails_before_any_server_starts(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    nowhere = "server: {command: /nonexistent/mcp-server}\n"  # starting it would fail the case differently
    outcome = toolproof(
        str(
            write_suite(
                {
                    "1.yaml": f"name: resources\n{nowhere}assert_resources: {{subscribe: 'a://b'}}\n",
                    "2.yaml": f"name: prompts\n{nowhere}assert_prompts: {{expect: {{not_empty: true}}}}\n",
                }
            )
        )
    )
    assert outcome.verdicts() == {"resources": "FAIL", "prompts": "FAIL"}
    for name, other in (("resources", "read"), ("prompts", "get")):
        failure = outcome.result(name)["failure"]
        assert failure["kind"] == "config"
        assert failure["message"] == f"assert_{name} requires either 'list' or '{other}'"
