"""Under `--replay`: the agent and judge settings the cassettes recorded, so a replay needs no provider, key
or judge configuration (what is configured still wins, and then must match what was recorded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolproof.check.judge import SYSTEM_PROMPT
from toolproof.model.scenario import AgentCase
from toolproof.providers.base import ModelReply, ModelRequest, ProviderError
from toolproof.sources.agent.cassette import Cassette, CassetteError, cassette_file


class OfflineProvider:
    """The provider of a replayed judge, whose every answer comes from a cassette: it is never asked."""

    name = "replay"

    async def complete(self, request: ModelRequest) -> ModelReply:
        raise ProviderError("no live model under --replay")


class RecordedSettings:
    """What the recorded runs in `directory` asked of a model, for the settings nobody configured."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def agent(self, case: AgentCase) -> dict[str, Any]:
        """How the case's first recorded model request was made (model, system prompt, max_tokens,
        temperature): the lowest layer of its agent settings."""
        asked = next((request for request in self._requests(case) if not _for_judge(request)), {})
        recorded = {key: asked.get(key) for key in ("system", "max_tokens", "temperature")}
        return {"provider": "replay", "model": asked.get("model") or "replay", **recorded}

    def judge_model(self, cases: list[AgentCase]) -> str:
        """The model the first recorded judge request of `cases` named."""
        asked = (request for case in cases for request in self._requests(case) if _for_judge(request))
        return str(next(asked, {}).get("model") or "replay")

    def _requests(self, case: AgentCase) -> list[dict[str, Any]]:
        """The model requests of the case's (first trial's) cassette; none when it cannot be read, as the
        trial then fails on the cassette itself."""
        try:
            cassette = Cassette.replaying(cassette_file(self.directory, case), environ={})
        except CassetteError:
            return []
        asked = [entry.get("request") for entry in cassette.exchanges if entry["kind"] == "model"]
        return [request for request in asked if isinstance(request, dict)]


def _for_judge(request: dict[str, Any]) -> bool:
    """Whether a recorded model request was the judge's (its system prompt is the judge's own)."""
    return request.get("system") == SYSTEM_PROMPT
