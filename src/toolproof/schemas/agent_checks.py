"""Pieces the agent formats share: a precondition (`when`) as `Reader.precondition` reads it."""

from __future__ import annotations

from toolproof.load.reader import PRECONDITION_KEYS
from toolproof.schemas.shapes import BOOLEAN, INTEGER, TEXT, Schema, closed


def precondition() -> Schema:
    return closed(
        PRECONDITION_KEYS,
        {
            "tool_called": TEXT,
            "tool_called_pattern": TEXT,
            "any_tool_called": BOOLEAN,
            "min_tool_calls": INTEGER,
        },
        description="the check applies only when these hold",
    )
