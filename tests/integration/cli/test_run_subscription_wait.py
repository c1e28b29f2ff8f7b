"""`--subscription-wait` bounds how long `expect_notification: true` waits for an update that never comes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

pytestmark = [pytest.mark.servers, pytest.mark.serial]  # bounds a wait's duration

NAME = "no update ever comes"
NO_UPDATE = f"""
name: {NAME}
server: {{command: mcp-server-everything}}
assert_resources:
  subscribe: demo://resource/dynamic/text/1
  read: demo://resource/dynamic/text/1
  expect_notification: true
  expect: {{contains: [Resource 1]}}
"""
MESSAGE = "expect_notification: no notifications/resources/updated arrived after subscribing"


def test_a_short_wait_fails_the_case_as_the_default_does_but_sooner(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome]
) -> None:
    """server-everything sends no update until toggle-subscriber-updates is called: the case waits its whole
    subscription wait, 0.5 s here and 5 s by default, and fails with the same message either way."""
    suite = write_suite({"none.yaml": NO_UPDATE})
    quick, default = toolproof(str(suite), "--subscription-wait", "0.5s"), toolproof(str(suite))
    for outcome in (quick, default):
        assert outcome.status == 1
        result = outcome.result(NAME)
        assert (result["status"], result["failure"]["message"]) == ("FAIL", MESSAGE)
    assert quick.result(NAME)["duration_ms"] < 3000
    assert default.result(NAME)["duration_ms"] >= 4500
