import pytest

from toolproof.model.server_case import (
    AssertBlock,
    Block,
    LoggingBlock,
    NotificationsBlock,
    PromptsBlock,
    ResourcesBlock,
)
from toolproof.sources.waits import SUBSCRIPTION_WAIT_S, longest_wait_s

GRACE = 0.25


@pytest.mark.parametrize(
    ("block", "wait"),
    [
        (ResourcesBlock(read="a://b", expect_notification=True), SUBSCRIPTION_WAIT_S),
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
    assert longest_wait_s(block, GRACE) == wait
