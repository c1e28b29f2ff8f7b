"""The agent loop: a conversation between a model and a user's turns, with the model's tool calls executed.

For each user turn the model gets the conversation so far and the tool catalog. While it asks for tools,
each call is executed over the host in the order asked and its result fed back; its first reply without tool
uses is the turn's answer, on which the configured guardrails run (`Turn.guardrails`; None when none are
configured or the turn gave no answer). A turn that is still calling tools after `max_steps` model calls
ends the run, as does a provider that cannot answer: the transcript keeps what happened and says why it
stopped (`Transcript.stop`), so the verdict can say so too. Later turns carry the whole conversation forward.
Anything else the provider or the host raises (a replayed cassette that does not hold the request) is not
an answer the model could be shown: it propagates and ends the run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from toolproof.model.guardrail import Guardrail
from toolproof.model.result import FailureKind
from toolproof.model.transcript import RunStop, ToolCall, ToolDeclaration, Transcript, Turn, Usage
from toolproof.providers.base import Message, ModelRequest, Provider, ProviderError, ToolSpec
from toolproof.sources.agent.guardrails import evaluate
from toolproof.sources.agent.host import ToolHost

DEFAULT_MAX_STEPS = 30
STOP_MAX_STEPS = "max_steps"
STOP_PROVIDER = "provider_error"


@dataclass(frozen=True)
class AgentSettings:
    """How the model is called: which model, the system prompt, the step limit per user turn, sampling; and
    the guardrails run on each turn's answer."""

    model: str
    system: str | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    max_tokens: int = 4096
    temperature: float | None = None
    guardrails: tuple[Guardrail, ...] = ()


@dataclass
class _Conversation:
    scenario: str
    provider: Provider
    host: ToolHost
    settings: AgentSettings
    tools: tuple[ToolSpec, ...]
    messages: list[Message]
    position: int = 0

    async def turn(self, index: int, user: str) -> tuple[Turn, RunStop | None]:
        """The turn's record, and why the run must stop after it (None: it ended with an answer)."""
        started = time.perf_counter()
        self.messages.append(Message(role="user", text=user))
        calls: list[ToolCall] = []
        usage: Usage | None = None
        reply_text = ""
        stop: RunStop | None = None
        for step in range(self.settings.max_steps):
            request = ModelRequest(
                model=self.settings.model,
                messages=tuple(self.messages),
                system=self.settings.system,
                tools=self.tools,
                max_tokens=self.settings.max_tokens,
                temperature=self.settings.temperature,
                scenario=self.scenario,
                turn=index,
            )
            try:
                reply = await self.provider.complete(request)
            except ProviderError as error:
                stop = RunStop(
                    reason=STOP_PROVIDER,
                    kind=error.kind,
                    turn=index + 1,
                    step=step + 1,
                    message=f"the model call failed in turn {index + 1}, step {step + 1}: {error}",
                )
                break
            if reply.usage is not None:
                usage = reply.usage if usage is None else usage + reply.usage
            reply_text = reply.text
            self.messages.append(Message(role="assistant", text=reply.text, tool_uses=reply.tool_uses))
            if not reply.tool_uses:
                break
            for use in reply.tool_uses:
                outcome = await self.host.call(use.name, dict(use.arguments))
                calls.append(
                    ToolCall(
                        tool=use.name,
                        arguments=dict(use.arguments),
                        result=outcome.text,
                        is_error=outcome.is_error,
                        duration_ms=outcome.duration_ms,
                        position=self.position,
                        id=use.id,
                    )
                )
                self.position += 1
                self.messages.append(
                    Message(role="tool", text=outcome.text, tool_use_id=use.id, is_error=outcome.is_error)
                )
        else:
            stop = RunStop(
                reason=STOP_MAX_STEPS,
                kind=FailureKind.EXPECTATION,
                turn=index + 1,
                step=self.settings.max_steps,
                message=f"no final answer in turn {index + 1} after {self.settings.max_steps} model steps "
                "(max_steps reached)",
            )
        record = Turn(
            user=user,
            reply="" if stop else reply_text,
            calls=tuple(calls),
            usage=usage,
            duration_ms=round((time.perf_counter() - started) * 1000, 3),
            guardrails=evaluate(self.settings.guardrails, reply_text)
            if self.settings.guardrails and not stop
            else None,
        )
        return record, stop


async def run_conversation(
    scenario: str,
    users: Sequence[str],
    provider: Provider,
    host: ToolHost,
    settings: AgentSettings,
) -> Transcript:
    """Play every user turn against the model and return what happened.

    `scenario` names the run in every model request (with the turn's index) and in the transcript.
    The transcript names the provider and the model, holds the tool catalog, the total duration and, when
    the run stopped early, its `stop` (reason `max_steps` or `provider_error`, with its turn and step).
    """
    started = time.perf_counter()
    started_ms = time.time() * 1000
    tools = await host.list_tools()
    conversation = _Conversation(scenario, provider, host, settings, tools, [])
    turns: list[Turn] = []
    stop: RunStop | None = None
    for index, user in enumerate(users):
        turn, stop = await conversation.turn(index, user)
        turns.append(turn)
        if stop is not None:
            break
    return Transcript(
        turns=tuple(turns),
        scenario=scenario,
        source="agent loop",
        started_ms=started_ms,
        duration_ms=round((time.perf_counter() - started) * 1000, 3),
        stop=stop,
        provider=provider.name,
        model=settings.model,
        tools=tuple(ToolDeclaration(**vars(tool)) for tool in tools),
    )
