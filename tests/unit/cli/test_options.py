"""Argument types: a timeout must be positive; a limit may be 0 (none) but not negative."""

from __future__ import annotations

import argparse

import pytest

from toolproof.cli.options import duration_arg, limit_arg


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
