"""How long a block may wait after its request is answered, known before it runs (no MCP SDK import)."""

from __future__ import annotations

from toolproof.model.server_case import AssertBlock, Block, LoggingBlock, NotificationsBlock, ResourcesBlock

SUBSCRIPTION_WAIT_S = 5.0
"""How long `expect_notification: true` waits for a resource update after the read."""


def longest_wait_s(block: Block, grace_s: float) -> float:
    """The longest `block` may wait after its answer: for a subscription update, or `grace_s` for
    notifications still on their way; 0 for a block that ends with its answer."""
    if isinstance(block, ResourcesBlock):
        if block.expect_notification is None:
            return 0.0
        return SUBSCRIPTION_WAIT_S if block.expect_notification else grace_s
    if isinstance(block, NotificationsBlock | LoggingBlock):
        return grace_s
    return grace_s if isinstance(block, AssertBlock) and block.capture_progress else 0.0
