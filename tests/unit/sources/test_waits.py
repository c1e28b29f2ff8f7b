import pytest

from toolproof.model.server_case import (
    AssertBlock,
    Block,
    LoggingBlock,
    NotificationsBlock,
    PromptsBlock,
    ResourcesBlock,
)
from toolproof.sources.options import SUBSCRIPTION_WAIT_S, ServerOptions
from toolproof.sources.waits import longest_wait_s

GRACE = 0.25
OPTIONS = ServerOptions(environ={}, notification_grace_s=GRACE)
UPDATE = ResourcesBlock(read="a://b", expect_notification=True)


@pytest.mark.parametrize(
    ("block", "wait"),
    [
        (UPDATE, SUBSCRIPTION_WAIT_S),
        (ResourcesBlock(read="a://b", expect_notification=False), GRACE),
        (ResourcesBlock(read="a://b"), 0.0),
        (LoggingBlock(set_level="debug"), GRACE),
        (NotificationsBlock(tool="t"), GRACE),
        (AssertBlock(tool="t", capture_progress=True), GRACE),
        (AssertBlock(tool="t"), 0.0),
        (PromptsBlock(), 0.0),
    ],
)
def test_the_longest_wait_after_the_answer_is_known_before_the_case_runs(block: Block, wait: float) -> None:
    assert longest_wait_s(block, OPTIONS) == wait


@pytest.mark.parametrize("seconds", [0.0, 0.5, 30.0])
def test_the_subscription_wait_comes_from_the_options_and_changes_only_that_wait(seconds: float) -> None:
    options = ServerOptions(environ={}, notification_grace_s=GRACE, subscription_wait_s=seconds)
    assert longest_wait_s(UPDATE, options) == seconds
    assert longest_wait_s(ResourcesBlock(read="a://b", expect_notification=False), options) == GRACE
    assert longest_wait_s(NotificationsBlock(tool="t"), options) == GRACE
