"""Make a provider from a small config; a pool makes one per distinct config, for everything sharing it.

API keys come only from the environment: `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, or the variable named by
`api_key_env`. The SDKs are imported only when their provider is made, so commands that never talk to a
model never load them; they come with the `agents` extra (`pip install 'toolproof[agents]'`), and a provider
made without its SDK is a ProviderConfigError naming that extra.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from toolproof.core.durations import parse_duration
from toolproof.providers.base import Provider, ProviderError
from toolproof.providers.retry import RetryPolicy

if TYPE_CHECKING:
    from toolproof.providers.scripted import ScriptedProvider

ProviderKind = Literal["openai", "anthropic", "scripted"]
KEY_VARIABLES: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def _seconds(value: Any) -> Any:
    return parse_duration(value) if isinstance(value, str) else value


class ProviderConfigError(ProviderError):
    """A provider that cannot be made as configured (a missing key, a missing script)."""


class ProviderConfig(BaseModel):
    """Which provider to make and how it behaves.

    `model` is what requests name (required for `openai` and `anthropic`); `script` is the script file of a
    `scripted` provider; `max_retries` counts tries after the first; `timeout` bounds one HTTP request
    (seconds, or a duration such as `30s`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ProviderKind
    model: str = ""
    base_url: str | None = None
    api_key_env: str | None = None
    script: Path | None = None
    max_concurrency: int = Field(default=4, ge=1)
    max_retries: int = Field(default=3, ge=0)
    timeout: Annotated[float, BeforeValidator(_seconds)] = Field(default=60.0, gt=0)

    @model_validator(mode="after")
    def _complete(self) -> ProviderConfig:
        if self.kind == "scripted" and self.script is None:
            raise ValueError("a scripted provider needs `script`")
        if self.kind != "scripted" and not self.model:
            raise ValueError(f"an {self.kind} provider needs `model`")
        return self


def api_key(config: ProviderConfig, environ: Mapping[str, str]) -> str:
    """The API key for `config` from `environ`; ProviderConfigError naming the variable when it is unset."""
    variable = config.api_key_env or KEY_VARIABLES[config.kind]
    value = environ.get(variable, "").strip()
    if not value:
        state = "is empty" if variable in environ else "is not set"
        raise ProviderConfigError(f"{config.kind} provider: the API key variable {variable} {state}")
    return value


def make_provider(config: ProviderConfig, environ: Mapping[str, str] | None = None) -> Provider:
    """The provider `config` describes; keys are read from `environ` (default: the process environment)."""
    if config.kind == "scripted":
        assert config.script is not None  # checked by ProviderConfig
        return load_scripted(config.script)
    key = api_key(config, os.environ if environ is None else environ)
    retry = RetryPolicy(max_attempts=config.max_retries + 1)
    if config.kind == "openai":
        with _sdk_of(config.kind):
            from toolproof.providers.openai_chat import OpenAIChatProvider
        return OpenAIChatProvider(
            api_key=key,
            base_url=config.base_url,
            timeout=config.timeout,
            max_concurrency=config.max_concurrency,
            retry=retry,
        )
    with _sdk_of(config.kind):
        from toolproof.providers.anthropic_messages import AnthropicMessagesProvider
    return AnthropicMessagesProvider(
        api_key=key,
        base_url=config.base_url,
        timeout=config.timeout,
        max_concurrency=config.max_concurrency,
        retry=retry,
    )


@contextmanager
def _sdk_of(kind: str) -> Iterator[None]:
    """Import a provider's module: its SDK (the package named `kind`) missing is a ProviderConfigError naming
    the extra that installs it; any other missing module is raised as it is."""
    try:
        yield
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] != kind:
            raise
        raise ProviderConfigError(
            f"{kind} provider: the {kind} package is not installed; the model providers come with "
            "toolproof's agents extra: pip install 'toolproof[agents]'"
        ) from None


def load_scripted(path: Path) -> ScriptedProvider:
    """The scripted provider answering as the script file at `path` says; ScriptError if it cannot be used."""
    from toolproof.load.script_file import load_script
    from toolproof.providers.scripted import ScriptedProvider

    return ScriptedProvider.from_script(load_script(path), source=str(path))


async def close_provider(provider: Provider) -> None:
    """Release the connections of a provider that holds any (the HTTP adapters); others need nothing."""
    close = getattr(provider, "aclose", None)
    if close is not None:
        await close()


class ProviderPool:
    """One provider per distinct configuration, made on first use.

    Everything asking with an equal config (agents that differ only in system prompt, temperature or
    max_tokens, and a judge on the same endpoint and model) gets the same provider, so they share its
    concurrency limit, retries and connections. `max_rps` (`--max-rps`) maps a provider kind, or `*` for
    every kind, to the requests a second each provider of that kind starts over the whole run.
    """

    def __init__(
        self, environ: Mapping[str, str] | None = None, *, max_rps: Mapping[str, float] | None = None
    ) -> None:
        self._environ = environ
        self._max_rps = dict(max_rps or {})
        self._made: dict[ProviderConfig, Provider] = {}

    def get(self, config: ProviderConfig) -> Provider:
        """The provider of `config`, made (and its key read) the first time it is asked for."""
        if config not in self._made:
            made = make_provider(config, self._environ)
            rate = self._max_rps.get(config.kind, self._max_rps.get("*"))
            if rate is not None:
                from toolproof.providers.pacing import Paced, Pacer

                made = Paced(made, Pacer(rate))
            self._made[config] = made
        return self._made[config]

    async def aclose(self) -> None:
        """Close every provider made."""
        for provider in self._made.values():
            await close_provider(provider)
