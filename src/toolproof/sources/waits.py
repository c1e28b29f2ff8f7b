"""How long a block may wait after its request is answered, known before it runs (no MCP SDK import)."""

from __future__ import annotations

from toolproof.model.server_case import AssertBlock, Block, LoggingBlock, NotificationsBlock, ResourcesBlock
from toolproof.sources.options import ServerOptions


def longest_wait_s(block: Block, options: ServerOptions) -> float:
    """The longest `block` may wait after its answer: `options.subscription_wait_s` for a subscription update,
    or `options.notification_grace_s` for notifications still on their way; 0 for a block that ends with its
    answer."""
    grace_s = options.notification_grace_s
    if isinstance(block, ResourcesBlock):
        if block.expect_notification is None:
            return 0.0
        return options.subscription_wait_s if block.expect_notification else grace_s
    if isinstance(block, NotificationsBlock | LoggingBlock):
        return grace_s
    return grace_s if isinstance(block, AssertBlock) and block.capture_progress else 0.0
