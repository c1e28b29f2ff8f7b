"""The parts of a file that say how an agent case runs: its MCP servers and its agent settings.

`servers:` maps a name to a server block written like an mcp-assert `server:` (command, args, env, cwd,
transport, url, headers, docker, client_capabilities); a relative `cwd` is relative to the file's directory.
`agent:` holds `provider`, `model`, `system`, `max_steps`, `temperature` and `max_tokens`, each optional.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from toolproof.load.errors import LoadError
from toolproof.load.validation import Loc, validation_errors
from toolproof.load.yaml_source import Document, KeyPath
from toolproof.model.server_config import ServerConfig, Transport

AGENT_KEYS = ("provider", "model", "system", "max_steps", "temperature", "max_tokens")
_SERVER_NAME = re.compile(r"[A-Za-z0-9_-]+")


def read_servers(
    document: Document, value: Any, path: KeyPath
) -> tuple[dict[str, ServerConfig], list[LoadError]]:
    """The servers of a `servers:` mapping, and one error per problem (naming the file, line and field)."""
    if not isinstance(value, dict):
        return {}, [document.error(path, "must be a mapping of server name to server block")]
    found: dict[str, ServerConfig] = {}
    errors: list[LoadError] = []
    for name, block in value.items():
        here = (*path, name)
        if not _SERVER_NAME.fullmatch(str(name)):
            errors.append(document.error(here, "a server name is letters, digits, '_' and '-' only"))
            continue
        if not isinstance(block, dict):
            errors.append(document.error(here, "must be a server block (command/args or url)"))
            continue
        if isinstance(block.get("transport"), str):
            block = {**block, "transport": block["transport"].lower()}
        try:
            server = ServerConfig.model_validate(block)
        except ValidationError as error:
            errors.extend(validation_errors(error, ServerConfig, document, _under(here)))
            continue
        if server.transport is Transport.STDIO and not server.command:
            errors.append(document.error(here, "a stdio server needs a command"))
        elif server.transport is not Transport.STDIO and not server.url:
            errors.append(document.error(here, f"a {server.transport.value} server needs a url"))
        else:
            found[str(name)] = server.anchored(document.file.parent)
    return found, errors


def _under(path: KeyPath) -> Callable[[Loc], KeyPath]:
    def convert(loc: Loc) -> KeyPath:
        return (*path, *loc)

    return convert


def read_agent(document: Document, value: Any, path: KeyPath) -> tuple[dict[str, Any], list[LoadError]]:
    """The settings of an `agent:` mapping (only the keys given), and one error per problem."""
    if not isinstance(value, dict):
        return {}, [document.error(path, "must be a mapping")]
    errors = [
        document.error((*path, key), "unknown key", f"known keys: {', '.join(AGENT_KEYS)}")
        for key in value
        if key not in AGENT_KEYS
    ]
    found: dict[str, Any] = {}
    for key in ("provider", "model", "system"):
        if key in value:
            if isinstance(value[key], str) and value[key]:
                found[key] = value[key]
            else:
                errors.append(document.error((*path, key), "must be a non-empty string"))
    for key, low in (("max_steps", 1), ("max_tokens", 1)):
        if key in value:
            item = value[key]
            if isinstance(item, int) and not isinstance(item, bool) and item >= low:
                found[key] = item
            else:
                errors.append(document.error((*path, key), f"must be a whole number >= {low}, got {item!r}"))
    if "temperature" in value:
        item = value["temperature"]
        if isinstance(item, int | float) and not isinstance(item, bool) and 0 <= item <= 2:
            found["temperature"] = float(item)
        else:
            message = f"must be a number from 0 to 2, got {item!r}"
            errors.append(document.error((*path, "temperature"), message))
    return found, errors
