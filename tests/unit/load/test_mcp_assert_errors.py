"""Every kind of load error names file, line, column, field, message and hint exactly."""

from __future__ import annotations

from pathlib import Path

from tests.unit.load.conftest import Write

from toolproof.load import LoadError, load_file
from toolproof.model.server_case import Case


def _errors(path: Path) -> list[LoadError]:
    items = load_file(path)
    assert not any(isinstance(item, Case) for item in items), items
    return [item for item in items if isinstance(item, LoadError)]


def test_misspelt_nested_key(write: Write) -> None:
    path = write(
        """
        name: typo
        server:
          command: srv
        assert:
          tool: t
          expect:
            contians: [x]
        """
    )
    (error,) = _errors(path)
    assert error == LoadError(path, 7, 5, "assert.expect.contians", "unknown key", "did you mean 'contains'?")
    assert str(error) == f"{path}:7:5: assert.expect.contians: unknown key (did you mean 'contains'?)"


def test_misspelt_top_level_key(write: Write) -> None:
    path = write("server: {command: srv}\nassert: {tool: t}\nskip_unles_env: X\n")
    assert _errors(path) == [
        LoadError(path, 3, 1, "skip_unles_env", "unknown key", "did you mean 'skip_unless_env'?")
    ]


def test_unknown_key_without_a_close_match_lists_the_known_keys(write: Write) -> None:
    path = write("server: {command: srv, zzz: 1}\nassert: {tool: t}\n")
    hint = "known keys: args, auth, client_capabilities, command, cwd, docker, env, headers, transport, url"
    assert _errors(path) == [LoadError(path, 1, 24, "server.zzz", "unknown key", hint)]


def test_unknown_key_hint_uses_the_written_alias(write: Write) -> None:
    path = write("server: {command: srv}\nassert_prompts:\n  lst: {}\n  get: {name: p}\n")
    assert _errors(path) == [
        LoadError(path, 3, 3, "assert_prompts.lst", "unknown key", "did you mean 'list'?")
    ]


def test_unknown_key_below_an_aliased_key(write: Write) -> None:
    path = write("server: {command: srv}\nassert_resources:\n  list: {cursr: abc}\n")
    assert _errors(path) == [
        LoadError(path, 3, 10, "assert_resources.list.cursr", "unknown key", "did you mean 'cursor'?")
    ]


def test_unknown_key_in_client_capabilities(write: Write) -> None:
    path = write(
        """
        server:
          command: srv
          client_capabilities:
            sampling: {txt: hi}
        assert: {tool: t}
        """
    )
    assert _errors(path) == [
        LoadError(
            path, 4, 16, "server.client_capabilities.sampling.txt", "unknown key", "did you mean 'text'?"
        )
    ]


def test_missing_required_key_points_at_its_mapping(write: Write) -> None:
    path = write("server: {command: srv}\nassert:\n  args: {a: 1}\n")
    assert _errors(path) == [LoadError(path, 2, 1, "assert.tool", "required key missing")]


def test_setup_item_errors_name_the_index(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        setup:
          - tool: ok
          - tol: typo
            args: [not, a, map]
        assert: {tool: t}
        """
    )
    assert _errors(path) == [
        LoadError(path, 4, 5, "setup[1].tool", "required key missing"),
        LoadError(path, 4, 5, "setup[1].tol", "unknown key", "did you mean 'tool'?"),
        LoadError(path, 5, 5, "setup[1].args", "Input should be a valid dictionary"),
    ]


def test_wrong_value_type_shows_the_value(write: Write) -> None:
    path = write("server: {command: srv}\nassert:\n  tool: t\n  expect: {min_results: many}\n")
    message = "Input should be a valid integer, unable to parse string as an integer, got 'many'"
    assert _errors(path) == [LoadError(path, 4, 12, "assert.expect.min_results", message)]


def test_unknown_transport(write: Write) -> None:
    path = write("server:\n  transport: htp\n  url: http://h/\nassert: {tool: t}\n")
    assert _errors(path) == [
        LoadError(
            path, 2, 3, "server.transport", "'htp' is not one of stdio, sse, http", "did you mean 'http'?"
        )
    ]
    other = write("server: {transport: websocket}\nassert: {tool: t}\n", "other.yaml")
    assert _errors(other) == [
        LoadError(other, 1, 10, "server.transport", "'websocket' is not one of stdio, sse, http")
    ]


def test_trajectory_errors_point_into_the_top_level_lists(write: Write) -> None:
    path = write(
        """
        trace:
          - args: {a: 1}
        trajectory:
          - type: order
            tools: [a]
          - type: presense
            tools: [a]
        """
    )
    assert _errors(path) == [
        LoadError(path, 2, 5, "trace[0].tool", "required key missing"),
        LoadError(
            path, 6, 5, "trajectory[1].type",
            "'presense' is not one of order, presence, absence, args_contain", "did you mean 'presence'?",
        ),
    ]


def test_trajectory_must_be_a_list(write: Write) -> None:
    path = write("trajectory: {type: order}\n")
    assert _errors(path) == [LoadError(path, 1, 1, "trajectory", "Input should be a valid list")]


def test_unparsable_timeout(write: Write) -> None:
    path = write("timeout: soon\nserver: {command: srv}\nassert: {tool: t}\n")
    message = "invalid duration 'soon' (use e.g. 30s, 1m30s, 500ms, 2h)"
    assert _errors(path) == [LoadError(path, 1, 1, "timeout", message)]


def test_non_positive_timeout(write: Write) -> None:
    path = write("server: {command: srv}\nassert: {tool: t}\ntimeout: 0s\n")
    assert _errors(path) == [LoadError(path, 3, 1, "timeout", "must be positive, got '0s'")]


def test_document_without_a_block(write: Write) -> None:
    path = write("name: lonely\nserver: {command: srv}\n")
    message = (
        "no assert/assert_skills/assert_tools/assert_notifications/assert_logging/assert_sampling/"
        "assert_completion/assert_prompts/assert_resources/trajectory block"
    )
    assert _errors(path) == [LoadError(path, 1, 1, "", message, "a case needs one of these keys")]


def test_block_that_is_not_a_mapping(write: Write) -> None:
    path = write("server: {command: srv}\nassert: read_file\n")
    assert _errors(path) == [LoadError(path, 2, 1, "assert", "must be a mapping")]


def test_name_of_the_wrong_type(write: Write) -> None:
    path = write("name: [a, b]\nserver: {command: srv}\nassert: {tool: t}\n")
    assert _errors(path) == [LoadError(path, 1, 1, "name", "Input should be a valid string")]


def test_every_error_of_a_document_is_reported_in_position_order(write: Write) -> None:
    path = write(
        """
        name: many
        timeout: later
        server:
          comand: srv
          transport: ws
        assert:
          tool: t
          expect:
            not_eror: true
            max_results: few
        extra: 1
        """
    )
    assert [(error.line, error.field) for error in _errors(path)] == [
        (2, "timeout"),
        (4, "server.comand"),
        (5, "server.transport"),
        (9, "assert.expect.not_eror"),
        (10, "assert.expect.max_results"),
        (11, "extra"),
    ]


def test_a_bad_document_does_not_stop_the_others(write: Write) -> None:
    path = write(
        """
        server: {command: srv}
        assert: {tool: first}
        ---
        server: {command: srv}
        assert: {tol: second}
        ---
        hello: world
        ---
        server: {command: srv}
        assert: {tool: fourth}
        """
    )
    items = load_file(path)
    summary = [
        (item.name, item.source.line) if isinstance(item, Case) else (item.field, item.line) for item in items
    ]
    assert summary == [
        ("case.yaml", 1),
        ("assert.tool", 5),
        ("assert.tol", 5),
        ("", 7),
        ("case.yaml [4]", 9),
    ]
    unknown = items[3]
    assert unknown == LoadError(
        path, 7, 1, "", "not a test format toolproof knows",
        "known formats: mcp-assert, recognised by a key assert, assert_*, trajectory, server or setup",
    )
