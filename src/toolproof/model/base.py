"""The one base of the model's pydantic classes."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """Immutable, and a key it does not declare is an error (a field with an alias also takes its name)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, defer_build=True)
