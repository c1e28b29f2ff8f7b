"""Which expectations apply to which block: one entry point from (block, observation) to a verdict. The
checkers load with the first block checked (a suite whose cases all skip, or read traces, checks none)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolproof.model.result import Failure, FailureKind
from toolproof.model.server_case import (
    Block,
    Expect,
    LoggingBlock,
    NotificationsBlock,
    ResourcesBlock,
    SkillsBlock,
    ToolsBlock,
)

if TYPE_CHECKING:
    from toolproof.model.observation import Observation

RESOURCE_UPDATED = "notifications/resources/updated"


def check_block(block: Block, expect: Expect, observation: Observation) -> Failure | None:
    """The first failing expectation of `block`; `expect` is the block's Expect with templates filled.

    A tool result that breaks the outputSchema its tool declared fails before any expectation is checked.
    """
    from toolproof.check.expect import check_expect
    from toolproof.check.logging import check_logging
    from toolproof.check.notifications import check_notifications
    from toolproof.check.output_schema import check_output_schema
    from toolproof.check.skills import check_skills
    from toolproof.check.tools import check_tools

    failure = check_output_schema(observation)
    if failure is not None:
        return failure
    if isinstance(block, ToolsBlock):
        return check_tools(block.expect, list(observation.result.get("tools") or []))
    if isinstance(block, LoggingBlock):
        return check_logging(block.expect, observation.logs)
    if isinstance(block, NotificationsBlock):
        return check_notifications(block.expect, observation.notifications)
    if isinstance(block, SkillsBlock):
        return check_skills(block.expect, observation.result)
    failure = check_expect(expect, observation)
    if failure is None and isinstance(block, ResourcesBlock) and block.expect_notification is not None:
        failure = _check_resource_update(block.expect_notification, observation)
    return failure


def _check_resource_update(expected: bool, observation: Observation) -> Failure | None:
    seen = [note for note in observation.notifications if note.method == RESOURCE_UPDATED]
    if expected and not seen:
        return Failure(
            kind=FailureKind.EXPECTATION,
            check="expect_notification",
            expected=True,
            actual=False,
            message=f"expect_notification: no {RESOURCE_UPDATED} arrived after subscribing",
        )
    if not expected and seen:
        return Failure(
            kind=FailureKind.EXPECTATION,
            check="expect_notification",
            expected=False,
            actual=True,
            message=f"expect_notification: false, but {len(seen)} {RESOURCE_UPDATED} arrived",
        )
    return None
