"""Argument types: a timeout must be positive; a limit may be 0 (none) but not negative. Every command that
runs suites takes --subscription-wait."""

from __future__ import annotations

import argparse

import pytest

from toolproof.cli import build_parser
from toolproof.cli.author_options import server_options
from toolproof.cli.options import duration_arg, limit_arg
from toolproof.sources.options import SUBSCRIPTION_WAIT_S


@pytest.mark.parametrize(("text", "seconds"), [("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("2.5", 2.5)])
def test_durations_are_go_style_or_plain_seconds(text: str, seconds: float) -> None:
    assert duration_arg(text) == limit_arg(text) == seconds


@pytest.mark.parametrize("text", ["0", "0s", "-1", "-1s", "-0.5"])
def test_a_timeout_must_be_greater_than_zero(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=f"must be greater than 0, got '{text}'"):
        duration_arg(text)


def test_a_limit_of_zero_means_none_and_a_negative_one_is_refused() -> None:
    assert limit_arg("0") == 0.0
    with pytest.raises(argparse.ArgumentTypeError, match="must not be negative, got '-1s'"):
        limit_arg("-1s")


def test_a_malformed_duration_is_refused() -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="invalid duration 'soon'"):
        duration_arg("soon")


@pytest.mark.parametrize("command", ["run", "ci", "watch", "matrix", "snapshot"])
def test_every_command_that_runs_suites_takes_the_subscription_wait(command: str) -> None:
    parse = build_parser()[0].parse_args
    assert parse([command]).subscription_wait == SUBSCRIPTION_WAIT_S
    assert parse([command, "--subscription-wait", "1m"]).subscription_wait == 60.0
    assert parse([command, "--subscription-wait", "0"]).subscription_wait == 0.0


def test_the_authoring_commands_pass_the_subscription_wait_on() -> None:
    args = build_parser()[0].parse_args(["watch", "evals", "--subscription-wait", "30s"])
    assert server_options(args).subscription_wait_s == 30.0
    generate = build_parser()[0].parse_args(["generate", "--server", "srv", "--output", "out"])
    assert server_options(generate).subscription_wait_s == SUBSCRIPTION_WAIT_S


def test_the_api_and_the_pytest_plugin_default_to_the_same_subscription_wait() -> None:
    from toolproof.api import server_options as api_options
    from toolproof.core.durations import parse_duration
    from toolproof.pytest_plugin.settings import DEFAULT_SUBSCRIPTION_WAIT

    plugin = parse_duration(DEFAULT_SUBSCRIPTION_WAIT)
    assert api_options().subscription_wait_s == plugin == SUBSCRIPTION_WAIT_S


def test_headers_repeat_and_header_is_taken_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    from toolproof.cli.options import headers_from

    args = argparse.Namespace(headers=["A=1, B=x=y", "C=3"], header_lines=["D: secret value"])
    assert headers_from(args, "lint") == {"A": "1", "B": "x=y", "C": "3", "D": "secret value"}
    err = capsys.readouterr().err
    assert "toolproof lint: hint: --header D:... is spelled --headers D=..." in err
    assert "secret" not in err


@pytest.mark.parametrize(("headers", "lines"), [(["A"], []), (["=1"], []), ([], ["no colon"]), ([], [":v"])])
def test_malformed_headers_are_usage_errors(headers: list[str], lines: list[str]) -> None:
    from toolproof.cli.options import headers_from
    from toolproof.exit_codes import UsageError

    with pytest.raises(UsageError):
        headers_from(argparse.Namespace(headers=headers, header_lines=lines), "audit")
