"""Making providers from config: keys from the environment only, validation, lazy SDK imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError
from tests.support.llm_wire import LlmWire

from toolproof.providers.anthropic_messages import AnthropicMessagesProvider
from toolproof.providers.base import Message, ModelRequest, ProviderError
from toolproof.providers.openai_chat import OpenAIChatProvider
from toolproof.providers.scripted import ScriptedProvider
from toolproof.run.providers import ProviderConfig, ProviderConfigError, close_provider, make_provider

REQUEST = ModelRequest("model-x", (Message("user", "hi"),))


def test_config_defaults_and_durations() -> None:
    config = ProviderConfig.model_validate({"kind": "openai", "model": "gpt-x", "timeout": "1m30s"})
    assert config.timeout == 90.0
    assert (config.max_concurrency, config.max_retries) == (4, 3)
    assert config.base_url is None and config.api_key_env is None


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"kind": "openai"}, "an openai provider needs `model`"),
        ({"kind": "scripted"}, "a scripted provider needs `script`"),
        ({"kind": "gemini", "model": "x"}, "Input should be 'openai', 'anthropic' or 'scripted'"),
        ({"kind": "openai", "model": "x", "api_key": "sk-1"}, "Extra inputs are not permitted"),
        ({"kind": "openai", "model": "x", "max_concurrency": 0}, "greater than or equal to 1"),
        ({"kind": "openai", "model": "x", "timeout": "soon"}, "invalid duration"),
    ],
)
def test_config_errors(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        ProviderConfig.model_validate(fields)


@pytest.mark.parametrize(
    ("fields", "environ", "message"),
    [
        ({"kind": "openai"}, {}, "openai provider: the API key variable OPENAI_API_KEY is not set"),
        ({"kind": "anthropic"}, {"ANTHROPIC_API_KEY": " "}, "API key variable ANTHROPIC_API_KEY is empty"),
        ({"kind": "openai", "api_key_env": "GATEWAY_KEY"}, {"OPENAI_API_KEY": "k"}, "GATEWAY_KEY is not set"),
    ],
)
def test_a_missing_key_names_the_variable(
    fields: dict[str, str], environ: dict[str, str], message: str
) -> None:
    config = ProviderConfig.model_validate({"model": "m", **fields})
    with pytest.raises(ProviderConfigError, match=message):
        make_provider(config, environ)


@pytest.mark.parametrize(
    ("kind", "adapter"), [("openai", OpenAIChatProvider), ("anthropic", AnthropicMessagesProvider)]
)
async def test_made_providers_use_the_key_from_the_environment(
    llm_wire: LlmWire, kind: str, adapter: type[object]
) -> None:
    base_url = llm_wire.openai_base_url if kind == "openai" else llm_wire.anthropic_base_url
    config = ProviderConfig.model_validate(
        {"kind": kind, "model": "m", "base_url": base_url, "api_key_env": "MY_KEY", "max_retries": 0}
    )
    provider = make_provider(config, {"MY_KEY": "key-from-env"})
    assert isinstance(provider, adapter)
    assert provider.name == kind
    llm_wire.reply("hello")
    llm_wire.fail(500)
    try:
        assert (await provider.complete(REQUEST)).text == "hello"
        with pytest.raises(ProviderError, match="HTTP 500"):
            await provider.complete(REQUEST)
    finally:
        await close_provider(provider)
    assert llm_wire.requests[0].headers["authorization"] == "Bearer key-from-env"
    assert len(llm_wire.requests) == 2  # max_retries: 0 means a single attempt


async def test_a_scripted_provider_from_config(tmp_path: Path) -> None:
    script = tmp_path / "model.yaml"
    script.write_text("scenarios:\n  '*':\n    - steps: [{reply: scripted hello}]\n")
    provider = make_provider(ProviderConfig(kind="scripted", script=script), {})
    assert isinstance(provider, ScriptedProvider)
    assert (await provider.complete(REQUEST)).text == "scripted hello"
    await close_provider(provider)  # nothing to close: no error


@pytest.mark.parametrize("module", ["toolproof.run.providers", "toolproof.cli"])
def test_the_sdks_are_imported_only_when_a_provider_is_made(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "print(sorted(name for name in ('openai', 'anthropic') if name in sys.modules))"
    )
    command = [sys.executable, "-c", code]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "[]"


_WITHOUT_SDKS = """
import sys
from importlib.abc import MetaPathFinder


class Absent(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("openai", "anthropic"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Absent())
from toolproof.run.providers import ProviderConfig, ProviderConfigError, make_provider

for kind in ("openai", "anthropic"):
    try:
        make_provider(ProviderConfig(kind=kind, model="m"), {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"})
    except ProviderConfigError as error:
        print(error)
"""


def test_a_provider_without_its_sdk_names_the_extra_that_installs_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_SDKS], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines() == [
        f"{kind} provider: the {kind} package is not installed; the model providers come with toolproof's "
        "agents extra: pip install 'toolproof[agents]'"
        for kind in ("openai", "anthropic")
    ]
