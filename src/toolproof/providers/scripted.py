"""A stand-in model that answers from a script: for tests, demos and agent runs that must not cost tokens.

A script file is one YAML document:

```yaml
scenarios:
  refund flow:                      # the request's scenario; "*" answers any scenario not listed
    - steps:                        # turn 0: the model's answers, one per call, in order
        - tools:                    # the model calls these tools (several = parallel calls in one answer)
            - name: lookup_order
              arguments: {order: ORD-9921}
              id: call-1            # optional; default call_<turn>_<step>_<index>
          reply: Let me look.       # optional text next to the calls
        - reply: Your refund is on its way.   # no `tools`: the final answer of the turn
          usage: {input_tokens: 120, output_tokens: 14}   # optional; also total_tokens
    - steps:                        # turn 1
        - reply: You're welcome.
```

Which answer a request gets: the scenario by `ModelRequest.scenario`, the turn by `ModelRequest.turn`
(0-based), and the step by the number of assistant messages since the last user message of the conversation.
A request the script has no answer for is a `ProviderError` naming the scenario, turn and step. A file that
does not fit this format is a `load.script_file.ScriptError` listing every problem with its file, line and
field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolproof.model.result import FailureKind
from toolproof.model.script import ScriptedStep, ScriptFile
from toolproof.providers.base import Message, ModelReply, ModelRequest, ProviderError, ToolUse

ANY_SCENARIO = "*"


Turns = Sequence[Sequence[ModelReply]]


def step_index(messages: Sequence[Message]) -> int:
    """The number of assistant messages since the last user message."""
    count = 0
    for message in reversed(messages):
        if message.role == "user":
            break
        count += message.role == "assistant"
    return count


def _reply(step: ScriptedStep, turn: int, index: int) -> ModelReply:
    uses = tuple(
        ToolUse(call.id or f"call_{turn}_{index}_{position}", call.name, call.arguments)
        for position, call in enumerate(step.tools)
    )
    stop = "tool_use" if uses else "end_turn"
    return ModelReply(text=step.reply or "", tool_uses=uses, usage=step.usage, stop_reason=stop)


class ScriptedProvider:
    """A Provider that answers from a script; every request it got is kept in `requests`."""

    name = "scripted"

    def __init__(self, scenarios: Mapping[str, Turns], *, source: str = "script") -> None:
        self._scenarios = {key: [list(steps) for steps in turns] for key, turns in scenarios.items()}
        self._source = source
        self.requests: list[ModelRequest] = []

    @classmethod
    def from_script(cls, script: ScriptFile, *, source: str = "script") -> ScriptedProvider:
        """The provider answering as `script` says (`source` names it in errors)."""
        replies = {
            scenario: [
                [_reply(step, turn, index) for index, step in enumerate(item.steps)]
                for turn, item in enumerate(turns)
            ]
            for scenario, turns in script.scenarios.items()
        }
        return cls(replies, source=source)

    @classmethod
    def from_turns(cls, *turns: Sequence[ModelReply], scenario: str = ANY_SCENARIO) -> ScriptedProvider:
        """A provider answering `scenario` (by default any) with the given replies per turn."""
        return cls({scenario: turns}, source="in-memory script")

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.requests.append(request)
        turns = self._scenarios.get(request.scenario, self._scenarios.get(ANY_SCENARIO))
        if turns is None:
            known = ", ".join(repr(key) for key in self._scenarios) or "none"
            raise ProviderError(
                f"{self._source}: no script for scenario {request.scenario!r} (scripted scenarios: {known})",
                kind=FailureKind.CONFIG,
            )
        step = step_index(request.messages)
        steps = turns[request.turn] if 0 <= request.turn < len(turns) else []
        if step >= len(steps):
            raise ProviderError(
                f"{self._source}: scenario {request.scenario!r} has no step {step} in turn {request.turn} "
                f"(the script has {len(turns)} turn(s); this turn has {len(steps)} step(s))",
                kind=FailureKind.CONFIG,
            )
        return steps[step]
